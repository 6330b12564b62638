package viewsview

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/internal/textfilter"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/viewtree"
)

// relist computes the rows listed: every view not inside a collapsed one;
// with a filter, the views that match and their parents (collapsing is
// ignored while filtering, so no match hides).
func (v *View) relist() {
	v.rows = v.rows[:0]
	t := v.t
	if t == nil {
		return
	}
	if v.filter == "" {
		if len(v.closed) == 0 {
			for i := range t.Nodes {
				v.rows = append(v.rows, int32(i))
			}
			return
		}
		for i := 0; i < len(t.Nodes); {
			v.rows = append(v.rows, int32(i))
			if v.closed[t.Nodes[i].Name()] {
				i = t.Subtree(i)
			} else {
				i++
			}
		}
		return
	}
	keep := make([]bool, len(t.Nodes))
	for i := range t.Nodes {
		keep[i] = v.matches(i)
	}
	for i := len(t.Nodes) - 1; i > 0; i-- {
		if keep[i] {
			keep[t.Nodes[i].Parent] = true
		}
	}
	for i, k := range keep {
		if k {
			v.rows = append(v.rows, int32(i))
		}
	}
}

// matches reports whether node i passes the filter: its class, id, text or
// hash contains it (case-insensitive), or with a leading '!' does not.
func (v *View) matches(i int) bool {
	n := &v.t.Nodes[i]
	return textfilter.Match(v.filter, n.Class, n.ID, n.Text, n.HashString())
}

// reveal selects node i, opening its collapsed parents.
func (v *View) reveal(i int) {
	opened := false
	for p := v.t.Nodes[i].Parent; p >= 0; p = v.t.Nodes[p].Parent {
		if name := v.t.Nodes[p].Name(); v.closed[name] {
			delete(v.closed, name)
			opened = true
		}
	}
	if opened {
		v.relist()
	}
	for r, n := range v.rows {
		if int(n) == i {
			v.sel = r
			return
		}
	}
}

func (v *View) move(d int) {
	if len(v.rows) == 0 {
		return
	}
	v.sel = max(0, min(len(v.rows)-1, v.sel+d))
	v.profile, v.profileOf = nil, ""
	v.update()
}

func (v *View) pageSize() int {
	_, _, _, h := v.tree.GetInnerRect()
	return max(1, h-1)
}

func (v *View) toggle() {
	i := v.selected()
	if i < 0 || len(v.t.Children(i)) == 0 {
		return
	}
	name := v.t.Nodes[i].Name()
	if v.closed[name] {
		delete(v.closed, name)
	} else {
		v.closed[name] = true
	}
	v.relist()
	v.reveal(i)
	v.update()
}

// setAll collapses (or expands) every view with children but the root.
func (v *View) setAll(collapse bool) {
	if v.t == nil {
		return
	}
	i := v.selected()
	clear(v.closed)
	if collapse {
		for j := 1; j < len(v.t.Nodes); j++ {
			if len(v.t.Children(j)) > 0 {
				v.closed[v.t.Nodes[j].Name()] = true
			}
		}
		for i > 0 && v.t.Nodes[i].Depth > 1 {
			i = int(v.t.Nodes[i].Parent)
		}
	}
	v.relist()
	if i >= 0 {
		v.reveal(i)
	}
	v.update()
}

// RowText is how the tree lists a view: a fold mark, the class's short
// name, the id and the text (escaped for the terminal by the caller).
func RowText(t *viewtree.Tree, i int, closed bool) string {
	n := &t.Nodes[i]
	mark := "  "
	if len(t.Children(i)) > 0 {
		mark = "▾ "
		if closed {
			mark = "▸ "
		}
	}
	cls := viewtree.SimpleClass(n.Class)
	var b strings.Builder
	b.WriteString(mark + cls)
	if n.ID != "" {
		b.WriteString(" " + strings.TrimPrefix(n.ID, "id/"))
	}
	if n.HasText {
		txt := strings.ReplaceAll(n.Text, "\n", "⏎")
		if len(txt) > 40 {
			txt = txt[:40] + "…"
		}
		b.WriteString(" " + strconv.Quote(txt))
	}
	switch n.Visibility {
	case viewtree.Gone:
		b.WriteString(" (gone)")
	case viewtree.Invisible:
		b.WriteString(" (invisible)")
	}
	return b.String()
}

// treeBox draws the listed rows straight to the screen (only those shown).
type treeBox struct {
	*tview.Box
	v *View
}

func (b *treeBox) Draw(s tcell.Screen) {
	b.Box.DrawForSubclass(s, b)
	v := b.v
	x, y, w, h := b.GetInnerRect()
	if v.t == nil {
		msg := v.treeErr
		if msg == "" {
			msg = "no dump yet (R dumps the window)"
		}
		tview.Print(s, style.Escape(msg), x, y, w, tview.AlignLeft, tcell.ColorDefault)
		return
	}
	if v.sel < v.top {
		v.top = v.sel
	}
	if v.sel >= v.top+h {
		v.top = v.sel - h + 1
	}
	v.top = max(0, min(v.top, len(v.rows)-h))
	dim := tcell.ColorGray
	if v.opt.Palette.NoColor {
		dim = tcell.ColorDefault
	}
	for r := 0; r < h && v.top+r < len(v.rows); r++ {
		i := int(v.rows[v.top+r])
		n := &v.t.Nodes[i]
		indent := min(int(n.Depth)*2, w/2)
		text := strings.Repeat(" ", indent) + RowText(v.t, i, v.closed[n.Name()])
		col := tcell.ColorDefault
		if v.t.Effective(i) != viewtree.Visible {
			col = dim
		}
		tview.Print(s, style.Escape(text), x, y+r, w, tview.AlignLeft, col)
		if v.top+r == v.sel {
			st := v.opt.Palette.Cursor()
			for cx := x; cx < x+w; {
				str, _, width := s.Get(cx, y+r)
				if str == "" {
					str = " "
				}
				s.Put(cx, y+r, str, st)
				cx += max(width, 1)
			}
		}
	}
}

// picBox draws the wireframe or the capture.
type picBox struct {
	*tview.Box
	v *View
}

func (b *picBox) Draw(s tcell.Screen) {
	b.Box.DrawForSubclass(s, b)
	v := b.v
	x, y, w, h := b.GetInnerRect()
	if v.showCapture && v.capture != nil {
		img := v.capture.Image()
		switch {
		case img == nil:
			for i, l := range tview.WordWrap("let go to make room (memory budget): c captures again", max(w, 1)) {
				tview.Print(s, l, x, y+i, w, tview.AlignLeft, tcell.ColorDefault)
			}
		case w < minPictureW || h < minPictureH:
			tview.Print(s, "too small for the capture (s saves it)", x, y, w, tview.AlignLeft, tcell.ColorDefault)
		default:
			Picture(img, w, h, v.opt.Palette).Draw(s, x, y)
		}
		return
	}
	Wireframe(v.t, v.selected(), w, h, v.opt.Palette).Draw(s, x, y)
}

// propsText is the selected view's summary and its properties by
// category (escaped), with its subtree's profile when taken.
func (v *View) propsText() string {
	i := v.selected()
	if i < 0 {
		return ""
	}
	t := v.t
	n := &t.Nodes[i]
	var b strings.Builder
	esc := style.Escape
	fmt.Fprintf(&b, "[::b]%s[::-]\n", esc(n.Name()))
	id := n.ID
	if id == "" {
		id = "NO_ID"
	}
	fmt.Fprintf(&b, "id %s  %s  alpha %g\n", esc(id), n.Visibility, n.Alpha)
	fmt.Fprintf(&b, "bounds %d,%d %dx%d in parent; %d,%d on screen\n", n.Left, n.Top, n.Width, n.Height, n.ScreenLeft, n.ScreenTop)
	fmt.Fprintf(&b, "padding %d %d %d %d\n", n.Padding[0], n.Padding[1], n.Padding[2], n.Padding[3])
	if n.HasText {
		fmt.Fprintf(&b, "text %s\n", esc(strconv.Quote(n.Text)))
	}
	if v.profileOf == n.Name() && len(v.profile) > 0 {
		b.WriteString("\n[::b]profile[::-] (ms: measure layout draw)\n")
		end := t.Subtree(i)
		for k, tm := range v.profile {
			label := "?"
			if i+k < end {
				label = strings.Repeat(" ", int(t.Nodes[i+k].Depth-n.Depth)) + RowText(t, i+k, false)
			}
			fmt.Fprintf(&b, "  %s %s %s  %s\n", ms(tm.Measure), ms(tm.Layout), ms(tm.Draw), esc(label))
		}
	}
	props := t.Properties(i)
	cats := map[string][]viewtree.Property{}
	for _, p := range props {
		c := viewtree.Category(t.Name(p))
		cats[c] = append(cats[c], p)
	}
	names := make([]string, 0, len(cats))
	for c := range cats {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		fmt.Fprintf(&b, "\n[::b]%s[::-]\n", esc(c))
		for _, p := range cats[c] {
			fmt.Fprintf(&b, "  %s = %s\n", esc(viewtree.Short(t.Name(p))), esc(t.Value(p)))
		}
	}
	return b.String()
}

func ms(ns int64) string {
	if ns < 0 {
		return "timeout"
	}
	return strconv.FormatFloat(float64(ns)/1e6, 'f', 3, 64)
}
