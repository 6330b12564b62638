package cli

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
)

// vmPickFlags are the discovery flags of the commands that act on one VM
// (--pid), with --serial to say which device's VM when a pid is on more
// than one.
func vmPickFlags() []cli.Flag {
	return append(discoveryFlags(),
		&cli.StringFlag{Name: "serial", Aliases: []string{"s"}, Usage: "the device (adb serial) whose VM --pid names, when a pid is on more than one; or a source as list prints it (local:8000, adb:SERIAL)"},
	)
}

// pickVM chooses the VM with pid among vms: on the device serial when it is
// set, else the first; when several devices have such a pid and no serial
// says which, it warns on w (once per name set, through warned). ok is
// false when none matches.
func pickVM(vms []monitor.VM, pid int, serial string, w io.Writer, warned map[string]bool) (monitor.VM, bool) {
	var match []monitor.VM
	for _, vm := range vms {
		if vm.PID != pid {
			continue
		}
		if serial != "" && !sourceIs(vm.Source, serial) {
			continue
		}
		match = append(match, vm)
	}
	if len(match) == 0 {
		return monitor.VM{}, false
	}
	sort.SliceStable(match, func(i, j int) bool { return match[i].Source < match[j].Source })
	if len(match) > 1 && w != nil {
		var srcs []string
		for _, vm := range match {
			srcs = append(srcs, safetext.Terminal(vm.Source))
		}
		key := strings.Join(srcs, ",")
		if !warned[key] {
			warned[key] = true
			fmt.Fprintf(w, "ddmtui: warning: pid %d is on %d sources (%s); using %s — say which with --serial\n",
				pid, len(match), strings.Join(srcs, ", "), srcs[0])
		}
	}
	return match[0], true
}

// sourceIs reports whether a VM's source ("adb:SERIAL", "local:PORT",
// "sim:SERIAL") is the one --serial names: an adb serial, or the source as
// list prints it.
func sourceIs(source, serial string) bool {
	return source == serial || source == "adb:"+serial || source == "sim:"+serial
}
