package viewer

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/tui/style"
)

// Exact answers at the frame's edges: no tab yet, tab bounds, the tab keys
// (bound only with two tabs or more, 1 … 9, wrapping), the default filter
// help, copy only when the view copies.
func TestFrameEdges(t *testing.T) {
	f := NewFrame(FrameOptions{})
	if f.Current() != nil || f.Depth() != 0 || f.Stack() != nil || f.Pop() {
		t.Fatal("a frame without tabs has a page")
	}
	if !strings.Contains(f.Keys().HelpText(), "filter the rows (!text excludes)") {
		t.Fatal("default filter help missing")
	}
	if strings.Contains(f.Keys().HelpText(), "copy") {
		t.Fatal("y bound without a Copy function")
	}
	var tabs []*Text
	for i := range 9 {
		p := NewText("tab"+string(rune('1'+i)), "")
		tabs = append(tabs, p)
		if got := f.AddTab(p); got != i {
			t.Fatalf("AddTab returned %d, want %d", got, i)
		}
		if i == 0 {
			f.AddKeys() // a rebuild with one tab
		}
		if i == 0 && strings.Contains(f.Keys().HelpText(), "next / previous tab") {
			t.Fatal("tab keys bound with one tab")
		}
	}
	key := func(k tcell.Key, r rune) { f.InputHandler()(tcell.NewEventKey(k, r, 0), func(tview.Primitive) {}) }
	key(tcell.KeyRune, '9')
	if f.Tab() != 8 || f.Current() != Page(tabs[8]) {
		t.Fatalf("9 showed tab %d", f.Tab())
	}
	key(tcell.KeyCtrlN, 0)
	if f.Tab() != 0 {
		t.Fatalf("Ctrl-N from the last tab: %d, want 0", f.Tab())
	}
	key(tcell.KeyCtrlP, 0)
	if f.Tab() != 8 {
		t.Fatalf("Ctrl-P from the first tab: %d, want 8", f.Tab())
	}
	key(tcell.KeyCtrlP, 0)
	if f.Tab() != 7 {
		t.Fatalf("Ctrl-P: %d, want 7", f.Tab())
	}
	f.SelectTab(9)
	f.SelectTab(-1)
	if f.Tab() != 7 {
		t.Fatalf("out-of-range SelectTab moved to %d", f.Tab())
	}
	f.ToggleHelp()
	f.SelectTab(1)
	if f.Tab() != 7 {
		t.Fatal("SelectTab acted behind the help")
	}
	f.ToggleHelp()
	root := NewText("new root", "")
	f.Register(root)
	f.Register(NewText("registered after it", ""))
	f.SetRoot(7, root)
	if front, _ := f.body.GetFrontPage(); f.Current() != Page(root) || front != f.names[root] || f.body.HasPage(f.names[tabs[7]]) {
		t.Fatal("SetRoot on the tab shown did not show the new root, or kept the old one")
	}
	tabs[7] = root
	f.SetRoot(9, NewText("x", ""))
	f.SetRoot(-1, NewText("x", ""))
	if f.Current() != Page(tabs[7]) {
		t.Fatal("an out-of-range SetRoot changed the page")
	}
	if got := escapeLines("a[b\n\nc\x1b"); got != "a[[:]b\n\nc\\x1b" {
		t.Fatalf("escapeLines = %q", got)
	}

	copied := NewFrame(FrameOptions{Copy: func() (string, string) { return "the fruit", "line 1\nline\x07 2" }})
	copied.AddTab(NewText("t", ""))
	if !strings.Contains(copied.Keys().HelpText(), "copy the selection to the clipboard (OSC 52)") {
		t.Fatal("default copy help missing")
	}
	copied.InputHandler()(tcell.NewEventKey(tcell.KeyRune, 'y', 0), func(tview.Primitive) {})
	if !strings.Contains(copied.footer.status.GetText(true), "copy") {
		t.Fatalf("footer after y: %q", copied.footer.status.GetText(true))
	}
}

// The tab bar marks the tab shown in reverse video, and only that one.
func TestTabBarMarksCurrent(t *testing.T) {
	hs := newHarness(t, 60, 6, FrameOptions{})
	hs.f.AddTab(NewText("One", ""))
	hs.f.AddTab(NewText("Two", ""))
	hs.keys("2")
	hs.draw()
	cells, w, _ := hs.screen.GetContents()
	reversed := func(label string) bool {
		x := strings.Index(hs.draw()[1], label)
		_, _, attr := cells[w+x].Style.Decompose()
		return attr&tcell.AttrReverse != 0
	}
	if !reversed("Two") || reversed("One") {
		t.Fatalf("tab bar %q: the current tab must be the reversed one", hs.draw()[1])
	}
}

// keyedRows: rows whose key is "" are headings.
type keyedRows []string

func (r keyedRows) Columns() []Column { return []Column{{Title: "ROW"}} }
func (r keyedRows) Update(Query) int  { return len(r) }
func (r keyedRows) Key(i int) string  { return r[i] }
func (r keyedRows) Cell(i, c int) *tview.TableCell {
	if r[i] == "" {
		return tview.NewTableCell("--")
	}
	return tview.NewTableCell(r[i])
}

// Moving skips headings in the direction of travel, falls back when only
// headings lie ahead, and a table of headings has no selection.
func TestTableMoveOverHeadings(t *testing.T) {
	tbl := NewTable(keyedRows{"", "a", "", "", "b", ""}, TableOptions{})
	if tbl.SelectedKey() != "a" {
		t.Fatalf("first selection %q", tbl.SelectedKey())
	}
	tbl.Move(1)
	if tbl.SelectedKey() != "b" {
		t.Fatalf("down over two headings: %q", tbl.SelectedKey())
	}
	tbl.Move(1)
	if tbl.SelectedKey() != "b" {
		t.Fatalf("down onto the last heading: %q", tbl.SelectedKey())
	}
	tbl.Move(-1)
	if tbl.SelectedKey() != "a" {
		t.Fatalf("up over two headings: %q", tbl.SelectedKey())
	}
	tbl.Move(-1)
	if tbl.SelectedKey() != "a" {
		t.Fatalf("up onto the first heading: %q", tbl.SelectedKey())
	}
	tbl.Move(1 << 30)
	if tbl.SelectedKey() != "b" {
		t.Fatalf("to the end: %q", tbl.SelectedKey())
	}
	tbl.Select(-1)
	tbl.Select(tbl.Len())
	if tbl.SelectedKey() != "b" || tbl.SelectKey("nope") {
		t.Fatalf("out-of-range selections moved to %q", tbl.SelectedKey())
	}
	sorted := NewTable(fruits(), TableOptions{Sorts: fruitSorts})
	sorted.SetSort(1)
	sorted.SetSort(len(fruitSorts))
	if sorted.Query().Sort != 1 || sorted.SortName() != "name" {
		t.Fatalf("SetSort past the sorts changed the order: %+v", sorted.Query())
	}
	tbl.SetSort(0)
	tbl.SetSort(-1)
	if tbl.Query().Sort != 0 || tbl.SortName() != "" {
		t.Fatalf("SetSort without Sorts: %+v %q", tbl.Query(), tbl.SortName())
	}
	first := NewTable(keyedRows{"a", "", "b"}, TableOptions{})
	first.Select(2)
	first.Move(-1)
	if first.SelectedKey() != "a" {
		t.Fatalf("up over a heading onto row 0: %q", first.SelectedKey())
	}
	none := NewTable(keyedRows{"", ""}, TableOptions{})
	none.Move(1)
	if none.Selected() != -1 || none.SelectedKey() != "" {
		t.Fatalf("a table of headings selected %d %q", none.Selected(), none.SelectedKey())
	}
}

// Column widths: MaxWidth cuts (tview ends the cut text with …), Expand
// stretches; the empty line sits
// under the titles; a table without sorts binds no r, one without a detail
// pane no Tab.
func TestTableLayoutAndKeys(t *testing.T) {
	hs := newHarness(t, 60, 8, FrameOptions{})
	rows := &widthRows{}
	hs.f.AddTab(NewTable(rows, TableOptions{Title: "w", Empty: "nothing here"}))
	lines := hs.draw()
	if got := lines[1]; !strings.HasPrefix(got, "NAME ") || strings.LastIndex(got, " N") < 50 {
		t.Fatalf("titles %q: NAME stretched, N at the right edge", got)
	}
	if lines[3] != " nothing here" {
		t.Fatalf("empty line %q at row 3:\n%s", lines[3], strings.Join(lines, "\n"))
	}
	short := newHarness(t, 40, 5, FrameOptions{}) // a table 3 rows high
	short.f.AddTab(NewTable(&widthRows{}, TableOptions{Empty: "why"}))
	if got := short.draw()[3]; got != " why" {
		t.Fatalf("3 rows high: empty line %q", got)
	}
	rows.n = 1
	hs.f.Current().(*Table).Refresh()
	if got := strings.Fields(hs.draw()[2]); len(got) != 3 || !strings.HasPrefix(got[1], "abcd") || len([]rune(got[1])) != 5 {
		t.Fatalf("row %q: the description cut at 5", got)
	}
	help := hs.f.Keys().HelpText()
	if strings.Contains(help, "reverse the order") || strings.Contains(help, "Tab") {
		t.Fatalf("a table without sorts or detail binds r or Tab:\n%s", help)
	}
}

type widthRows struct{ n int }

func (r *widthRows) Columns() []Column {
	return []Column{{Title: "NAME", Expand: 1}, {Title: "DESC", MaxWidth: 5}, {Title: "N", Align: tview.AlignRight}}
}
func (r *widthRows) Update(Query) int { return r.n }
func (r *widthRows) Key(int) string   { return "k" }
func (r *widthRows) Cell(_, c int) *tview.TableCell {
	switch c {
	case 0:
		return tview.NewTableCell("x")
	case 1:
		return tview.NewTableCell("abcdefghij")
	}
	return tview.NewTableCell("7")
}

// The detail pane: beside the rows from SideBySide (110 by default), under
// them below it; Tab gives it the movement keys and the accent border.
func TestTableDetailPane(t *testing.T) {
	pal := style.Palette{}
	for _, tc := range []struct {
		w      int
		beside bool
	}{{110, true}, {109, false}} {
		hs := newHarness(t, tc.w, 20, FrameOptions{Palette: pal})
		tbl := NewTable(fruits(), TableOptions{Title: "Fruits"})
		detail := tview.NewTextView().SetText("l0\nl1\nl2\nl3")
		tbl.SetDetail(detail)
		hs.f.AddTab(tbl)
		hs.draw()
		tx, ty, _, _ := tbl.Widget().GetRect()
		dx, dy, _, _ := detail.GetRect()
		if beside := dy == ty && dx > tx; beside != tc.beside {
			t.Fatalf("width %d: detail at %d,%d, table at %d,%d", tc.w, dx, dy, tx, ty)
		}
		if tbl.Widget().GetBorderColor() != pal.Accent() || detail.GetBorderColor() == pal.Accent() {
			t.Fatal("the rows' border is not the active one")
		}
		hs.key(tcell.KeyTab, 0)
		hs.keys("j")
		if row, _ := detail.GetScrollOffset(); row != 1 || tbl.SelectedKey() != "banana" || !tbl.DetailFocus() {
			t.Fatalf("Tab then j: detail at %d, selected %q", row, tbl.SelectedKey())
		}
		if detail.GetBorderColor() != pal.Accent() {
			t.Fatal("the detail's border is not highlighted")
		}
		if !strings.Contains(hs.f.Keys().HelpText(), "switch the movement keys between the table and the detail pane") {
			t.Fatal("Tab's default help missing")
		}
	}
}

// A Clip column too wide for the table is cut at the edge, ending with …,
// where another column is left out; too little room (under minClip) and
// it is left out too. An empty table with a detail pane under it keeps
// room for the line that says why.
func TestClipColumnAndEmptyOverDetail(t *testing.T) {
	for _, tc := range []struct {
		clip bool
		w    int
		want string // row 2: the first row
	}{
		{false, 30, "x"},
		{true, 30, "x abcdefghijklmnopqrstuvwxyz0…"}, // 28 left after "x "
		{true, 10, "x abcdefg…"},                     // 8 left: minClip
		{true, 9, "x"},
	} {
		hs := newHarness(t, tc.w, 8, FrameOptions{})
		rows := &clipRows{clip: tc.clip}
		hs.f.AddTab(NewTable(rows, TableOptions{}))
		if got := hs.draw()[2]; got != tc.want {
			t.Errorf("clip %v, width %d: row %q, want %q", tc.clip, tc.w, got, tc.want)
		}
	}
	hs := newHarness(t, 60, 20, FrameOptions{})
	tbl := NewTable(&widthRows{}, TableOptions{Empty: "nothing yet"})
	tbl.Widget().SetBorder(true)
	tbl.SetDetail(tview.NewTextView())
	hs.f.AddTab(tbl)
	if got := hs.draw()[4]; got != "│ nothing yet                                              │" {
		t.Errorf("empty over a detail pane: row 4 %q", got)
	}
}

type clipRows struct{ clip bool }

func (r *clipRows) Columns() []Column {
	return []Column{{Title: "N"}, {Title: "TEXT", Clip: r.clip}}
}
func (r *clipRows) Update(Query) int { return 1 }
func (r *clipRows) Key(int) string   { return "k" }
func (r *clipRows) Cell(_, c int) *tview.TableCell {
	if c == 0 {
		return tview.NewTableCell("x")
	}
	return tview.NewTableCell("abcdefghijklmnopqrstuvwxyz0123456789")
}
