// Package calltreeview shows a method trace's call trees in the terminal,
// as Android Studio does: Top Down and Bottom Up (tree-tables with
// percentages, the hot path on one key, a filter keeping matching paths),
// a Flame Chart (the aggregated top-down tree in block characters: x =
// share of time, y = depth) and a Call Chart (one thread over time: x =
// time, y = depth, each call a bar of its duration). A time range chosen in
// the call chart narrows every tab; the method selected in one tab is
// highlighted in all of them.
//
// The pages are viewer pages (tui/viewer): AddTabs puts them on a viewer
// Frame beside other tabs (the profile's method table), and New makes a
// Frame of their own. The data comes from package trace: the threads'
// top-down trees (trace.CallTree), shown through trace.TreeView (merged
// and bottom up, expanded as the user opens them), and the threads' call
// indexes (trace.CallIndex), which the call chart draws from without
// walking all calls. Names from the trace are escaped before they are
// drawn.
package calltreeview

import (
	"github.com/ddmtui/ddmtui/internal/textfilter"
	"strconv"
	"strings"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/trace"
)

// Model is what the tabs share: the profile, the clock, the thread shown
// (or all of them merged), the time range, and the selected method.
type Model struct {
	p      *trace.Profile
	clock  trace.Clock
	thread int // index in p.Threads; -1: all threads merged
	// The time range on clock rangeClock, when ranged: every tab shows the
	// calls inside it.
	ranged     bool
	rangeClock trace.Clock
	from, to   uint32
	// Selected is the method selected in any tab (trace.TopLevel: none).
	Selected int32

	topDown, bottomUp *trace.TreeView
	filter            string
	filtered          *trace.TreeView // topDown or bottomUp with the filter
	filteredBU        bool
	names             []string
	lower             []string // names in lower case, for the filter
	listeners         []func()
	flat              *trace.Graph // RangeFlat's, for flatKey
	flatKey           rangeKey
}

// NewModel returns the model of p (built with trace.BuildOptions.CallTree,
// and CallIndex for the call chart and time ranges), on clock c.
func NewModel(p *trace.Profile, c trace.Clock) *Model {
	m := &Model{}
	m.setProfile(p, c)
	return m
}

// SetProfile shows another profile (a host reused for each trace, as the
// dashboard's profile view is), from the whole trace and all threads.
func (m *Model) SetProfile(p *trace.Profile, c trace.Clock) {
	m.setProfile(p, c)
	m.changed()
}

func (m *Model) setProfile(p *trace.Profile, c trace.Clock) {
	if !p.Clocks.Has(c) {
		c = p.Clocks.First()
	}
	m.p, m.clock, m.thread, m.ranged, m.Selected = p, c, -1, false, trace.TopLevel
	m.names = make([]string, len(p.Methods))
	m.lower = make([]string, len(p.Methods))
	for i := range p.Methods {
		m.names[i] = safetext.Terminal(p.Name(int32(i)))
		m.lower[i] = strings.ToLower(p.Name(int32(i)) + " " + p.Methods[i].Signature)
	}
}

// OnChange calls fn whenever the trees change (thread, clock, range).
func (m *Model) OnChange(fn func()) { m.listeners = append(m.listeners, fn) }

func (m *Model) changed() {
	m.topDown, m.bottomUp, m.filtered = nil, nil, nil
	for _, fn := range m.listeners {
		fn()
	}
}

// Profile returns the profile shown.
func (m *Model) Profile() *trace.Profile { return m.p }

// Clock is the clock of every time shown: the chosen one, or while a time
// range is in force the range's (its trees have only that clock).
func (m *Model) Clock() trace.Clock { return m.treeClock() }

// Name is method i's "class.method", safe for the terminal (not escaped
// for tview).
func (m *Model) Name(i int32) string {
	if i < 0 || int(i) >= len(m.names) {
		return "(invalid)"
	}
	return m.names[i]
}

// HasTrees reports whether the profile has call trees.
func (m *Model) HasTrees() bool { return len(m.trees()) > 0 }

// HasIndex reports whether the profile has call indexes (call chart).
func (m *Model) HasIndex() bool {
	for i := range m.p.Threads {
		if m.p.Threads[i].Index != nil {
			return true
		}
	}
	return false
}

// trees returns the top-down trees of the threads shown, cut to the time
// range when there is one.
func (m *Model) trees() []*trace.CallTree {
	var out []*trace.CallTree
	for i := range m.p.Threads {
		if m.thread >= 0 && i != m.thread {
			continue
		}
		tp := &m.p.Threads[i]
		switch {
		case m.ranged && tp.Index != nil:
			out = append(out, tp.Index.RangeTree(m.rangeClock, m.from, m.to))
		case tp.Tree != nil:
			out = append(out, tp.Tree)
		}
	}
	return out
}

// TopDown returns the top-down tree of what is shown.
func (m *Model) TopDown() *trace.TreeView {
	if m.topDown == nil {
		m.topDown = trace.NewTopDownView(m.trees(), m.treeClock())
	}
	return m.topDown
}

// BottomUp returns the bottom-up tree of what is shown.
func (m *Model) BottomUp() *trace.TreeView {
	if m.bottomUp == nil {
		m.bottomUp = trace.NewBottomUpView(m.trees(), m.treeClock())
	}
	return m.bottomUp
}

// Filtered returns the tree (bottom up or top down) keeping only the
// paths through a method whose name contains filter (case-insensitive);
// with a leading ! (textfilter's rule), the paths through none (bottom
// up: the methods whose name does not contain it).
func (m *Model) Filtered(bottomUp bool, filter string) *trace.TreeView {
	f := textfilter.Parse(filter)
	if f.All() {
		if bottomUp {
			return m.BottomUp()
		}
		return m.TopDown()
	}
	if m.filtered == nil || m.filter != filter || m.filteredBU != bottomUp {
		m.filter, m.filteredBU = filter, bottomUp
		needle := f.Needle()
		match := func(i int32) bool { return strings.Contains(m.lower[i], needle) }
		if f.Inverted() {
			m.filtered = trace.NewExcludingView(m.trees(), bottomUp, m.treeClock(), match)
		} else {
			m.filtered = trace.NewFilteredView(m.trees(), bottomUp, m.treeClock(), match)
		}
	}
	return m.filtered
}

// treeClock is the clock the trees hold: a range tree has only the range's.
func (m *Model) treeClock() trace.Clock {
	if m.ranged {
		return m.rangeClock
	}
	return m.clock
}

// Thread is the index in Profile.Threads of the thread shown, -1 for all.
func (m *Model) Thread() int { return m.thread }

// ThreadLabel names what is shown: "all threads" or the thread.
func (m *Model) ThreadLabel() string {
	if m.thread < 0 {
		return "all threads"
	}
	return threadName(&m.p.Threads[m.thread])
}

func threadName(tp *trace.ThreadProfile) string {
	id := strconv.FormatUint(uint64(tp.ID), 10)
	if tp.Name == "" {
		return "thread " + id
	}
	return safetext.Terminal(tp.Name) + " (" + id + ")"
}

// NextThread shows the next thread with records (after the last, all
// threads merged again).
func (m *Model) NextThread() {
	for i := m.thread + 1; i < len(m.p.Threads); i++ {
		if m.p.Threads[i].Records > 0 {
			m.thread = i
			m.changed()
			return
		}
	}
	m.thread = -1
	m.changed()
}

// SetThread shows thread i (-1: all).
func (m *Model) SetThread(i int) {
	if i != m.thread {
		m.thread = i
		m.changed()
	}
}

// ToggleClock switches between thread CPU and wall time, for dual-clock
// traces; a time range stays on its own clock.
func (m *Model) ToggleClock() bool {
	other := trace.ClockWall
	if m.clock == trace.ClockWall {
		other = trace.ClockCPU
	}
	if !m.p.Clocks.Has(other) {
		return false
	}
	m.clock = other
	m.changed()
	return true
}

// SetRange narrows every tab to the calls inside [from, to) on clock c.
func (m *Model) SetRange(c trace.Clock, from, to uint32) {
	m.ranged, m.rangeClock, m.from, m.to = true, c, from, to
	m.changed()
}

// ClearRange shows the whole trace again.
func (m *Model) ClearRange() {
	if m.ranged {
		m.ranged = false
		m.changed()
	}
}

// Range returns the time range in force.
func (m *Model) Range() (c trace.Clock, from, to uint32, ok bool) {
	return m.rangeClock, m.from, m.to, m.ranged
}

// ShareLabel says what the footer's percentages are of within a time
// range: the trees' root, the traced time inside the range (summed over
// the threads when they are merged); "" without a range (the status line
// says what is shown).
func (m *Model) ShareLabel() string {
	switch {
	case m.ranged && m.thread < 0:
		return " of the threads' time in the range"
	case m.ranged:
		return " of the range"
	}
	return ""
}

// RangeFlat is the flat profile of the time range in force, of thread i
// (an index in Profile.Threads; -1: all threads merged), on the range's
// clock; nil without a range. It is made once per range and thread.
func (m *Model) RangeFlat(i int) *trace.Graph {
	if !m.ranged {
		return nil
	}
	key := rangeKey{i, m.rangeClock, m.from, m.to}
	if m.flat != nil && m.flatKey == key {
		return m.flat
	}
	var trees []*trace.CallTree
	for k := range m.p.Threads {
		if tp := &m.p.Threads[k]; (i < 0 || k == i) && tp.Index != nil {
			trees = append(trees, tp.Index.RangeTree(m.rangeClock, m.from, m.to))
		}
	}
	m.flat, m.flatKey = trace.NewBottomUpView(trees, m.rangeClock).FlatGraph(), key
	return m.flat
}

// rangeKey is what RangeFlat's graph was made for.
type rangeKey struct {
	thread   int
	clock    trace.Clock
	from, to uint32
}

// Unplaced counts the records of the threads shown that the trees could
// not place in time (exits with an empty stack, counted from the trace's
// start) or at all (exits of methods not on the stack).
func (m *Model) Unplaced() (fromStart, ignored int64) {
	for i := range m.p.Threads {
		if m.thread >= 0 && i != m.thread {
			continue
		}
		if t := m.p.Threads[i].Tree; t != nil {
			fromStart += t.FromStart
			ignored += t.Ignored
		} else if ix := m.p.Threads[i].Index; ix != nil {
			fromStart += ix.FromStart
			ignored += ix.Ignored
		}
	}
	return fromStart, ignored
}

// Status is the line the tabs show above them: what is shown, the clock,
// the range and the records without a place.
func (m *Model) Status() string {
	var b strings.Builder
	b.WriteString(m.ThreadLabel())
	b.WriteString(" · ")
	b.WriteString(clockName(m.p, m.treeClock()))
	if m.ranged && m.rangeClock != m.clock {
		b.WriteString(" (the range's)")
	}
	if c, from, to, ok := m.Range(); ok {
		b.WriteString(" · range ")
		b.WriteString(m.p.FormatDuration(c, uint64(from)))
		b.WriteString("–")
		b.WriteString(m.p.FormatDuration(c, uint64(to)))
		b.WriteString(" ")
		b.WriteString(clockName(m.p, c))
		b.WriteString(" (R: whole trace)")
	}
	if fs, ig := m.Unplaced(); fs+ig > 0 {
		b.WriteString(" · ")
		b.WriteString(strconv.FormatInt(fs+ig, 10))
		b.WriteString(" records not placed (")
		b.WriteString(strconv.FormatInt(fs, 10))
		b.WriteString(" exits from before the trace, ")
		b.WriteString(strconv.FormatInt(ig, 10))
		b.WriteString(" exits of methods not on the stack)")
	}
	return b.String()
}

func clockName(p *trace.Profile, c trace.Clock) string {
	if p != nil && p.Sampling != nil {
		return p.ClockName(c)
	}
	if c == trace.ClockWall {
		return "wall clock"
	}
	return "thread CPU"
}

// percent formats part/whole as "12.3%"; "-" for an empty whole.
func percent(part, whole uint64) string {
	if whole == 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(part)*100/float64(whole), 'f', 1, 64) + "%"
}
