// Command ddmtui is a terminal Dalvik/ART Debug Monitor: it finds VMs on local
// JDWP ports and through adb, speaks the DDM chunk protocol over JDWP, and
// shows threads, heaps, method traces and thread dumps in the terminal or as
// JSON for scripts.
//
// This file holds the command-line surface only: commands and flags. Each
// command's action lives in a cmd_*.go file beside it and calls into the
// packages that do the work.
package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func newApp() *cli.App {
	return &cli.App{
		Name:                 "ddmtui",
		Usage:                "a terminal Dalvik/ART debug monitor",
		Version:              version,
		EnableBashCompletion: true,
		Flags:                append(discoveryFlags(), uiFlags()...),
		Action:               dashboardAction,
		Commands: []*cli.Command{
			versionCommand(),
			simCommand(),
			listCommand(),
			snapshotCommand(),
			demoCommand(),
			profileCommand(),
			dumpCommand(),
			heapCommand(),
			hprofCommand(),
			allocsCommand(),
			traceCommand(),
			anrCommand(),
			serveCommand(),
		},
	}
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the ddmtui version",
		Action: func(c *cli.Context) error {
			_, err := fmt.Fprintf(c.App.Writer, "ddmtui %s\n", version)
			return err
		},
	}
}

func main() {
	if err := newApp().Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "ddmtui:", err)
		os.Exit(1)
	}
}
