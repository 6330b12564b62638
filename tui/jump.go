package tui

import (
	"fmt"
	"strings"

	"github.com/ddmtui/ddmtui/monitor"
)

// appMatches are the VMs whose app (or package, or VM name) matches q,
// across devices, in the list's order: those containing q as typed
// (ignoring case) if any, else those holding q's letters in order
// ("gmail" → "com.google.android.gm…ail"). An empty q matches every VM.
func (d *Dashboard) appMatches(q string) []monitor.VM {
	q = strings.ToLower(q)
	var sub, fuzzy []monitor.VM
	for _, vm := range d.m.vms {
		names := []string{strings.ToLower(appLabel(vm)), strings.ToLower(vm.Package), strings.ToLower(vm.VMIdent)}
		hit, near := false, false
		for _, n := range names {
			hit = hit || strings.Contains(n, q)
			near = near || subsequence(q, n)
		}
		switch {
		case hit:
			sub = append(sub, vm)
		case near:
			fuzzy = append(fuzzy, vm)
		}
	}
	if len(sub) > 0 {
		return sub
	}
	return fuzzy
}

// subsequence reports whether q's bytes appear in s in order.
func subsequence(q, s string) bool {
	i := 0
	for j := 0; i < len(q) && j < len(s); j++ {
		if q[i] == s[j] {
			i++
		}
	}
	return q != "" && i == len(q)
}

// jumpToApp selects the VM whose app matches q (`:app NAME`). When several
// match, running it again selects the next, after the selected one. A VM
// hidden by the list's filter, a folded device or the debuggable-only view
// is brought into view.
func (d *Dashboard) jumpToApp(q string) {
	ms := d.appMatches(q)
	if len(ms) == 0 {
		d.flash(fmt.Sprintf("app %q: no VM's app matches (%d VM%s listed)", q, len(d.m.vms), plural(len(d.m.vms))))
		return
	}
	i := 0
	for j, vm := range ms {
		if vm.Key == d.m.sel {
			i = (j + 1) % len(ms)
			break
		}
	}
	vm := ms[i]
	p := d.vmsP
	if p.filter != "" && !matchFilter(p.filter, vm.Source, fmt.Sprint(vm.PID), vm.App, vm.VMIdent) {
		p.filter = ""
	}
	if p.debuggableOnly && vm.ProcessOnly() {
		p.debuggableOnly = false
	}
	delete(p.folded, deviceGroup(vm))
	d.selectVM(vm.Key)
	p.render()
	d.fitVMPane()
	msg := fmt.Sprintf("app: %s · %s", vmLabel(vm, 40), vm.Source)
	if len(ms) > 1 {
		msg += fmt.Sprintf(" · %d of %d matches (:app %s again: the next)", i+1, len(ms), q)
	}
	d.flash(msg)
}
