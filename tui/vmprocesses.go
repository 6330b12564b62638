package tui

import (
	"fmt"
	"strings"

	"github.com/ddmtui/ddmtui/monitor"
)

// The VM list's side of track-app (docs/ADB.md): profileable processes
// without JDWP are rows of their own, P hides or shows them, and the
// architecture and user track-app reports are shown.

// toggleProcesses switches between every tracked process and debuggable
// VMs only.
func (p *vmPane) toggleProcesses() {
	p.debuggableOnly = !p.debuggableOnly
	p.render()
	if vm, ok := p.env.m.selected(); ok && p.debuggableOnly && vm.ProcessOnly() {
		p.selectNearest()
	}
	p.env.nav.fitVMPane()
	if p.debuggableOnly {
		p.env.flash("VM list: debuggable VMs only (P: every tracked process)")
	} else {
		p.env.flash("VM list: every tracked process, profileable apps without JDWP included (P: debuggable only)")
	}
}

// selectNearest selects the VM at the cursor, or the first VM row after
// it (the cursor may rest on a device's row), when the selected VM left
// the list: the panes follow the list and its row gets ▶ (issue 38 #18:
// P hid the selected release app, whose threads the panes kept showing).
func (p *vmPane) selectNearest() {
	r, _ := p.table.GetSelection()
	for i := max(r-1, 0); i < len(p.rowKeys); i++ {
		if k := p.rowKeys[i]; !strings.HasPrefix(k, groupPrefix) {
			p.env.nav.selectVM(k)
			return
		}
	}
}

// archLabel is the Arch column: track-app's architecture, else HELO's ABI,
// and "uN" for a user other than 0 (a work profile or a second user).
func archLabel(vm monitor.VM) string {
	s := vm.Architecture
	if vm.UserIDKnown && vm.UserID != 0 {
		s = strings.TrimSpace(s + fmt.Sprintf(" u%d", vm.UserID))
	}
	if s == "" {
		return "-"
	}
	return s
}
