package viewer

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/tui/style"
)

type node struct {
	name   string
	parent int
	weight int
}

// callTree: main → run → compute → hash, run → log, main → idle; worker →
// [red]loop.
type callTree struct{ nodes []node }

func newCallTree() *callTree {
	return &callTree{nodes: []node{
		{"main", Root, 100}, {"run", 0, 90}, {"idle", 0, 10}, {"compute", 1, 70},
		{"log", 1, 20}, {"hash", 3, 60}, {"worker", Root, 40}, {"[red]loop", 6, 40},
	}}
}

func (c *callTree) Columns() []Column {
	return []Column{{Title: "METHOD", Expand: 1}, {Title: "WEIGHT", Align: tview.AlignRight, Sort: "weight"}}
}

func (c *callTree) Children(parent int, q Query) []int {
	var kids []int
	for i, n := range c.nodes {
		if n.parent == parent {
			kids = append(kids, i)
		}
	}
	slices.SortFunc(kids, func(a, b int) int {
		r := cmp.Compare(c.nodes[b].weight, c.nodes[a].weight)
		if q.Sort == 1 {
			r = cmp.Compare(c.nodes[a].name, c.nodes[b].name)
		}
		if q.Reverse {
			r = -r
		}
		return r
	})
	return kids
}

func (c *callTree) HasChildren(n int) bool {
	for _, x := range c.nodes {
		if x.parent == n {
			return true
		}
	}
	return false
}

func (c *callTree) Cell(n, col int) *tview.TableCell {
	if col == 0 {
		return tview.NewTableCell(style.Escape(c.nodes[n].name))
	}
	return tview.NewTableCell(strconv.Itoa(c.nodes[n].weight))
}

func (c *callTree) Key(n int) string { return strconv.Itoa(n) }

func (c *callTree) Match(n int, filter string) bool { return strings.Contains(c.nodes[n].name, filter) }

func (c *callTree) HotChild(n int, q Query) int {
	best := -1
	for i, x := range c.nodes {
		if x.parent == n && (best < 0 || x.weight > c.nodes[best].weight) {
			best = i
		}
	}
	return best
}

// method lines: the tree column of each row, indentation kept.
func (hs *harness) treeLines() []string {
	var out []string
	for _, l := range hs.draw()[1:] {
		if i := strings.LastIndexByte(strings.TrimRight(l, " "), ' '); i > 0 {
			if _, err := strconv.Atoi(strings.TrimSpace(l[i:])); err == nil {
				out = append(out, strings.TrimRight(l[:i], " "))
			}
		}
	}
	return out
}

// The tree-table: collapsed roots, → opens and then steps in, ← closes and
// then steps out, Space toggles, * opens the hot path and selects its end,
// a filter shows each match with its path, and sorting orders siblings.
func TestTreeExpandCollapseHotPathFilter(t *testing.T) {
	hs := newHarness(t, 60, 16, FrameOptions{Palette: style.Palette{NoColor: true}})
	tbl, tr := NewTree(newCallTree(), TableOptions{Title: "Calls", Scope: "calls",
		Sorts: []Sort{{Key: 'w', Name: "weight", Help: "sort by weight"}, {Key: 'n', Name: "name", Help: "sort by name"}}})
	hs.f.AddTab(tbl)
	hs.eq("roots", hs.treeLines(), "▸ main", "▸ worker")
	hs.key(tcell.KeyRight, 0)
	hs.eq("main open", hs.treeLines(), "▾ main", "  ▸ run", "    idle", "▸ worker")
	hs.keys("l") // open already: to the first child
	if n := tr.Node(tbl.Selected()); n != 1 {
		t.Fatalf("l on an open node selected node %d, want run (1)", n)
	}
	hs.keys(" ")
	hs.eq("run toggled open", hs.treeLines(), "▾ main", "  ▾ run", "    ▸ compute", "      log", "    idle", "▸ worker")
	hs.keys("jj") // log
	hs.keys("h")  // a leaf: to its parent
	if n := tr.Node(tbl.Selected()); n != 1 {
		t.Fatalf("h on a leaf selected %d, want run (1)", n)
	}
	hs.key(tcell.KeyLeft, 0) // open: closes
	hs.eq("run closed", hs.treeLines(), "▾ main", "  ▸ run", "    idle", "▸ worker")
	hs.keys("*")
	hs.eq("hot path", hs.treeLines(), "▾ main", "  ▾ run", "    ▾ compute", "        hash", "      log", "    idle", "▸ worker")
	if n := tr.Node(tbl.Selected()); n != 5 || tr.Depth(tbl.Selected()) != 3 {
		t.Fatalf("* selected node %d at depth %d, want hash (5) at 3", n, tr.Depth(tbl.Selected()))
	}
	hs.keys("n") // siblings by name
	hs.eq("by name", hs.treeLines(), "▾ main", "    idle", "  ▾ run", "    ▾ compute", "        hash", "      log", "▸ worker")
	if n := tr.Node(tbl.Selected()); n != 5 {
		t.Fatalf("selection moved to %d when sorting", n)
	}
	hs.keys("/loop")
	hs.key(tcell.KeyEnter, 0)
	hs.eq("filtered", hs.treeLines(), "▾ worker", "    [red]loop")
	hs.key(tcell.KeyEscape, 0)
	hs.eq("unfiltered: as before", hs.treeLines(), "▾ main", "    idle", "  ▾ run", "    ▾ compute", "        hash", "      log", "▸ worker")
	hs.resize(60, 40)
	hs.keys("?")
	hs.has("expand (or go to the first child)", "collapse (or go to the parent)", "expand the hot path below the selected node", "sort by weight")
}

// A deep tree (a recursive call chain) is walked without recursion.
func TestTreeDeep(t *testing.T) {
	c := &callTree{}
	for i := range 50000 {
		c.nodes = append(c.nodes, node{name: "f" + strconv.Itoa(i), parent: i - 1, weight: 1})
	}
	deep := &chain{c}
	tbl, tr := NewTree(deep, TableOptions{})
	tr.ExpandHotPath(0)
	if tbl.Len() != 50000 || tr.Depth(tbl.Selected()) != 49999 {
		t.Fatalf("hot path: %d rows, selected depth %d", tbl.Len(), tr.Depth(tbl.Selected()))
	}
	tbl.SetFilter("f49999")
	if tbl.Len() != 50000 {
		t.Fatalf("filtered: %d rows (the whole path to the match)", tbl.Len())
	}
}

// A row deeper than maxIndent is drawn at that indentation with its depth
// written out: after * on a 100,000-deep path the selected row's name is
// on an 80-column screen, and no cell is longer than the indentation cap
// allows (it was 2 × depth spaces: 131 KB for the last row, off screen).
func TestTreeIndentCapped(t *testing.T) {
	c := &callTree{}
	for i := range 100000 {
		c.nodes = append(c.nodes, node{name: "f" + strconv.Itoa(i), parent: i - 1, weight: 1})
	}
	hs := newHarness(t, 80, 20, FrameOptions{Palette: style.Palette{NoColor: true}})
	tbl, tr := NewTree(&chain{c}, TableOptions{Title: "Calls", Scope: "calls"})
	hs.f.AddTab(tbl)
	hs.keys("*")
	sel := tbl.Selected()
	depth := tr.Depth(sel)
	if depth < 50000 {
		t.Fatalf("* went %d deep", depth)
	}
	name := c.nodes[tr.Node(sel)].name
	cell := tr.Cell(sel, 0).Text
	if len(cell) > 2*maxIndent+len(name)+16 {
		t.Fatalf("row at depth %d: %d bytes of cell text", depth, len(cell))
	}
	want := "‹" + strconv.Itoa(depth) + "› "
	found := false
	for _, l := range hs.draw() {
		if strings.Contains(l, want) && strings.Contains(l, " "+name+" ") {
			found = true
		}
	}
	if !found {
		t.Fatalf("the selected row (%q) is not on screen:\n%s", want, strings.Join(hs.draw(), "\n"))
	}
	for d, want := range map[int]string{0: "", 3: "      ", maxIndent: strings.Repeat("  ", maxIndent)} {
		if got := indent(d); got != want {
			t.Errorf("indent(%d) = %q, want %q", d, got, want)
		}
	}
}

// chain answers a linear tree's questions in O(1).
type chain struct{ *callTree }

func (c *chain) Children(parent int, q Query) []int {
	if parent+1 < len(c.nodes) {
		return []int{parent + 1}
	}
	return nil
}
func (c *chain) HasChildren(n int) bool      { return n+1 < len(c.nodes) }
func (c *chain) HotChild(n int, q Query) int { return c.Children(n, q)[0] }

// dots is a custom-drawn page: it draws its offset and counts the keys it
// gets.
type dots struct {
	*tview.Box
	offset int
	got    []rune
}

func (d *dots) Draw(s tcell.Screen) {
	d.Box.DrawForSubclass(s, d)
	x, y, _, _ := d.GetInnerRect()
	tview.Print(s, "chart at "+strconv.Itoa(d.offset), x, y, 40, tview.AlignLeft, tcell.ColorDefault)
}

func (d *dots) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return d.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) { d.got = append(d.got, ev.Rune()) })
}

// A custom page is drawn by the view, inside the frame's header, footer
// and keys; movement keys reach it through OnMove, other keys its input
// handler.
func TestCustomPage(t *testing.T) {
	hs := newHarness(t, 60, 10, FrameOptions{Palette: style.Palette{NoColor: true}})
	d := &dots{Box: tview.NewBox()}
	page := NewCustom(d, "Flame", "flame").OnMove(func(delta int) { d.offset += delta }, func() int { return 5 }).SetHints("+/- zoom")
	hs.f.AddTab(page)
	hs.f.SetHeader("header line")
	hs.has("header line", "chart at 0", "+/- zoom")
	hs.keys("jj")
	hs.key(tcell.KeyPgDn, 0)
	hs.has("chart at 7")
	hs.keys("+z")
	if string(d.got) != "+z" {
		t.Fatalf("the custom page got %q", string(d.got))
	}
	hs.keys("q")
	if hs.quits != 1 || strings.Contains(string(d.got), "q") {
		t.Fatalf("q: %d quits, page got %q", hs.quits, string(d.got))
	}
}

// Work runs off the UI goroutine under the run's shell: its progress shows
// in the footer, its result is applied on the UI goroutine, and q ends the
// run only once it has returned.
func TestWorkProgressAndRun(t *testing.T) {
	leakcheck.Check(t)
	s := tcell.NewSimulationScreen("UTF-8")
	s.SetSize(80, 10)
	var page *Text
	sh, f := NewRun(RunOptions{Screen: s, Context: context.Background()}, func(h Host) *Frame {
		f := NewFrame(FrameOptions{Palette: h.Palette, Quit: h.Quit})
		f.SetRunner(h.Runner)
		page = NewText("Data", "")
		page.SetText("waiting")
		f.AddTab(page)
		return f
	})
	done := make(chan error, 1)
	go func() { done <- sh.Run() }()
	read := func() string {
		got := make(chan string, 1)
		go sh.App().QueueUpdate(func() {
			cells, w, _ := s.GetContents()
			var b strings.Builder
			for i, c := range cells {
				if i%w == 0 {
					b.WriteByte('\n')
				}
				b.WriteString(string(c.Runes))
			}
			got <- b.String()
		})
		select {
		case text := <-got:
			return text
		case <-time.After(5 * time.Second):
			t.Fatal("the application does not respond")
			return ""
		}
	}
	waitFor := func(want string) {
		t.Helper()
		var text string
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if text = read(); strings.Contains(text, want) {
				return
			}
		}
		t.Fatalf("screen never showed %q:\n%s", want, text)
	}
	waitFor("waiting")
	step, release := make(chan struct{}), make(chan struct{})
	started := make(chan bool, 1)
	sh.App().QueueUpdate(func() {
		started <- f.Work("reading", func(ctx context.Context, progress func(string)) func() {
			progress("50%")
			close(step)
			<-release
			return func() { page.SetText("loaded") }
		})
	})
	if !<-started {
		t.Fatal("Work did not start")
	}
	<-step
	waitFor("reading: 50%")
	close(release)
	waitFor("loaded")
	if text := read(); strings.Contains(text, "reading") {
		t.Fatalf("progress left after the work:\n%s", text)
	}
	s.InjectKey(tcell.KeyRune, 'q', tcell.ModNone)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("q did not end the run")
	}
	// Without a runner there is no background work.
	if NewFrame(FrameOptions{}).Work("x", func(context.Context, func(string)) func() { return nil }) {
		t.Fatal("Work started without a runner")
	}
}

// The first row's node (index 0) expands, collapses and toggles like any
// other, and is the parent h goes to; rows out of range have no node.
func TestTreeFirstNodeAndBounds(t *testing.T) {
	hs := newHarness(t, 60, 16, FrameOptions{})
	tbl, tr := NewTree(newCallTree(), TableOptions{Title: "Calls"})
	hs.f.AddTab(tbl)
	hs.keys(" ")
	hs.eq("Space on node 0", hs.treeLines(), "▾ main", "  ▸ run", "    idle", "▸ worker")
	hs.keys("jh") // run: a closed node goes to its parent, on row 0
	if tbl.Selected() != 0 {
		t.Fatalf("h from run selected row %d, want 0", tbl.Selected())
	}
	hs.keys("h") // main is open: h closes it
	hs.eq("h on node 0", hs.treeLines(), "▸ main", "▸ worker")
	if tr.Node(tbl.Len()) != -1 || tr.Node(-1) != -1 || tr.Depth(tbl.Len()) != 0 || tr.Depth(-1) != 0 {
		t.Fatal("rows out of range have a node or a depth")
	}
	// A tree of no scope: its keys act on it from a page pushed above it.
	hs.f.Push(NewText("Detail", ""))
	hs.keys(" ")
	if !tr.Expanded(0) {
		t.Fatal("Space on a pushed page did not reach the unscoped tree")
	}
}
