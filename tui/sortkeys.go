package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/keymap"
)

// Per-column sort keys: while the VM list or the thread table has the
// focus, the digit keys sort it by their column (pressed again: the other
// way), as `:sort COLUMN` does for the focused table. The VM list sorts
// within each device, its devices staying where they are.

// Scopes of the sort keys.
const (
	ThreadsScope = "threads pane"
	VMListScope  = "VM list"
)

// vmSortColumns are the VM list's sortable columns, by digit key.
var vmSortColumns = []string{"source", "pid", "app", "ddm", "debugger", "port"}

// listSort is the VM list's order: col indexes vmSortColumns (-1: found
// order, by source and pid).
type listSort struct {
	col  int
	desc bool
}

// sortKeys are the digit keys of both tables. Help shows them in rows of
// four, each naming its columns.
func (d *Dashboard) sortKeys() []keymap.Binding {
	const g = "Sort the focused table (again: reverse)"
	var out []keymap.Binding
	add := func(scope, what string, cols []string, i int, run func()) {
		b := keymap.Binding{Key: tcell.KeyRune, Rune: rune('1' + i), Group: g, Action: run}
		if i%4 == 0 {
			end := min(i+4, len(cols))
			var keys []string
			for k := i; k < end; k++ {
				keys = append(keys, string(rune('1'+k)))
			}
			b.Label = strings.Join(keys, " ")
			b.Help = what + ": by " + strings.Join(cols[i:end], " · ")
		} else {
			b.Hidden = true
		}
		out = append(out, b.As("sort-"+scopeWord(scope)+"-"+columnWord(cols[i])).In(scope))
	}
	var tcols []string
	for _, c := range threadColumns {
		tcols = append(tcols, c.name)
	}
	for i := range tcols {
		i := i
		add(ThreadsScope, "threads", tcols, i, func() { d.threadsP.sortColumn(i) })
	}
	for i := range vmSortColumns {
		i := i
		add(VMListScope, "VM list", vmSortColumns, i, func() { d.vmsP.sortColumn(i) })
	}
	return out
}

func scopeWord(scope string) string {
	if scope == ThreadsScope {
		return "threads"
	}
	return "vms"
}

// columnWord is a column's name as typed: "CPU%" → "cpu".
func columnWord(name string) string {
	return strings.ToLower(strings.TrimSuffix(name, "%"))
}

// focusScope is the scope of the focused table's sort keys ("" for none).
func (d *Dashboard) focusScope() string {
	switch d.focus {
	case paneThreads:
		return ThreadsScope
	case paneVMs:
		return VMListScope
	}
	return ""
}

// sortColumns are the column words of the focused table (`:sort`).
func (d *Dashboard) sortColumns() []string {
	if d.focus == paneVMs {
		return vmSortColumns
	}
	out := make([]string, len(threadColumns))
	for i, c := range threadColumns {
		out[i] = columnWord(c.name)
	}
	return out
}

// sortBy sorts the focused table (the threads unless the VM list has the
// focus) by the column named col (`:sort cpu`).
func (d *Dashboard) sortBy(col string) {
	col = strings.ToLower(col)
	for i, c := range d.sortColumns() {
		if c == col {
			if d.focus == paneVMs {
				d.vmsP.sortColumn(i)
			} else {
				d.threadsP.sortColumn(i)
			}
			return
		}
	}
	d.flash(fmt.Sprintf("sort: no column %q here (%s)", col, strings.Join(d.sortColumns(), ", ")))
}

// sortColumn sorts the threads by column c, or the other way when they are
// already sorted by it.
func (p *threadPane) sortColumn(c int) {
	if c == p.sortCol {
		p.reverseSort()
		return
	}
	p.sortCol, p.reverse = c, false
	p.resorted()
}

// sortColumn sorts each device's VMs by column c, or the other way when
// they are already sorted by it.
func (p *vmPane) sortColumn(c int) {
	if p.order.col == c {
		p.order.desc = !p.order.desc
	} else {
		p.order = listSort{col: c}
	}
	p.render()
	p.env.nav.fitVMPane()
}

// sortVMs orders list (in found order) by p.order, keeping each device's
// VMs together where the device first comes.
func (p *vmPane) sortVMs(list []monitor.VM) {
	if p.order.col < 0 {
		return
	}
	rank := map[string]int{}
	for _, vm := range list {
		if _, ok := rank[deviceGroup(vm)]; !ok {
			rank[deviceGroup(vm)] = len(rank)
		}
	}
	key := func(vm monitor.VM) string {
		switch vmSortColumns[p.order.col] {
		case "source":
			return vm.Source
		case "app":
			return strings.ToLower(appLabel(vm))
		case "ddm":
			return fmt.Sprint(vm.DDM)
		case "debugger":
			return string(vm.Debugger)
		case "port":
			return fmt.Sprintf("%08d", vm.DebugPort)
		}
		return fmt.Sprintf("%012d", vm.PID)
	}
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if ra, rb := rank[deviceGroup(a)], rank[deviceGroup(b)]; ra != rb {
			return ra < rb
		}
		ka, kb := key(a), key(b)
		if ka == kb {
			return false
		}
		return (ka < kb) != p.order.desc
	})
}

// sortMark is the arrow after the header of the column the list is sorted
// by ("" for the others, and in found order).
func (p *vmPane) sortMark(header string) string {
	if p.order.col < 0 || !strings.EqualFold(header, vmSortColumns[p.order.col]) {
		return ""
	}
	if p.order.desc {
		return "▼"
	}
	return "▲"
}
