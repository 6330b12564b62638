// Command ddmtui is a terminal Dalvik/ART Debug Monitor: it finds VMs on local
// JDWP ports and through adb, speaks the DDM chunk protocol over JDWP, and
// shows threads, heaps, method traces and thread dumps in the terminal or as
// JSON for scripts.
//
// The command line lives in package cli; this file only runs it.
package main

import (
	"os"

	"github.com/ddmtui/ddmtui/cli"
)

func main() {
	if err := cli.Run(cli.NewApp(), os.Args); err != nil {
		cli.PrintError(os.Stderr, err)
		os.Exit(cli.ExitStatus(err))
	}
}
