package heapview

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// maxListed bounds the objects a list page holds (a class with a million
// instances lists its largest).
const maxListed = 5000

// sortInline is the most instances sorted on the UI goroutine; a class
// with more is sorted in the background.
const sortInline = 2000

// classRows is the classes table: the histogram of the heap selected, in
// the order chosen (sorted once when the dump was loaded), filtered by
// name. Instances and shallow sizes are the reachable objects' (D9's
// reachable_instances and reachable_shallow), so that no row shows less
// retained than shallow; the objects no GC root holds are a column of
// their own.
type classRows struct {
	m     *Model
	hist  *histogram // the heap selection wanted
	laid  *histogram // the one the rows were laid out from (until Update)
	shown []int32
}

func (r *classRows) Columns() []viewer.Column {
	return []viewer.Column{
		{Title: "CLASS", Expand: 1, Sort: "name"},
		{Title: "INSTANCES", Align: tview.AlignRight, Sort: "instances"},
		{Title: "SHALLOW", Align: tview.AlignRight, Sort: "shallow"},
		{Title: "RETAINED", Align: tview.AlignRight, Sort: "retained"},
		{Title: "UNREACHABLE", Align: tview.AlignRight},
	}
}

// classOrder maps the table's sort index to the histogram's orders.
var classOrder = [...]classSort{byRetained, byShallow, byInstances, byName}

func (r *classRows) Update(q viewer.Query) int {
	r.shown = r.shown[:0]
	r.laid = r.hist
	if r.hist == nil {
		return 0
	}
	r.shown = appendOrdered(r.shown, r.hist.orders[classOrder[q.Sort]], q, func(i int32) string { return r.hist.rows[i].Name })
	return len(r.shown)
}

// appendOrdered appends to dst the rows of order (indices into a row
// slice), reversed when q says so, that pass q's filter on their name.
func appendOrdered(dst, order []int32, q viewer.Query, name func(i int32) string) []int32 {
	for k := range order {
		i := order[k]
		if q.Reverse {
			i = order[len(order)-1-k]
		}
		if q.Filter == "" || passes(name(i), q.Filter) {
			dst = append(dst, i)
		}
	}
	return dst
}

func (r *classRows) Cell(i, c int) *tview.TableCell {
	row := &r.laid.rows[r.shown[i]]
	switch c {
	case 0:
		return cell(row.Name)
	case 1:
		return cell(count(row.ReachableInstances))
	case 2:
		return cell(size(row.ReachableShallow))
	case 3:
		return cell(size(row.Retained))
	case 4:
		if n := row.Instances - row.ReachableInstances; n > 0 {
			return cell(count(n) + " · " + size(row.Shallow-row.ReachableShallow))
		}
		return cell("")
	}
	return nil
}

func (r *classRows) Key(i int) string { return r.laid.rows[r.shown[i]].Name }

// openClass lists the selected class's instances in the heap shown.
func (v *View) openClass() {
	if name := v.classes.SelectedKey(); name != "" {
		v.showInstances(name, v.heap)
	}
}

// showInstances pushes the list of a class's instances (in heap, or all
// heaps), the largest retained first. A class with many instances is
// sorted in the background.
func (v *View) showInstances(name, heap string) {
	m := v.m
	show := func(nodes []heapdump.Node, total int) {
		items := make([]nodeItem, len(nodes))
		for i, n := range nodes {
			items[i] = nodeItem{node: n}
		}
		rows := &nodeRows{m: m, items: items, more: total - len(nodes)}
		simple := name
		if i := lastDot(name); i >= 0 {
			simple = name[i+1:]
		}
		title := fmt.Sprintf("%s ×%s (%s)", simple, count(total), heapTitle(heap))
		v.Push(v.table(rows, viewer.TableOptions{Title: title, Scope: "objects", Empty: "no instance in " + heapTitle(heap)}))
	}
	if m.classSize(name) <= sortInline {
		show(m.classInstances(name, heap, maxListed))
		return
	}
	v.Work("sorting "+name, func(_ context.Context, _ func(string)) func() {
		nodes, total := m.classInstances(name, heap, maxListed)
		return func() { show(nodes, total) }
	})
}

// diffRows is the diff tab: the classes that changed between the
// baseline and this dump (D16), in the order chosen.
type diffRows struct {
	m      *Model
	orders [4][]int32
	shown  []int32
}

func (r *diffRows) Columns() []viewer.Column {
	return []viewer.Column{
		{Title: "CLASS", Expand: 1, Sort: "name"},
		{Title: "INSTANCES Δ", Align: tview.AlignRight, Sort: "instances"},
		{Title: "SHALLOW Δ", Align: tview.AlignRight, Sort: "shallow"},
		{Title: "RETAINED Δ", Align: tview.AlignRight, Sort: "retained"},
	}
}

// sortDiff lays the diff out in each order once: [0] is D16's own.
func (r *diffRows) sortDiff() {
	rows := r.m.diff
	keys := [4]func(a, b *heapdump.DiffRow) int{
		func(a, b *heapdump.DiffRow) int { return 0 }, // D16 order as given
		func(a, b *heapdump.DiffRow) int {
			return cmp.Or(cmp.Compare(b.InstancesDelta, a.InstancesDelta), strings.Compare(a.Name, b.Name))
		},
		func(a, b *heapdump.DiffRow) int {
			return cmp.Or(cmp.Compare(b.RetainedDelta, a.RetainedDelta), strings.Compare(a.Name, b.Name))
		},
		func(a, b *heapdump.DiffRow) int { return strings.Compare(a.Name, b.Name) },
	}
	for s, key := range keys {
		idx := make([]int32, len(rows))
		for i := range idx {
			idx[i] = int32(i)
		}
		slices.SortStableFunc(idx, func(a, b int32) int { return key(&rows[a], &rows[b]) })
		r.orders[s] = idx
	}
}

func (r *diffRows) Update(q viewer.Query) int {
	if r.orders[0] == nil {
		r.sortDiff()
	}
	r.shown = r.shown[:0]
	r.shown = appendOrdered(r.shown, r.orders[q.Sort], q, func(i int32) string { return r.m.diff[i].Name })
	return len(r.shown)
}

func (r *diffRows) Cell(i, c int) *tview.TableCell {
	row := &r.m.diff[r.shown[i]]
	switch c {
	case 0:
		return cell(row.Name)
	case 1:
		return cell(signed(row.InstancesDelta, false))
	case 2:
		return cell(signed(row.ShallowDelta, true))
	case 3:
		return cell(signed(row.RetainedDelta, true))
	}
	return nil
}

func (r *diffRows) Key(i int) string { return r.m.diff[r.shown[i]].Name }

// openDiffClass lists the selected class's instances in the newer dump.
func (v *View) openDiffClass() {
	if name := v.diff.SelectedKey(); name != "" {
		v.showInstances(name, allHeaps)
	}
}
