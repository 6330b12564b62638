package viewer

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// fruit rows: a heading row first, then the fruits filtered and sorted.
type fruit struct {
	name  string
	count int
}

type fruitRows struct {
	all     []fruit
	rows    []int // -1: the heading
	updates int
}

var fruitSorts = []Sort{
	{Key: 'c', Name: "count", Help: "sort by count"},
	{Key: 'n', Name: "name", Help: "sort by name"},
}

func (r *fruitRows) Columns() []Column {
	return []Column{{Title: "NAME", Sort: "name", Expand: 1}, {Title: "COUNT", Align: tview.AlignRight, Sort: "count"}}
}

func (r *fruitRows) Update(q Query) int {
	r.updates++
	var body []int
	for i, f := range r.all {
		if strings.Contains(f.name, q.Filter) {
			body = append(body, i)
		}
	}
	slices.SortStableFunc(body, func(a, b int) int {
		c := cmp.Compare(r.all[b].count, r.all[a].count)
		if q.Sort == 1 {
			c = cmp.Compare(r.all[a].name, r.all[b].name)
		}
		if q.Reverse {
			c = -c
		}
		return c
	})
	r.rows = nil
	if len(body) > 0 {
		r.rows = append([]int{-1}, body...)
	}
	return len(r.rows)
}

func (r *fruitRows) Cell(i, c int) *tview.TableCell {
	if r.rows[i] < 0 {
		if c == 0 {
			return tview.NewTableCell("-- fruits --")
		}
		return tview.NewTableCell("")
	}
	f := r.all[r.rows[i]]
	if c == 0 {
		return tview.NewTableCell(style.Escape(f.name))
	}
	return tview.NewTableCell(strconv.Itoa(f.count))
}

func (r *fruitRows) Key(i int) string {
	if r.rows[i] < 0 {
		return ""
	}
	return r.all[r.rows[i]].name
}

// harness draws a frame on a simulated screen and feeds it keys.
type harness struct {
	t      *testing.T
	f      *Frame
	screen tcell.SimulationScreen
	w, h   int
	focus  tview.Primitive
	quits  int
}

func newHarness(t *testing.T, w, h int, opt FrameOptions) *harness {
	t.Helper()
	hs := &harness{t: t, screen: tcell.NewSimulationScreen("UTF-8"), w: w, h: h}
	if err := hs.screen.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hs.screen.Fini)
	hs.screen.SetSize(w, h)
	if opt.Quit == nil {
		opt.Quit = func() { hs.quits++ }
	}
	hs.f = NewFrame(opt)
	return hs
}

func (hs *harness) draw() []string {
	hs.f.SetRect(0, 0, hs.w, hs.h)
	hs.screen.Clear()
	hs.f.Draw(hs.screen)
	hs.screen.Show()
	cells, w, h := hs.screen.GetContents()
	out := make([]string, h)
	for y := range h {
		var b strings.Builder
		for x := range w {
			if r := cells[y*w+x].Runes; len(r) > 0 && r[0] != 0 {
				b.WriteRune(r[0])
			} else {
				b.WriteByte(' ')
			}
		}
		out[y] = strings.TrimRight(b.String(), " ")
	}
	return out
}

func (hs *harness) resize(w, h int) {
	hs.w, hs.h = w, h
	hs.screen.SetSize(w, h)
}

func (hs *harness) text() string { return strings.Join(hs.draw(), "\n") }

func (hs *harness) key(k tcell.Key, r rune) {
	hs.draw()
	hs.f.InputHandler()(tcell.NewEventKey(k, r, 0), func(p tview.Primitive) { hs.focus = p })
}

func (hs *harness) keys(s string) {
	for _, r := range s {
		hs.key(tcell.KeyRune, r)
	}
}

func (hs *harness) has(want ...string) {
	hs.t.Helper()
	text := hs.text()
	for _, w := range want {
		if !strings.Contains(text, w) {
			hs.t.Fatalf("screen lacks %q:\n%s", w, text)
		}
	}
}

func (hs *harness) lacks(unwanted ...string) {
	hs.t.Helper()
	text := hs.text()
	for _, w := range unwanted {
		if strings.Contains(text, w) {
			hs.t.Fatalf("screen shows %q:\n%s", w, text)
		}
	}
}

// line returns the screen line holding s, its blanks squeezed.
func (hs *harness) line(s string) string {
	hs.t.Helper()
	for _, l := range hs.draw() {
		if strings.Contains(l, s) {
			return strings.Join(strings.Fields(l), " ")
		}
	}
	hs.t.Fatalf("no line with %q:\n%s", s, hs.text())
	return ""
}

// rowsOnScreen returns the fruit names in screen order.
func (hs *harness) rowsOnScreen() []string {
	var names []string
	for _, l := range hs.draw() {
		if f := strings.Fields(l); len(f) == 2 && f[0] != "NAME" {
			if _, err := strconv.Atoi(f[1]); err == nil {
				names = append(names, f[0])
			}
		}
	}
	return names
}

func fruits() *fruitRows {
	return &fruitRows{all: []fruit{{"apple", 3}, {"banana", 7}, {"cherry", 5}, {"[red]date", 1}}}
}

func (hs *harness) eq(what string, got []string, want ...string) {
	hs.t.Helper()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		hs.t.Fatalf("%s: got %q, want %q\n%s", what, got, want, hs.text())
	}
}

// The table sorts by its Sorts' keys (the column marked), reverses,
// filters through the prompt, keeps the selection across both, skips the
// heading, and its keys are in the generated help.
func TestTableSortFilterSelect(t *testing.T) {
	hs := newHarness(t, 60, 14, FrameOptions{Palette: style.Palette{NoColor: true}, HelpTitle: "Fruit keys", Item: "fruit"})
	rows := fruits()
	tbl := NewTable(rows, TableOptions{Title: "Fruits", Scope: "fruits", Sorts: fruitSorts, RepeatReverses: true})
	hs.f.AddTab(tbl)
	hs.has("-- fruits --", "COUNT ▼")
	hs.eq("by count", hs.rowsOnScreen(), "banana", "cherry", "apple", "[red]date")
	if tbl.SelectedKey() != "banana" {
		t.Fatalf("selected %q: the heading must be skipped", tbl.SelectedKey())
	}
	hs.keys("jj") // apple
	hs.keys("n")
	hs.has("NAME ▼")
	hs.eq("by name", hs.rowsOnScreen(), "[red]date", "apple", "banana", "cherry")
	if tbl.SelectedKey() != "apple" {
		t.Fatalf("selection %q after sorting, want apple", tbl.SelectedKey())
	}
	hs.keys("n") // the same key again: reversed
	hs.has("NAME ▲")
	hs.eq("by name reversed", hs.rowsOnScreen(), "cherry", "banana", "apple", "[red]date")
	hs.keys("r")
	hs.eq("r", hs.rowsOnScreen(), "[red]date", "apple", "banana", "cherry")
	hs.keys("k")
	hs.keys("k") // already on the first fruit: the heading is not selectable
	if tbl.SelectedKey() != "[red]date" {
		t.Fatalf("k onto the heading selected %q", tbl.SelectedKey())
	}
	hs.keys("G")
	if tbl.SelectedKey() != "cherry" {
		t.Fatalf("G selected %q", tbl.SelectedKey())
	}

	hs.keys("/")
	if hs.focus != hs.f.Footer().Field() {
		t.Fatal("/ did not focus the prompt")
	}
	hs.keys("an")
	hs.eq("filter an", hs.rowsOnScreen(), "banana")
	hs.key(tcell.KeyEnter, 0)
	if tbl.Filter() != "an" || hs.focus != tview.Primitive(hs.f) {
		t.Fatalf("after Enter: filter %q, focus %T", tbl.Filter(), hs.focus)
	}
	hs.keys("/x")
	hs.key(tcell.KeyEscape, 0) // Esc in the prompt: the filter from before
	if tbl.Filter() != "an" {
		t.Fatalf("Esc in the prompt left filter %q", tbl.Filter())
	}
	hs.key(tcell.KeyEscape, 0) // Esc outside: cleared
	if tbl.Filter() != "" || len(hs.rowsOnScreen()) != 4 {
		t.Fatalf("Esc outside the prompt: filter %q, rows %q", tbl.Filter(), hs.rowsOnScreen())
	}

	hs.resize(60, 40)
	hs.keys("?")
	hs.has("Fruit keys", "sort by count", "sort by name", "reverse the order", "next fruit", "Backspace/Esc")
	hs.keys("c") // ignored while help is shown
	if tbl.SortName() != "name" {
		t.Fatalf("a sort key acted behind the help: %s", tbl.SortName())
	}
	hs.keys("?")
	hs.lacks("Fruit keys")
	hs.keys("q")
	if hs.quits != 1 {
		t.Fatalf("q: %d quits", hs.quits)
	}
}

// Enter drills into a page pushed on the tab; Backspace comes back to the
// table, with its selection; the pushed page's hints replace the view's.
func TestPushAndBack(t *testing.T) {
	hs := newHarness(t, 60, 12, FrameOptions{Palette: style.Palette{NoColor: true}})
	rows := fruits()
	tbl := NewTable(rows, TableOptions{Title: "Fruits", Scope: "fruits", Sorts: fruitSorts})
	hs.f.AddTab(tbl)
	hs.f.SetHints("Enter details  q quit")
	detail := NewText("Detail", "detail").SetHints("j/k scroll  Esc back")
	hs.f.Register(detail)
	hs.f.AddKeys(keymap.Bind(tcell.KeyEnter, 0, "Enter", "show the fruit", "View", func() {
		detail.SetText("all about " + style.Escape(tbl.SelectedKey()) + "\nline 2\nline 3")
		hs.f.Push(detail)
	}).In("fruits"))
	hs.has("Enter details  q quit")
	hs.keys("j")
	hs.key(tcell.KeyEnter, 0)
	hs.has("all about cherry", "j/k scroll  Esc back")
	hs.lacks("COUNT", "Enter details")
	if hs.f.Depth() != 2 {
		t.Fatalf("depth %d", hs.f.Depth())
	}
	hs.key(tcell.KeyEnter, 0) // Enter is the table's key only
	if hs.f.Depth() != 2 {
		t.Fatalf("Enter on the detail page pushed again: depth %d", hs.f.Depth())
	}
	hs.keys("c") // the table's sort key does nothing here
	if tbl.SortName() != "count" {
		t.Fatal("a table key acted on the detail page")
	}
	hs.keys("j")
	if row, _ := detail.GetScrollOffset(); row != 1 {
		t.Fatalf("j scrolled the detail to %d", row)
	}
	hs.key(tcell.KeyBackspace2, 0)
	hs.has("COUNT", "Enter details")
	if tbl.SelectedKey() != "cherry" || hs.f.Depth() != 1 {
		t.Fatalf("back: selected %q depth %d", tbl.SelectedKey(), hs.f.Depth())
	}
	hs.key(tcell.KeyBackspace2, 0) // nothing to leave, no filter: no effect
	hs.has("COUNT")

	// / on a pushed page filters the tab's root, leaving the page.
	hs.key(tcell.KeyEnter, 0)
	hs.keys("/ch")
	hs.key(tcell.KeyEnter, 0)
	if hs.f.Depth() != 1 || tbl.Filter() != "ch" {
		t.Fatalf("/ from the detail: depth %d filter %q", hs.f.Depth(), tbl.Filter())
	}
}

// Tabs: the bar names each tab's pages (peer strings literally); digits and
// Ctrl-N/Ctrl-P switch; each tab keeps its own stack.
func TestTabs(t *testing.T) {
	hs := newHarness(t, 70, 12, FrameOptions{Palette: style.Palette{NoColor: true}})
	tbl := NewTable(fruits(), TableOptions{Title: "Fruits", Scope: "fruits", Sorts: fruitSorts})
	hs.f.AddTab(tbl)
	hs.lacks("1 Fruits") // one tab: no bar
	log := NewText("[red]Log", "")
	log.SetText("the log page")
	hs.f.AddTab(log)
	hs.has("1 Fruits", "2 [red]Log", "COUNT")
	hs.keys("2")
	hs.has("the log page")
	if hs.f.Tab() != 1 {
		t.Fatalf("tab %d", hs.f.Tab())
	}
	hs.key(tcell.KeyCtrlN, 0)
	hs.has("COUNT")
	hs.key(tcell.KeyCtrlP, 0)
	hs.has("the log page")
	hs.f.Push(NewMessage("Why", "no [blue]data\nsecond line"))
	hs.has("2 [red]Log › Why", "no [blue]data", "second line")
	hs.keys("1")
	hs.has("COUNT")
	hs.keys("2")
	hs.has("no [blue]data")
	hs.resize(70, 40)
	hs.keys("?")
	hs.has("show tab 1 … 9", "next / previous tab")
}

// The footer joins progress, a notice, a message, the status and the
// hints, escaping what is plain text.
func TestFooterParts(t *testing.T) {
	hs := newHarness(t, 120, 6, FrameOptions{Palette: style.Palette{NoColor: true}})
	hs.f.AddTab(NewTable(fruits(), TableOptions{Title: "Fruits"}))
	hs.f.SetHints("? help")
	hs.f.SetStatus("[::b]selected[::-]")
	hs.f.SetMessage("[red]fetch failed")
	hs.f.SetProgress("loading: 5%")
	hs.f.Notify("copied")
	if got := hs.line("loading"); got != "loading: 5% │ copied │ [red]fetch failed │ selected │ ? help" {
		t.Fatalf("footer %q", got)
	}
	hs.keys("j") // a key clears the notice
	if got := hs.line("loading"); got != "loading: 5% │ [red]fetch failed │ selected │ ? help" {
		t.Fatalf("footer after a key %q", got)
	}
	// An empty table says why.
	hs2 := newHarness(t, 60, 8, FrameOptions{})
	hs2.f.AddTab(NewTable(&fruitRows{}, TableOptions{Title: "none", Empty: "no [red]fruit recorded"}))
	hs2.has("no [red]fruit recorded")
}

// Pages left are dropped from the frame; their scope's keys stay declared.
func TestPagesLeftAreForgotten(t *testing.T) {
	hs := newHarness(t, 60, 10, FrameOptions{})
	hs.f.AddTab(NewTable(fruits(), TableOptions{Title: "Fruits", Scope: "fruits", Sorts: fruitSorts}))
	before := hs.f.body.GetPageCount()
	for range 5 {
		hs.f.Push(NewTable(fruits(), TableOptions{Title: "more", Scope: "more", Sorts: []Sort{{Key: 'x', Name: "x", Help: "sort by x"}}}))
		hs.f.Pop()
	}
	if got := hs.f.body.GetPageCount(); got != before || len(hs.f.names) != 1 {
		t.Fatalf("%d pages in the body after leaving five (%d before), %d named", got, before, len(hs.f.names))
	}
	if !strings.Contains(hs.f.Keys().HelpText(), "sort by x") {
		t.Fatal("the left page's scope keys are gone from the key table")
	}
}

// A table of no scope brings its keys unscoped: they are the view's own
// (in the key table without a scope) and sort that table from any page.
func TestUnscopedRootTable(t *testing.T) {
	hs := newHarness(t, 60, 12, FrameOptions{})
	tbl := NewTable(fruits(), TableOptions{Title: "Fruits", Sorts: fruitSorts})
	hs.f.AddTab(tbl)
	for _, b := range hs.f.Keys().Bindings() {
		if b.Help == "sort by name" && b.Scope != "" {
			t.Fatalf("the root table's sort key is scoped %q", b.Scope)
		}
	}
	hs.f.Push(NewText("Detail", "detail"))
	hs.keys("n")
	if tbl.SortName() != "name" {
		t.Fatalf("n on a pushed page left the root sorted by %s", tbl.SortName())
	}
}
