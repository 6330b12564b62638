package heapview

import (
	"fmt"
	"strconv"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// maxElements bounds the array elements and referrers an object page lists.
const maxElements = 1000

// objectItem is one row of an object page: a heading (its summary, the
// section titles), a field or array element, or a referrer.
type objectItem struct {
	heading string
	name    string // field name, "[i]", or (referrer) the field holding the object
	typ     string
	value   string
	ref     heapdump.Node // the object named, -1 for none
}

// objectRows is an object page: a summary, its fields (or elements), then
// its referrers; Enter opens the object a row names.
type objectRows struct {
	m     *Model
	node  heapdump.Node // the object shown
	items []objectItem
	shown []int
}

// newObjectRows lays out node n's page.
func newObjectRows(m *Model, n heapdump.Node) *objectRows {
	h := m.Heap
	r := &objectRows{m: m, node: n}
	head := func(s string) { r.items = append(r.items, objectItem{heading: s, ref: -1}) }
	kv := func(name, value string) { r.items = append(r.items, objectItem{name: name, value: value, ref: -1}) }
	kv("object", label(h, n))
	kv("shallow", size(h.Shallow(n)))
	if h.Reachable(n) {
		kv("retained", size(h.Retained(n)))
		kv("depth", strconv.Itoa(h.Paths().Depth(n))+" (p: the path from its GC root)")
	} else {
		kv("retained", "unreachable: no strong path from a GC root")
	}
	kv("heap", h.HeapName(n))
	if d, ok := h.Dominator(n); ok && d != heapdump.SuperRoot {
		r.items = append(r.items, objectItem{name: "dominator", value: label(h, d), ref: d})
	} else if ok {
		kv("dominator", "none: a GC root or a class object")
	}
	if length, ok := h.ArrayLength(n); ok {
		els := h.ArrayElements(n, 0, maxElements)
		head(fmt.Sprintf("Elements (%s)", count(length)))
		for _, f := range els {
			r.items = append(r.items, r.field(f))
		}
		if length > len(els) && len(els) > 0 {
			head(fmt.Sprintf("… %s more elements", count(length-len(els))))
		}
	} else {
		fs := h.Fields(n)
		title := "Fields"
		if h.ClassObjectName(n) != "" {
			title = "Static fields"
		}
		head(fmt.Sprintf("%s (%d)", title, len(fs)))
		seen := map[string]int{}
		for _, f := range fs {
			seen[f.Name]++
		}
		for _, f := range fs {
			it := r.field(f)
			if seen[f.Name] > 1 { // a name declared again up the chain
				d := f.Declarer
				if i := lastDot(d); i >= 0 {
					d = d[i+1:]
				}
				it.name += " (" + d + ")"
			}
			r.items = append(r.items, it)
		}
	}
	refs := h.Referrers(n)
	head(fmt.Sprintf("Referrers (%s)", count(len(refs))))
	for i, x := range refs {
		if i == maxElements {
			head(fmt.Sprintf("… %s more referrers", count(len(refs)-i)))
			break
		}
		r.items = append(r.items, objectItem{name: "← " + h.Paths().RefName(x, n), value: label(h, x), ref: x})
	}
	return r
}

// field is the row of a field or element.
func (r *objectRows) field(f heapdump.Field) objectItem {
	it := objectItem{name: f.Name, typ: f.Type, value: f.Value(), ref: f.Ref}
	if f.Static {
		it.name = "static " + f.Name
	}
	if f.Ref >= 0 {
		it.value = label(r.m.Heap, f.Ref)
		if f.Type == "object" && !f.Strong {
			it.value += "  (weak: Reference.referent)"
		}
	}
	return it
}

func (r *objectRows) Columns() []viewer.Column {
	return []viewer.Column{
		{Title: "FIELD", MaxWidth: 40},
		{Title: "TYPE"},
		{Title: "VALUE", Expand: 1},
		{Title: "RETAINED", Align: tview.AlignRight},
	}
}

func (r *objectRows) Update(q viewer.Query) int {
	r.shown = r.shown[:0]
	for i, it := range r.items {
		if it.heading != "" || q.Filter == "" || passes(it.name+" "+it.value, q.Filter) {
			r.shown = append(r.shown, i)
		}
	}
	return len(r.shown)
}

func (r *objectRows) Cell(i, c int) *tview.TableCell {
	it := r.items[r.shown[i]]
	if it.heading != "" {
		if c == 0 {
			return cell(it.heading).SetAttributes(tcell.AttrBold)
		}
		return nil
	}
	switch c {
	case 0:
		return cell(it.name)
	case 1:
		return cell(it.typ)
	case 2:
		return cell(it.value)
	case 3:
		if it.ref >= 0 && r.m.Heap.Reachable(it.ref) {
			return cell(size(r.m.Heap.Retained(it.ref)))
		}
	}
	return nil
}

func (r *objectRows) Key(i int) string {
	if r.items[r.shown[i]].heading != "" {
		return ""
	}
	return strconv.Itoa(r.shown[i])
}

// selected is the object row i names (-1 for none).
func (r *objectRows) selected(i int) heapdump.Node {
	if i < 0 || i >= len(r.shown) {
		return -1
	}
	return r.items[r.shown[i]].ref
}

// openObject pushes node n's page.
func (v *View) openObject(n heapdump.Node) {
	if n < 0 || v.m == nil {
		return
	}
	rows := newObjectRows(v.m, n)
	t := v.table(rows, viewer.TableOptions{Title: shortLabel(v.m.Heap, n), Scope: "object"})
	v.Push(t)
}

// openPath pushes the shortest path from a GC root to node n.
func (v *View) openPath(n heapdump.Node) {
	if n < 0 || v.m == nil {
		return
	}
	h := v.m.Heap
	path := h.Paths().ToRoot(n)
	if path == nil {
		v.Push(viewer.NewMessage("Path to "+shortLabel(h, n), label(h, n)+" is unreachable: no strong path from a GC root holds it (only weak or soft references, or nothing)."))
		return
	}
	v.Push(v.table(pathRows(v.m, path, -1, v.opt.Palette.Warning()), viewer.TableOptions{
		Title: "Path to " + shortLabel(h, n), Scope: "objects"}))
}

// pathRows lists a path root first; blame >= 0 marks that hop.
func pathRows(m *Model, path []heapdump.PathStep, blame int, warn tcell.Color) *nodeRows {
	items := make([]nodeItem, len(path))
	for i, st := range path {
		items[i] = nodeItem{node: st.Node, via: st.Field}
		if st.Omitted > 0 {
			items[i].via = fmt.Sprintf("%s (after %d objects left out)", st.Field, st.Omitted)
		}
		if i == 0 {
			items[i].via = heapdump.RootLabel(m.Heap.RootKind(st.Node)) // a class object's row says "class X"
		}
		if i == blame {
			items[i].mark = "◀ likely cause"
		}
	}
	return &nodeRows{m: m, items: items, viaTitle: "HELD BY", marks: blame >= 0, warn: warn}
}

// shortLabel names a node for a tab title: its simple class name and id.
func shortLabel(h *heapdump.Heap, n heapdump.Node) string {
	name, prefix := h.ClassName(n), ""
	if of := h.ClassObjectName(n); of != "" {
		name, prefix = of, "class "
	}
	if i := lastDot(name); i >= 0 {
		name = name[i+1:]
	}
	return prefix + name + "@" + heapdump.HexID(h.ID(n))
}

func lastDot(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '.' {
			return i
		}
	}
	return -1
}
