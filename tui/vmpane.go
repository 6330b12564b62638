package tui

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// maxAppWidth bounds the App column's share when the layout allots the VM
// list its width by content.
const maxAppWidth = 32

// vmColumns are the VM list's columns. Arch (archLabel: track-app's
// architecture, Android 12+, and "uN" for another user) is there only while
// it tells processes of one device apart — a 32-bit app among 64-bit ones,
// a work profile; otherwise a device's one architecture is on its row, and
// the width stays with the names.
var (
	vmColumns     = []string{"", "Source", "PID", "App", "DDM", "Debugger", "Port"}
	vmColumnsArch = []string{"", "Source", "PID", "App", "DDM", "Arch", "Debugger", "Port"}
)

// vmPane is the VM list. Its cursor is the selection: j/k select the next
// or previous VM and the other panes follow, as in htop and k9s. A VM whose
// session ended stays listed, dimmed, for a grace period (see goneGrace).
type vmPane struct {
	env     paneEnv
	table   *vmTable
	rowKeys []string
	filter  string
	widths  [8]int          // content width of each column, for the layout
	ncols   int             // columns shown: len(vmColumns) or len(vmColumnsArch)
	drawing bool            // render moves the cursor: not a user's choice
	width   int             // inner width the rows were cut for
	folded  map[string]bool // device groups shown as one row
	// debuggableOnly leaves out profileable processes without JDWP (P).
	debuggableOnly bool
	order          listSort // the digit keys' column order (sortkeys.go)

	// The VM actions' state (vmactions.go), which the status line shows:
	tracing profiling // the VM being traced, if any
	// profileChoice is `p`'s answer on VMs that can be traced and
	// sampled, kept for the session (vmsamples.go).
	profileChoice profileChoice
	mode          int    // index in cfg.ScanModes (the m key)
	discovery     string // where VMs come from in that mode
}

func newVMPane(env paneEnv) *vmPane {
	p := &vmPane{env: env, folded: map[string]bool{}, debuggableOnly: env.cfg.DebuggableOnly, order: listSort{col: -1},
		discovery: env.cfg.Discovery}
	p.table = &vmTable{Table: tview.NewTable()}
	p.table.SetSelectable(true, false).SetFixed(1, 0)
	p.table.SetSelectedStyle(env.pal.Cursor())
	p.table.SetBorder(true).SetTitle(" VMs ")
	// App names are cut to the width the pane has when drawn, so that the
	// Debugger and Port columns always show: re-render when it changed.
	p.table.SetDrawFunc(func(_ tcell.Screen, x, y, w, h int) (int, int, int, int) {
		if w-2 != p.width {
			p.width = w - 2
			p.render()
		}
		return x + 1, y + 1, w - 2, h - 2
	})
	p.table.SetSelectionChangedFunc(func(row, _ int) { // a mouse click
		if !p.drawing && row >= 1 && row-1 < len(p.rowKeys) && !strings.HasPrefix(p.rowKeys[row-1], groupPrefix) {
			p.env.nav.selectVM(p.rowKeys[row-1])
		}
	})
	return p
}

func (p *vmPane) Name() string            { return "vms" }
func (p *vmPane) Title() string           { return "VM list" }
func (p *vmPane) Widget() tview.Primitive { return p.table }
func (p *vmPane) Frame() *tview.Box       { return p.table.Box }
func (p *vmPane) Filter() string          { return p.filter }

// SetFilter filters the list; the selection stays where it was.
func (p *vmPane) SetFilter(f string) { p.filter = f; p.render() }

// Keys: the VM list's own keys are movement (shared), Enter and z; the
// actions on the selected VM are in vmactions.go.
func (p *vmPane) Keys() []keymap.Binding {
	return []keymap.Binding{
		keymap.Bind(tcell.KeyRune, 'z', "z", "fold / unfold the selected VM's device", "Panes", p.foldSelected).As("fold-device"),
		keymap.Bind(tcell.KeyRune, 'P', "P", "every tracked process, or debuggable VMs only",
			"Panes", p.toggleProcesses).As("processes"),
	}
}

// headRow is a device's row in the VM list: its table row and what it says.
type headRow struct {
	r     int
	text  string // serial · API level · model
	count string // "2 VMs"
}

// groupPrefix marks a device's row in rowKeys.
const groupPrefix = "\x00group:"

// deviceGroup is the device a VM belongs to: its source when that names a
// device ("adb:SERIAL", or the demo's in-process "sim:SERIAL"), or "local"
// for VMs found on local ports.
func deviceGroup(vm monitor.VM) string {
	if strings.HasPrefix(vm.Source, "local:") || vm.Source == "" {
		return "local"
	}
	return vm.Source
}

func groupCount(vms []monitor.VM) int {
	seen := map[string]bool{}
	for _, vm := range vms {
		seen[deviceGroup(vm)] = true
	}
	return len(seen)
}

// foldSelected folds or unfolds the group under the cursor (a device's
// row, or the selected VM's device).
func (p *vmPane) foldSelected() {
	r, _ := p.table.GetSelection()
	if r >= 1 && r-1 < len(p.rowKeys) && strings.HasPrefix(p.rowKeys[r-1], groupPrefix) {
		p.toggleFold(strings.TrimPrefix(p.rowKeys[r-1], groupPrefix))
		return
	}
	if vm, ok := p.env.m.selected(); ok && groupCount(p.env.m.vms) > 1 {
		p.toggleFold(deviceGroup(vm))
	}
}

func (p *vmPane) toggleFold(g string) {
	p.folded[g] = !p.folded[g]
	p.render()
	p.env.nav.fitVMPane()
}

func (p *vmPane) Update(c Change) {
	if c&(ChangeVMs|ChangeSelection|ChangeTick) != 0 {
		p.render()
	}
}

// Move selects the VM delta rows away.
func (p *vmPane) Move(delta int) {
	if len(p.rowKeys) == 0 {
		return
	}
	r, _ := p.table.GetSelection()
	from := r
	r = min(max(1, r+delta), len(p.rowKeys))
	// A failed endpoint's row is passed over, in the direction of the move.
	step := 1
	if delta < 0 {
		step = -1
	}
	for p.failedRow(r) {
		if r+step < 1 || r+step > len(p.rowKeys) {
			r = from
			break
		}
		r += step
	}
	p.table.Select(r, 0)
	if key := p.rowKeys[r-1]; !strings.HasPrefix(key, groupPrefix) {
		p.env.nav.selectVM(key) // on a device's row the selection stays where it was
	}
}

// failedRow reports whether table row r is a failed endpoint's.
func (p *vmPane) failedRow(r int) bool {
	if r < 1 || r > len(p.rowKeys) {
		return false
	}
	_, bad := p.env.m.isFailed(p.rowKeys[r-1])
	return bad
}

func (p *vmPane) PageSize() int {
	_, _, _, h := p.table.GetInnerRect()
	return max(1, h-2)
}

// Activate moves the focus to the selected VM's threads.
func (p *vmPane) Activate() {
	r, _ := p.table.GetSelection()
	if r >= 1 && r-1 < len(p.rowKeys) {
		if key := p.rowKeys[r-1]; strings.HasPrefix(key, groupPrefix) {
			p.toggleFold(strings.TrimPrefix(key, groupPrefix))
			return
		}
		p.env.nav.selectVM(p.rowKeys[r-1])
	}
	if p.env.nav.shown(paneThreads) {
		p.env.nav.setFocus(paneThreads)
	}
}

func (p *vmPane) visible() []monitor.VM {
	var out []monitor.VM
	for _, vm := range p.env.m.vms {
		if p.debuggableOnly && vm.ProcessOnly() {
			continue
		}
		if matchFilter(p.filter, vm.Source, fmt.Sprint(vm.PID), vm.App, vm.VMIdent) {
			out = append(out, vm)
		}
	}
	p.sortVMs(out)
	return out
}

// pidLabel shows an unknown pid (plain JDWP VMs do not say) as "-".
func pidLabel(pid int) string {
	if pid <= 0 {
		return "-"
	}
	return fmt.Sprint(pid)
}

// vmLabel names a VM in titles and messages: "app (pid)", or the app alone
// when the pid is unknown.
func vmLabel(vm monitor.VM, w int) string {
	s := truncate(appLabel(vm), w)
	if vm.PID > 0 {
		s += fmt.Sprintf(" (%d)", vm.PID)
	}
	return s
}

// appLabel is what the App column shows: the app name, or for VMs that
// send none (plain JDWP VMs) the VM's name.
func appLabel(vm monitor.VM) string {
	switch {
	case vm.App != "":
		return vm.App
	case vm.VMIdent != "":
		return vm.VMIdent
	}
	return fmt.Sprintf("pid %d", vm.PID)
}

func (p *vmPane) render() {
	t, m := p.table, p.env.m
	p.drawing = true
	defer func() { p.drawing = false }()
	onGroup := "" // the cursor rests on a device's row: keep it there
	if r, _ := t.GetSelection(); r >= 1 && r-1 < len(p.rowKeys) && strings.HasPrefix(p.rowKeys[r-1], groupPrefix) {
		onGroup = strings.TrimPrefix(p.rowKeys[r-1], groupPrefix)
	}
	t.Clear()
	p.widths = [8]int{}
	cell := func(r, c int, s string) *tview.TableCell {
		cl := tview.NewTableCell(s)
		t.SetCell(r, c, cl)
		p.widths[c] = max(p.widths[c], tview.TaggedStringWidth(s))
		return cl
	}
	p.rowKeys = p.rowKeys[:0]
	list := p.visible()
	cols := vmColumns
	arch := map[string]string{} // device group → its one architecture ("" when none or mixed)
	for _, vm := range list {
		g := deviceGroup(vm)
		prev, seen := arch[g]
		switch {
		case vm.UserIDKnown && vm.UserID != 0, seen && prev != vm.Architecture:
			cols = vmColumnsArch
		}
		arch[g] = vm.Architecture
	}
	if len(arch) == 1 { // one device: no device row to carry it
		for _, a := range arch {
			if a != "" {
				cols = vmColumnsArch
			}
		}
	}
	p.ncols = len(cols)
	for i, h := range cols {
		cell(0, i, h+p.sortMark(h)).SetSelectable(false).SetAttributes(tcell.AttrBold).SetTextColor(p.env.pal.Accent())
	}
	grouped := groupCount(list) > 1
	selRow, r, group := 0, 0, ""
	type vmRow struct {
		r  int
		vm monitor.VM
	}
	var vmRows []vmRow
	failedRows := map[int]string{} // row → what the App column says instead
	var heads []headRow
	groupRow := map[string]int{}
	for i, vm := range list {
		if g := deviceGroup(vm); grouped && (i == 0 || g != group) {
			group = g
			r++
			n := 0
			for _, o := range list {
				if deviceGroup(o) == g {
					n++
				}
			}
			fold := "▾"
			if p.folded[g] {
				fold = "▸"
			}
			// The device's row names it in the wide App column (its VMs'
			// rows then leave Source empty): a long serial does not take
			// the width the app names need.
			_, text, _ := strings.Cut(g, ":") // the serial ("adb:SERIAL", the demo's "sim:SERIAL")
			if text == "" {
				text = g // "local"
			}
			if vm.API > 0 {
				text += fmt.Sprintf(" · API %d", vm.API)
			}
			if vm.Model != "" {
				text += " · " + vm.Model // escaped with the rest below; cut first when narrow
			}
			if a := arch[g]; a != "" && len(cols) == len(vmColumns) {
				text += " · " + a // track-app's, the same for every process of the device
			}
			cell(r, 0, fold).SetTextColor(p.env.pal.Accent())
			t.SetCell(r, 3, tview.NewTableCell(""))
			heads = append(heads, headRow{r: r, text: text, count: fmt.Sprintf("%d VM%s", n, plural(n))})
			p.rowKeys = append(p.rowKeys, groupPrefix+g)
			groupRow[g] = r
		}
		if grouped && p.folded[deviceGroup(vm)] {
			continue
		}
		r++
		vmRows = append(vmRows, vmRow{r, vm})
		mark := " "
		if vm.Key == m.sel {
			mark, selRow = "▶", r
		}
		dbg, dbgColor := string(vm.Debugger), tcell.ColorDefault
		switch vm.Debugger {
		case monitor.DebuggerWaiting:
			dbgColor = p.env.pal.Warning()
		case monitor.DebuggerAttached:
			dbgColor = p.env.pal.Accent()
		}
		gone := m.isGone(vm.Key)
		if gone {
			dbg, dbgColor = "gone…", tcell.ColorDefault
		}
		failWhy, failed := m.isFailed(vm.Key)
		if failed {
			dbg, dbgColor = "-", tcell.ColorDefault
		}
		ddmText := "yes"
		switch {
		case vm.ProcessOnly():
			ddmText, dbg = "prof", "-" // profileable, no JDWP: no debugger either
		case !vm.DDM:
			ddmText = "no"
		}
		port, portColor := "-", tcell.ColorDefault
		if failed {
			ddmText = "-"
		} else if vm.DebugPort != 0 {
			port = fmt.Sprint(vm.DebugPort)
		} else if p.env.portError(vm.Key) != "" {
			port, portColor = "busy", p.env.pal.Warning() // the status line says why
		}
		cell(r, 0, mark).SetTextColor(p.env.pal.Accent())
		source := vm.Source
		if grouped && deviceGroup(vm) != "local" {
			source = "" // its device's row names it
		}
		cell(r, 1, style.Escape(source))
		cell(r, 2, pidLabel(vm.PID)).SetAlign(tview.AlignRight)
		cell(r, 3, "").SetExpansion(1) // cut to fit below
		cell(r, 4, ddmText)
		c := 5
		if len(cols) == len(vmColumnsArch) {
			cell(r, c, style.Escape(archLabel(vm)))
			c++
		}
		cell(r, c, dbg).SetTextColor(dbgColor)
		cell(r, c+1, port).SetAlign(tview.AlignRight).SetTextColor(portColor)
		if gone || failed {
			for c := 0; c < len(cols); c++ {
				t.GetCell(r, c).SetAttributes(tcell.AttrDim).SetSelectable(!failed)
			}
		}
		p.rowKeys = append(p.rowKeys, vm.Key)
		if failed {
			failedRows[r] = "failed: " + failWhy
		}
	}
	// The app name takes what the other columns leave.
	others := len(cols) - 1
	for c, w := range p.widths {
		if c != 3 {
			others += w
		}
	}
	appW := max(8, p.width-others)
	for _, vr := range vmRows {
		name := appLabel(vr.vm)
		if why, ok := failedRows[vr.r]; ok {
			name = why
		}
		p.widths[3] = max(p.widths[3], min(tview.TaggedStringWidth(style.Escape(name)), maxAppWidth))
		t.GetCell(vr.r, 3).SetText(style.Escape(truncate(name, appW)))
	}
	// A device's row is drawn across the columns after the fold mark
	// (vmTable.Draw), so its serial, API level and model show whole.
	p.table.heads = heads
	if len(list) == 0 {
		msg := "no VMs yet — looking (" + p.discovery + ")"
		if p.filter != "" {
			msg = "no VM matches the filter"
		}
		t.SetCell(1, 0, tview.NewTableCell("").SetSelectable(false))
		t.SetCell(1, 3, tview.NewTableCell(style.Escape(msg)).SetSelectable(false).SetAttributes(tcell.AttrDim))
		t.SetTitle(" VMs ")
		return
	}
	if groupRow[onGroup] > 0 {
		selRow = groupRow[onGroup]
	}
	if selRow == 0 {
		selRow = 1 // the selected VM is filtered out: the cursor rests on the first row
		if vm, ok := m.selected(); ok && grouped && groupRow[deviceGroup(vm)] > 0 {
			selRow = groupRow[deviceGroup(vm)] // folded away: the cursor rests on its device
		}
	}
	t.Select(selRow, 0)
	title := fmt.Sprintf(" VMs (%d) ", len(list))
	if p.filter != "" {
		title = fmt.Sprintf(" VMs (%d of %d) · filter %s ", len(list), len(m.vms), style.Escape(p.filter))
	}
	if p.debuggableOnly {
		title += "· debuggable only "
	}
	t.SetTitle(title)
}

// contentWidth is the width the list needs to show every column whole
// (borders and column gaps included).
func (p *vmPane) contentWidth() int {
	w := 2 + max(p.ncols, len(vmColumns)) - 1
	for _, c := range p.widths {
		w += c
	}
	return w
}

// CopyText is the selected VM's identity line (the copy key, y).
func (p *vmPane) CopyText() (what, text string) {
	vm, ok := p.env.m.selected()
	if !ok {
		return "", ""
	}
	return "VM " + appLabel(vm), vmIdentity(vm)
}
