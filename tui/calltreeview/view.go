package calltreeview

import (
	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// Key scopes of the pages.
const (
	scopeTopDown   = "top-down"
	scopeBottomUp  = "bottom-up"
	scopeFlame     = "flame-chart"
	scopeCallChart = "call-chart"
)

// Tabs are the four pages on a frame: Top Down, Bottom Up, Flame Chart and
// Call Chart, over one Model.
type Tabs struct {
	M                 *Model
	f                 *viewer.Frame
	topDown, bottomUp *viewer.Table
	tdTree, buTree    *viewer.Tree
	tdSrc, buSrc      *treeSource
	flame             *flameChart
	chart             *callChart
	flamePage         *viewer.Custom
	chartPage         *viewer.Custom
	// OnStatus is told the model's status line (thread, clock, range,
	// records not placed) whenever it changes; a host shows it.
	OnStatus func(string)
}

// AddTabs adds the call-tree pages to f (after its other tabs) and
// returns them. The profile must have call trees (BuildOptions.CallTree);
// the call chart also needs call indexes (BuildOptions.CallIndex).
func AddTabs(f *viewer.Frame, m *Model, pal style.Palette) *Tabs {
	t := &Tabs{M: m, f: f}
	t.tdSrc = &treeSource{m: m, pal: pal}
	t.buSrc = &treeSource{m: m, bottomUp: true, pal: pal}
	t.topDown, t.tdTree = viewer.NewTree(t.tdSrc, viewer.TableOptions{Title: "Top Down", Scope: scopeTopDown,
		Empty: "no call tree (the trace has no records, or nothing matches the filter)"})
	t.bottomUp, t.buTree = viewer.NewTree(t.buSrc, viewer.TableOptions{Title: "Bottom Up", Scope: scopeBottomUp,
		Empty: "no call tree (the trace has no records, or nothing matches the filter)"})
	t.tdSrc.table, t.buSrc.table = t.topDown, t.bottomUp
	t.flame = newFlameChart(m, pal)
	t.chart = newCallChart(m, pal)
	t.flamePage = viewer.NewCustom(t.flame, "Flame Chart", scopeFlame).
		OnMove(func(d int) {
			// The root is the bottom row: ↑ goes to a callee.
			if d < 0 {
				t.flame.up()
			} else {
				t.flame.down()
			}
		}, func() int { return 1 }).
		SetHints("↑/↓ callee/caller  ←/→ along the row  Enter zoom in  Backspace zoom out  t thread  c clock  ? help")
	t.chartPage = viewer.NewCustom(t.chart, "Call Chart", scopeCallChart).
		OnMove(t.chart.Move, t.chart.rows).
		SetHints("↑/↓ caller/callee  ←/→ prev/next  +/- zoom  </> pan  Enter zoom to call  z all  m narrow tabs to window  ? help")
	for _, tree := range []*viewer.Table{t.topDown, t.bottomUp} {
		src := t.tdSrc
		tr := t.tdTree
		if tree == t.bottomUp {
			src, tr = t.buSrc, t.buTree
		}
		tree.OnSelect(func(i int) {
			if n := tr.Node(i); n >= 0 {
				m.Selected = src.method(n)
				f.SetStatus(t.nodeStatus(src, n))
			}
		})
	}
	t.flame.onSelect = func() { f.SetStatus(t.flame.Status()) }
	t.chart.onSelect = func() { f.SetStatus(t.chart.Status()) }
	f.AddTab(t.topDown)
	f.AddTab(t.bottomUp)
	f.AddTab(t.flamePage)
	f.AddTab(t.chartPage)
	f.AddKeys(t.keys()...)
	m.OnChange(t.refresh)
	return t
}

// nodeStatus describes a tree node for the footer.
func (t *Tabs) nodeStatus(src *treeSource, n int) string {
	v := src.view()
	c := v.Clock()
	nd := &v.Nodes[n]
	total := v.Nodes[0].Inclusive[c]
	of := t.M.ShareLabel()
	s := style.Escape(t.M.Name(nd.Method)) + "  incl " + usec(nd.Inclusive[c]) + " (" + percent(nd.Inclusive[c], total) + of +
		")  self " + usec(nd.Self[c]) + " (" + percent(nd.Self[c], total) + ")  calls " + itoa(nd.Calls)
	if !v.BottomUp() {
		// Top down, incl = self + the children's, but for a call that
		// began before the trace: its callees are under the root.
		d := int64(nd.Inclusive[c]) - int64(nd.Self[c])
		for k := range v.Children(int32(n)) {
			d -= int64(v.Nodes[k].Inclusive[c])
		}
		if d > 0 {
			s += "  unplaced " + usec(uint64(d)) + " (in callees placed under the root: the call began before the trace)"
		}
	}
	return s
}

// keys are the tabs' own keys, each bound in the scopes it acts in.
func (t *Tabs) keys() []keymap.Binding {
	all := []string{scopeTopDown, scopeBottomUp, scopeFlame, scopeCallChart}
	g := "Call trees"
	var bs []keymap.Binding
	for i, sc := range all {
		bind := keymap.Bind
		if i > 0 { // one help line for all four
			bind = func(k tcell.Key, r rune, _, _, _ string, fn func()) keymap.Binding { return keymap.Alias(k, r, fn) }
		}
		bs = append(bs,
			bind(tcell.KeyRune, 't', "t", "next thread (after the last: all threads merged)", g, t.M.NextThread).As("next-thread").In(sc),
			bind(tcell.KeyRune, 'c', "c", "switch the clock (thread CPU / wall) on dual-clock traces", g, t.toggleClock).As("switch-clock").In(sc),
			bind(tcell.KeyRune, 'R', "R", "show the whole trace again (drop the call chart's time range)", g, t.M.ClearRange).As("clear-range").In(sc))
	}
	bs = append(bs,
		keymap.Bind(tcell.KeyBackspace2, 0, "Backspace", "flame chart: zoom out (at the top: back)", g, t.zoomOut).As("zoom-out").In(scopeFlame),
		keymap.Alias(tcell.KeyBackspace, 0, t.zoomOut).As("zoom-out").In(scopeFlame),
		keymap.Bind(tcell.KeyRune, 'm', "m", "call chart: narrow every tab to the time shown", g, t.chart.narrow).As("narrow-range").In(scopeCallChart))
	return bs
}

func (t *Tabs) toggleClock() {
	if !t.M.ToggleClock() {
		t.f.Notify("the trace has one clock")
	}
}

func (t *Tabs) zoomOut() {
	if !t.flame.zoomOut() {
		t.f.Back()
	}
}

// SetProfile shows another profile in the tabs.
func (t *Tabs) SetProfile(p *trace.Profile, c trace.Clock) {
	t.M.SetProfile(p, c)
	t.chart.reset()
}

// refresh lays the trees out again after the model changed.
func (t *Tabs) refresh() {
	t.topDown.Refresh()
	t.bottomUp.Refresh()
	if t.OnStatus != nil {
		t.OnStatus(t.M.Status())
	}
}
