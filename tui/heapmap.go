package tui

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/heap"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/style"
)

// heapMap is the heap pane's widget: a VM's HPIF summary and its segment bitmap.
type heapMap struct {
	*tview.Box
	pal      style.Palette
	queue    func(func()) // runs a function on the UI goroutine, then redraws
	spawn    func(func()) // runs a function on an owned goroutine (default: go)
	heaps    []monitor.Heap
	snap     *heap.Snapshot
	nsnap    *heap.Snapshot // native heap (NHSG)
	native   bool           // show the native heap
	objects  bool           // ask for object boundaries (HPSO)
	histo    bool           // show the object-size histogram instead of the bitmap
	bySolid  bool
	zoom     int             // 0 = fit the whole heap; n = 2^n times closer than fit
	scroll   uint64          // first row shown
	waiting  string          // message while no segments arrived
	ddm      bool            // the VM speaks DDM (else nothing will arrive)
	mem      *monitor.Memory // process memory (dumpsys meminfo), nil when not read
	mapWhy   string          // why the VM has no heap map (escaped), "" when it may have one
	lastRows int             // bitmap rows drawn last time: a page
	cacheKey cellKey
	cells    []heap.Cell
	pending  cellKey
	// ComputeInline forces cell computation on the drawing goroutine (tests).
	ComputeInline bool
}

type cellKey struct {
	snap  *heap.Snapshot
	first uint64
	per   uint64
	n     int
}

// newHeapMap returns an empty heap map.
func newHeapMap(pal style.Palette, queue func(func())) *heapMap {
	p := &heapMap{Box: tview.NewBox(), pal: pal, queue: queue}
	p.SetBorder(true).SetTitle(" Heap ")
	return p
}

// SetHeaps sets the HPIF summaries.
func (p *heapMap) SetHeaps(h []monitor.Heap) { p.heaps = h }

// SetSnapshot sets the segment snapshot (nil: none yet).
func (p *heapMap) SetSnapshot(s *heap.Snapshot) { p.snap = s }

// SetNativeSnapshot sets the native-heap snapshot (nil: none yet).
func (p *heapMap) SetNativeSnapshot(s *heap.Snapshot) { p.nsnap = s }

// ToggleNative switches between the managed and the native heap.
func (p *heapMap) ToggleNative() { p.native = !p.native; p.Zoom(0) }

// Native reports whether the native heap is shown.
func (p *heapMap) Native() bool { return p.native }

// ToggleObjects switches between object boundaries (HPSO) and merged runs.
func (p *heapMap) ToggleObjects() { p.objects = !p.objects }

// Objects reports whether object boundaries are asked for.
func (p *heapMap) Objects() bool { return p.objects || p.histo }

// ToggleHistogram shows the object-size histogram instead of the bitmap
// (object boundaries are asked for while it shows).
func (p *heapMap) ToggleHistogram() { p.histo = !p.histo }

// SetMemory sets the process memory (nil: none).
func (p *heapMap) SetMemory(m *monitor.Memory) { p.mem = m }

// SetMapReason sets why the VM has no heap map (tview-escaped; "" when it
// may have one): it is said instead of suggesting a GC.
func (p *heapMap) SetMapReason(why string) { p.mapWhy = why }

// SetWaiting sets the text shown while no segments are available.
func (p *heapMap) SetWaiting(msg string) { p.waiting = msg }

// ToggleColouring switches between colouring by kind and by solidity.
func (p *heapMap) ToggleColouring() { p.bySolid = !p.bySolid }

// Zoom changes the zoom level by d (in steps of 2x); 0 resets to fit.
func (p *heapMap) Zoom(d int) {
	if d == 0 {
		p.zoom, p.scroll = 0, 0
		return
	}
	p.zoom = max(0, min(p.zoom+d, 30))
	if p.zoom == 0 {
		p.scroll = 0
	}
}

// mapRows is the height of the bitmap as last drawn (a page).
func (p *heapMap) mapRows() int { return max(1, p.lastRows) }

// Scroll moves the bitmap by rows.
func (p *heapMap) Scroll(rows int) {
	if rows < 0 && uint64(-rows) > p.scroll {
		p.scroll = 0
		return
	}
	p.scroll = uint64(int64(p.scroll) + int64(rows))
}

func (p *heapMap) geometry(snap *heap.Snapshot, w, h int) (per uint64, rows int) {
	rows = h
	if snap == nil || w <= 0 || rows <= 0 {
		return 1, rows
	}
	n := uint64(w) * uint64(rows)
	per = (snap.Units() + n - 1) / n
	if per == 0 {
		per = 1
	}
	per >>= uint(p.zoom)
	if per == 0 {
		per = 1
	}
	return per, rows
}

// Draw renders the pane.
func (p *heapMap) Draw(screen tcell.Screen) {
	p.Box.DrawForSubclass(screen, p)
	x, y, w, h := p.GetInnerRect()
	if w <= 0 || h <= 0 {
		return
	}
	line := 0
	text := func(s string) {
		if line < h {
			tview.Print(screen, s, x, y+line, w, tview.AlignLeft, tcell.ColorDefault)
		}
		line++
	}
	// dim says an escaped sentence, wrapped between words.
	dim := func(s string) {
		for _, l := range wrapWords(s, w) {
			text("[::d]" + l)
		}
	}
	snap := p.snap
	if p.native {
		snap = p.nsnap
		if snap == nil && p.mapWhy != "" {
			dim(p.mapWhy)
			return
		}
		if snap == nil {
			dim("native heap: segments arrive at the next GC (g causes one); only Dalvik reports native allocations")
			return
		}
		st := snap.Stats
		text(fmt.Sprintf("[::b]native heap[::-]  used [::b]%s[::-]  free %s  in %d pieces", humanBytes(st.UsedUnits()*uint64(st.UnitSize)),
			humanBytes(st.FreeUnits()*uint64(st.UnitSize)), st.Segments))
		if snap.Units() == 0 {
			dim("this VM reports no native allocations (ART sends NHST/NHEN with nothing between)")
			return
		}
	} else if len(p.heaps) == 0 {
		if p.mem != nil {
			line = p.drawMemory(screen, x, y, w, h, line)
			if p.mapWhy != "" && line < h {
				line++ // a blank line before the reason
				dim(p.mapWhy)
			}
			return
		}
		if p.waiting != "" {
			dim(p.waiting)
			return
		}
		text("[::d]no heap information yet (HPIF arrives at the next GC; g causes one)")
		return
	}
	for _, hp := range p.heaps {
		if p.native {
			break
		}
		pct := 0.0
		if hp.SizeBytes > 0 {
			pct = 100 * float64(hp.AllocatedBytes) / float64(hp.SizeBytes)
		}
		text(fmt.Sprintf("max [::b]%s[::-]  size [::b]%s[::-]  allocated [::b]%s[::-] (%.0f%%)  objects [::b]%s[::-]  GCs %d",
			humanBytes(hp.MaxBytes), humanBytes(hp.SizeBytes), humanBytes(hp.AllocatedBytes), pct, groupDigits(hp.Objects), hp.GCCount))
		if line < h {
			tview.Print(screen, bar(hp.AllocatedBytes, hp.SizeBytes, hp.MaxBytes, w), x, y+line, w, tview.AlignLeft, p.pal.Accent())
		}
		line++
		if len(hp.History) > 1 && h >= 12 {
			alloc := make([]uint64, len(hp.History))
			for i, s := range hp.History {
				alloc[i] = s.AllocatedBytes
			}
			first, last := hp.History[0], hp.History[len(hp.History)-1]
			label := fmt.Sprintf(" allocated over %d GCs: %s → %s", gcsSpanned(first, last), humanBytes(first.AllocatedBytes), humanBytes(last.AllocatedBytes))
			sw := max(1, w-len([]rune(label)))
			text(spark(alloc, sw) + "[::d]" + label)
		}
	}
	if p.mem != nil && !p.native {
		text(memLine(p.mem.Info))
	}
	if snap == nil {
		msg := p.waiting
		if msg == "" {
			msg = p.mapWhy
		}
		if msg == "" {
			msg = "segments arrive at the next GC (g causes one)"
		}
		dim(msg)
		return
	}
	if p.histo {
		p.drawHistogram(screen, snap, x, y+line, w, h-line)
		return
	}
	// Legend.
	if line < h {
		p.drawLegend(screen, x, y+line, w)
		line++
	}
	// The kinds' line, then the figures on one line, or two when the pane
	// is tall enough to spare one.
	footer := 2
	if h-line-3 >= 8 {
		footer = 3
	}
	if h-line-footer < 2 {
		footer = 0
	}
	mapRows := h - line - footer
	if mapRows <= 0 {
		return
	}
	per, rows := p.geometry(snap, w, mapRows)
	p.lastRows = rows
	totalRows := (snap.Units() + uint64(w)*per - 1) / (uint64(w) * per)
	if totalRows > uint64(rows) && p.scroll > totalRows-uint64(rows) {
		p.scroll = totalRows - uint64(rows)
	} else if totalRows <= uint64(rows) {
		p.scroll = 0
	}
	key := cellKey{snap: snap, first: p.scroll * uint64(w) * per, per: per, n: w * rows}
	cells := p.cellsFor(key)
	for i, c := range cells {
		cx, cy := x+i%w, y+line+i/w
		ch, st := p.cellLook(c)
		screen.SetContent(cx, cy, ch, nil, st)
	}
	line += rows
	if footer > 0 {
		st := snap.Stats
		unit := uint64(st.UnitSize)
		var parts []string
		if p.bySolid && !p.native {
			for sol := ddm.SolidityHard; sol <= ddm.SoliditySweep; sol++ {
				if u := st.UnitsBySolid[sol]; u > 0 {
					parts = append(parts, fmt.Sprintf("%s %s", solidLabels[sol], humanBytes(u*unit)))
				}
			}
		} else {
			for k := ddm.Kind(0); k < 8; k++ {
				if u := st.UnitsByKind[k]; u > 0 {
					parts = append(parts, fmt.Sprintf("%s %s", kindLabels[k], humanBytes(u*unit)))
				}
			}
		}
		text(fitParts(parts, "  ", w))
		zoom := "fit"
		if p.zoom > 0 {
			zoom = fmt.Sprintf("%dx", 1<<p.zoom)
		}
		mode := "merged runs (HPSG)"
		if snap.Type == ddm.TypeHPSO {
			mode = "objects (HPSO)"
		} else if p.native {
			mode = "native (NHSG)"
		}
		// Most useful first: a narrow pane drops the tail, never cuts a part.
		// The free space and its fragmentation come before the geometry.
		for _, l := range packParts([]string{
			fmt.Sprintf("rows %d-%d of %d", p.scroll+1, min(p.scroll+uint64(rows), totalRows), totalRows),
			fmt.Sprintf("free %s in %s runs", humanBytes(st.FreeUnits()*unit), groupDigits(st.FreeRuns)),
			st.FragmentationLabel(),
			mode,
			fmt.Sprintf("%s units of %dB", groupDigits(snap.Units()), st.UnitSize),
			"zoom " + zoom,
			fmt.Sprintf("1 cell = %s units", groupDigits(per)),
		}, " · ", w, footer-1) {
			text("[::d]" + l)
		}
	}
}

// cellsFor returns the cells for key, computing them inline for small heaps
// and in the background for large ones (drawing the previous cells, or
// nothing, until they are ready).
func (p *heapMap) cellsFor(key cellKey) []heap.Cell {
	if key == p.cacheKey {
		return p.cells
	}
	if p.ComputeInline || p.queue == nil || key.snap.Units() < 4<<20 {
		p.cells = key.snap.Cells(p.cells, key.first, key.per, key.n)
		p.cacheKey = key
		return p.cells
	}
	if p.pending != key {
		p.pending = key
		spawn := p.spawn
		if spawn == nil {
			spawn = func(f func()) { go f() }
		}
		spawn(func() {
			cells := key.snap.Cells(nil, key.first, key.per, key.n)
			p.queue(func() {
				if p.pending == key {
					p.cells, p.cacheKey = cells, key
				}
			})
		})
	}
	if p.cacheKey.n == key.n {
		return p.cells // stale but the right shape
	}
	return nil
}

// sparkLevels draw a small chart in one text line.
var sparkLevels = []rune("▁▂▃▄▅▆▇█")

// spark draws the last width values as a one-line chart scaled to their
// maximum.
func spark(values []uint64, width int) string {
	if len(values) > width {
		values = values[len(values)-width:]
	}
	var top uint64
	for _, v := range values {
		top = max(top, v)
	}
	out := make([]rune, len(values))
	for i, v := range values {
		lvl := 0
		if top > 0 {
			lvl = int(v * uint64(len(sparkLevels)-1) / top)
		}
		out[i] = sparkLevels[lvl]
	}
	return string(out)
}

// drawHistogram shows the object-size histogram of snap (HPSO: one run per
// object) as horizontal bars.
func (p *heapMap) drawHistogram(screen tcell.Screen, snap *heap.Snapshot, x, y, w, h int) {
	if h <= 0 {
		return
	}
	if snap.Type != ddm.TypeHPSO && !p.native {
		tview.Print(screen, "[::d]asking for object boundaries (HPSO); the histogram follows the next GC (g)", x, y, w, tview.AlignLeft, tcell.ColorDefault)
		return
	}
	buckets := snap.SizeHistogram()
	var top, objects, bytes uint64
	for _, b := range buckets {
		top = max(top, b.Count)
		objects += b.Count
		bytes += b.Bytes
	}
	what := "objects"
	if p.native {
		what = "allocations"
	}
	tview.Print(screen, fmt.Sprintf("[::b]%s by size[::-]  %s %s, %s", what, groupDigits(objects), what, humanBytes(bytes)), x, y, w, tview.AlignLeft, tcell.ColorDefault)
	const labelW, countW = 12, 22
	barW := max(1, w-labelW-countW)
	for i, b := range buckets {
		if 1+i >= h {
			break
		}
		n := 0
		if top > 0 {
			n = int(b.Count * uint64(barW) / top)
		}
		if b.Count > 0 && n == 0 {
			n = 1
		}
		line := fmt.Sprintf("%-*s", labelW, b.Label())
		tview.Print(screen, line, x, y+1+i, labelW, tview.AlignLeft, tcell.ColorDefault)
		tview.Print(screen, strings.Repeat("█", n), x+labelW, y+1+i, barW, tview.AlignLeft, p.pal.Accent())
		tview.Print(screen, fmt.Sprintf("%10s %10s", groupDigits(b.Count), humanBytes(b.Bytes)), x+labelW+barW, y+1+i, countW, tview.AlignRight, tcell.ColorDefault)
	}
}

// gcsSpanned counts the GCs from the history's first sample to its last,
// the first one included when it was a GC's report: the report asked for
// at connect (GC count 0) is not a GC, so the line agrees with the
// header's count.
func gcsSpanned(first, last monitor.HeapSample) int {
	n := last.GCCount - first.GCCount
	if first.GCCount > 0 {
		n++
	}
	return max(n, 0)
}
