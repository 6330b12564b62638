package calltreeview

import (
	"sort"
	"strconv"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/style"
)

// callChart draws one thread over time: x = time on the chart's clock
// (wall when the trace has it), y = depth, each call a bar of its
// duration. Rows come from the thread's call index, which gives each row's
// calls in the window with one binary search and merges the calls that fall
// into one column, so a redraw never walks all calls.
type callChart struct {
	*tview.Box
	m        *Model
	pal      style.Palette
	thread   int // index in the profile's threads; -1: none with an index
	clock    trace.Clock
	from     uint64 // the window: [from, from+span)
	span     uint64
	top      int   // first depth shown
	sel      int32 // selected call; -1: none
	onSelect func()
}

func newCallChart(m *Model, pal style.Palette) *callChart {
	c := &callChart{Box: tview.NewBox(), m: m, pal: pal}
	c.reset()
	return c
}

// reset starts over on the model's profile: its clock, no thread yet.
func (c *callChart) reset() {
	c.thread, c.sel, c.top = -1, -1, 0
	c.clock = trace.ClockCPU
	if c.m.p.Clocks.Has(trace.ClockWall) {
		c.clock = trace.ClockWall
	}
}

// sync follows the model's thread: the thread shown, or when all are
// merged, the app's main thread (mainThread).
func (c *callChart) sync() *trace.CallIndex {
	want := c.m.Thread()
	if want < 0 {
		want = mainThread(c.m.p)
	}
	if want >= 0 && c.m.p.Threads[want].Index == nil {
		want = -1
	}
	if want != c.thread {
		c.thread, c.sel, c.top = want, -1, 0
		c.fit()
	}
	if c.thread < 0 {
		return nil
	}
	return c.m.p.Threads[c.thread].Index
}

// fit shows the thread's whole time.
func (c *callChart) fit() {
	if c.thread < 0 {
		return
	}
	ix := c.m.p.Threads[c.thread].Index
	c.from = uint64(ix.First[c.clock])
	c.span = max(1, uint64(ix.Last[c.clock])-c.from+1)
}

func (c *callChart) window() (from, to uint32) {
	to64 := min(c.from+c.span, 1<<32-1)
	return uint32(c.from), uint32(to64)
}

func (c *callChart) Draw(s tcell.Screen) {
	c.Box.DrawForSubclass(s, c)
	x, y, w, h := c.GetInnerRect()
	ix := c.sync()
	if ix == nil || w <= 0 || h <= 1 {
		drawText(s, x, x+w, y, "no call index: open the trace with `ddmtui trace FILE`", tcell.StyleDefault)
		return
	}
	// The axis: the window's start and end, and the thread.
	from, to := c.window()
	axis := usec(uint64(from)-uint64(ix.First[c.clock])) + "  " + threadName(&c.m.p.Threads[c.thread]) + " · " + clockName(c.clock)
	drawText(s, x, x+w, y, axis, tcell.StyleDefault.Dim(true))
	end := "+" + usec(c.span)
	drawText(s, x+max(0, w-len(end)-1), x+w, y, end, tcell.StyleDefault.Dim(true))
	cell := uint32(max(1, c.span/uint64(w)))
	col := func(t uint32) int {
		if t <= from {
			return 0
		}
		return int(min(uint64(w), (uint64(t-from)*uint64(w))/c.span))
	}
	paint := newBarPainter(c.pal)
	for r := 1; r < h; r++ {
		d := c.top + r - 1
		if d >= ix.Depth() {
			break
		}
		ix.Visible(c.clock, d, from, to, cell, func(id int32, until uint32) {
			call := &ix.Calls[id]
			x0, x1 := col(call.Start[c.clock]), col(min(until, to))
			if x1 <= x0 {
				x1 = x0 + 1
			}
			if x0 >= w {
				return
			}
			name := c.m.Name(call.Method)
			hl := call.Method == c.m.Selected && c.m.Selected != trace.TopLevel
			drawBar(s, x+x0, x+min(x1, w), y+r, name, paint.style(call.Method, hl, id == c.sel))
		})
	}
}

func (c *callChart) rows() int {
	_, _, _, h := c.GetInnerRect()
	return max(1, h-1)
}

// zoom scales the window by num/den around the selected call (or the
// window's middle).
func (c *callChart) zoom(num, den uint64) {
	ix := c.sync()
	if ix == nil {
		return
	}
	mid := c.from + c.span/2
	if c.sel >= 0 {
		call := &ix.Calls[c.sel]
		mid = (uint64(call.Start[c.clock]) + uint64(call.End[c.clock])) / 2
	}
	full := uint64(ix.Last[c.clock]) - uint64(ix.First[c.clock]) + 1
	c.span = min(max(10, c.span*num/den), full)
	c.from = mid - min(mid, c.span/2)
	c.clamp()
}

// pan moves the window by a quarter of its width per step.
func (c *callChart) pan(steps int) {
	d := c.span / 4
	if steps < 0 {
		c.from -= min(c.from, d*uint64(-steps))
	} else {
		c.from += d * uint64(steps)
	}
	c.clamp()
}

func (c *callChart) clamp() {
	ix := c.sync()
	if ix == nil {
		return
	}
	first, last := uint64(ix.First[c.clock]), uint64(ix.Last[c.clock])
	if c.from+c.span > last+1 {
		c.from = last + 1 - min(last+1, c.span)
	}
	c.from = max(c.from, first)
}

// zoomToSelected shows the selected call across the width.
func (c *callChart) zoomToSelected() {
	ix := c.sync()
	if ix == nil || c.sel < 0 {
		return
	}
	call := &ix.Calls[c.sel]
	c.from = uint64(call.Start[c.clock])
	c.span = max(10, uint64(call.End[c.clock])-c.from)
}

// firstVisible selects the first call at the top row in the window.
func (c *callChart) firstVisible() {
	ix := c.sync()
	if ix == nil {
		return
	}
	from, to := c.window()
	for d := c.top; d < ix.Depth(); d++ {
		found := int32(-1)
		ix.Visible(c.clock, d, from, to, 1, func(id int32, _ uint32) {
			if found < 0 {
				found = id
			}
		})
		if found >= 0 {
			c.selectCall(found)
			return
		}
	}
}

// step selects the caller (delta < 0) or the first callee of the selected
// call; larger moves scroll the rows.
func (c *callChart) Move(delta int) {
	ix := c.sync()
	if ix == nil {
		return
	}
	if delta != 1 && delta != -1 {
		c.top = max(0, min(ix.Depth()-1, c.top+delta))
		return
	}
	if c.sel < 0 {
		c.firstVisible()
		return
	}
	call := &ix.Calls[c.sel]
	if delta < 0 {
		if call.Parent >= 0 {
			c.selectCall(call.Parent)
		}
		return
	}
	// Callees follow their caller in entry order.
	if next := c.sel + 1; int(next) < len(ix.Calls) && ix.Calls[next].Parent == c.sel {
		c.selectCall(next)
	}
}

// side selects the previous or next call at the same depth.
func (c *callChart) side(dir int) {
	ix := c.sync()
	if ix == nil {
		return
	}
	if c.sel < 0 {
		c.firstVisible()
		return
	}
	d := c.depthOf(c.sel)
	row := ix.ByDepth[d]
	k := sort.Search(len(row), func(i int) bool { return row[i] >= c.sel }) + dir
	if k >= 0 && k < len(row) {
		c.selectCall(row[k])
	}
}

func (c *callChart) depthOf(id int32) int {
	ix := c.m.p.Threads[c.thread].Index
	d := 0
	for p := ix.Calls[id].Parent; p >= 0; p = ix.Calls[p].Parent {
		d++
	}
	return d
}

// selectCall selects call id and brings it into view.
func (c *callChart) selectCall(id int32) {
	ix := c.sync()
	c.sel = id
	call := &ix.Calls[id]
	c.m.Selected = call.Method
	s, e := uint64(call.Start[c.clock]), uint64(call.End[c.clock])
	if s >= c.from+c.span || e < c.from {
		c.from = s - min(s, c.span/4)
		c.clamp()
	}
	d := c.depthOf(id)
	if rows := c.rows(); d < c.top || d >= c.top+rows {
		c.top = max(0, d-rows/2)
	}
	if c.onSelect != nil {
		c.onSelect()
	}
}

// self is call id's time less its callees': they are the calls of the
// next depth that follow id in entry order, one run in that row.
func (c *callChart) self(id int32) uint64 {
	ix := c.m.p.Threads[c.thread].Index
	call := &ix.Calls[id]
	dur := uint64(call.End[c.clock] - call.Start[c.clock])
	var inner uint64
	if d := c.depthOf(id) + 1; d < ix.Depth() {
		row := ix.ByDepth[d]
		for k := sort.Search(len(row), func(i int) bool { return row[i] > id }); k < len(row) && ix.Calls[row[k]].Parent == id; k++ {
			callee := &ix.Calls[row[k]]
			inner += uint64(callee.End[c.clock] - callee.Start[c.clock])
		}
	}
	return dur - min(dur, inner)
}

// Status describes the selected call: start (from the thread's first
// record), duration and self time.
func (c *callChart) Status() string {
	ix := c.sync()
	if ix == nil {
		return "no call index"
	}
	if c.sel < 0 {
		return "↑/↓ select a call · ←/→ previous/next · +/- zoom · </> pan · Enter zoom to the call · z whole thread · m narrow every tab to this window"
	}
	call := &ix.Calls[c.sel]
	start := uint64(call.Start[c.clock]) - uint64(ix.First[c.clock])
	dur := uint64(call.End[c.clock] - call.Start[c.clock])
	return style.Escape(c.m.Name(call.Method)) + "  start " + usec(start) + "  duration " + usec(dur) + "  self " + usec(c.self(c.sel)) +
		"  depth " + strconv.Itoa(c.depthOf(c.sel))
}

// narrow makes the window the time range of every tab.
func (c *callChart) narrow() {
	if c.sync() == nil {
		return
	}
	from, to := c.window()
	c.m.SetRange(c.clock, from, to)
}

func (c *callChart) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return c.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		switch ev.Key() {
		case tcell.KeyLeft:
			c.side(-1)
		case tcell.KeyRight:
			c.side(1)
		case tcell.KeyEnter:
			c.zoomToSelected()
		case tcell.KeyRune:
			switch ev.Rune() {
			case '+', '=':
				c.zoom(1, 2)
			case '-':
				c.zoom(2, 1)
			case '<', ',':
				c.pan(-1)
			case '>', '.':
				c.pan(1)
			case 'z':
				c.fit()
			case 'm':
				c.narrow()
			}
		}
		if c.onSelect != nil {
			c.onSelect()
		}
	})
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }

// mainThread is the thread the call chart opens on when all threads are
// merged: the app's main thread, where a user looks first (its UI work),
// known by its name "main" or, without names, by its id being the
// process's (pid= in the trace's options); else the thread with the most
// records. Only threads with a call index count; -1 if none has one.
func mainThread(p *trace.Profile) int {
	pid := uint32(0)
	if v, ok := p.Header.Option("pid"); ok {
		if n, err := strconv.ParseUint(v, 10, 32); err == nil {
			pid = uint32(n)
		}
	}
	best, bestRecords, named, byPid := -1, int64(-1), -1, -1
	for i := range p.Threads {
		tp := &p.Threads[i]
		if tp.Index == nil || tp.Records == 0 {
			continue
		}
		if named < 0 && tp.Name == "main" {
			named = i
		}
		if byPid < 0 && pid != 0 && tp.ID == pid {
			byPid = i
		}
		if tp.Records > bestRecords {
			best, bestRecords = i, tp.Records
		}
	}
	switch {
	case named >= 0:
		return named
	case byPid >= 0:
		return byPid
	}
	return best
}
