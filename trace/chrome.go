package trace

import (
	"encoding/json"
	"io"
	"slices"
	"strconv"

	"github.com/ddmtui/ddmtui/chrometrace"
)

// ChromeWriter collects the calls of a trace (through BuildOptions.OnCall)
// and writes them as Chrome trace-event JSON, which Perfetto and
// chrome://tracing open: one complete ("X") event per call with pid, tid, ts
// and dur in µs, and thread_name metadata. Timestamps are wall time when the
// trace has it, else the single clock; with a dual clock each event's args
// carry the thread-CPU duration too.
//
// Calls are written sorted per thread by (start, longer first, later exit
// first), so importers that nest X events by file order and those that sort
// them agree. That needs the calls in memory: 32 bytes per call.
type ChromeWriter struct {
	hdr   *Header
	calls []chromeCall
}

type chromeCall struct {
	ts, dur uint64
	cpuDur  uint64
	method  int32
	thread  uint32
}

// NewChromeWriter returns a collector for the trace with header h; pass its
// Collect method as BuildOptions.OnCall.
func NewChromeWriter(h *Header) *ChromeWriter { return &ChromeWriter{hdr: h} }

// Collect records one call; it is a BuildOptions.OnCall function.
func (cw *ChromeWriter) Collect(c *Call) {
	tc := ClockWall
	if !cw.hdr.Clocks.Has(ClockWall) {
		tc = ClockCPU
	}
	cw.calls = append(cw.calls, chromeCall{
		ts: c.Entry[tc], dur: c.Exit[tc] - c.Entry[tc], cpuDur: c.Exit[ClockCPU] - c.Entry[ClockCPU],
		method: c.Method, thread: c.Thread,
	})
}

// WriteTo writes the JSON document (through chrometrace, the one writer of
// the format). p supplies method and thread names.
func (cw *ChromeWriter) WriteTo(w io.Writer, p *Profile) (int64, error) {
	pid := 1
	if v, ok := cw.hdr.Option("pid"); ok {
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			pid = n
		}
	}
	pidText := strconv.Itoa(pid)
	dual := cw.hdr.Clocks == Dual

	names := make([][]byte, len(p.Methods))
	sigs := make([][]byte, len(p.Methods))
	for i := range p.Methods {
		names[i], _ = json.Marshal(p.Name(int32(i)))
		sigs[i], _ = json.Marshal(p.Methods[i].Signature)
	}
	// Stable sort of the collected (exit-ordered) calls: per thread, by
	// start, longer first, and for equal start and length the one that
	// exited later (the outer call) first.
	order := make([]int32, len(cw.calls))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		ca, cb := &cw.calls[a], &cw.calls[b]
		switch {
		case ca.thread != cb.thread:
			return int(ca.thread) - int(cb.thread)
		case ca.ts != cb.ts:
			if ca.ts < cb.ts {
				return -1
			}
			return 1
		case ca.dur != cb.dur:
			if ca.dur > cb.dur {
				return -1
			}
			return 1
		}
		return int(b - a)
	})

	clockName, _ := json.Marshal(cw.hdr.Clocks.String())
	doc := chrometrace.NewWriter(w, append(append([]byte(`{"producer":"ddmtui","clock":`), clockName...), '}'))
	procName := "dmtrace"
	if v, ok := cw.hdr.Option("vm"); ok {
		procName = v + " pid " + pidText
	}
	pn, _ := json.Marshal(procName)
	ev := make([]byte, 0, 256)
	ev = append(append(append(ev, `{"name":"process_name","ph":"M","pid":`+pidText+`,"tid":0,"args":{"name":`...), pn...), "}}"...)
	doc.Raw(ev)
	for i := range p.Threads {
		tp := &p.Threads[i]
		if tp.Records == 0 {
			continue
		}
		name := tp.Name
		if name == "" {
			name = "thread " + strconv.FormatUint(uint64(tp.ID), 10)
		}
		tn, _ := json.Marshal(name)
		ev = append(ev[:0], `{"name":"thread_name","ph":"M","pid":`+pidText+`,"tid":`...)
		ev = strconv.AppendUint(ev, uint64(tp.ID&0xFFFF), 10)
		ev = append(append(append(ev, `,"args":{"name":`...), tn...), "}}"...)
		doc.Raw(ev)
	}
	for _, k := range order {
		c := &cw.calls[k]
		ev = append(append(ev[:0], `{"name":`...), names[c.method]...)
		ev = append(ev, `,"cat":"method","ph":"X","pid":`+pidText+`,"tid":`...)
		ev = strconv.AppendUint(ev, uint64(c.thread), 10)
		ev = append(ev, `,"ts":`...)
		ev = strconv.AppendUint(ev, c.ts, 10)
		ev = append(ev, `,"dur":`...)
		ev = strconv.AppendUint(ev, c.dur, 10)
		ev = append(append(ev, `,"args":{"signature":`...), sigs[c.method]...)
		if dual {
			ev = append(ev, `,"cpu_dur_us":`...)
			ev = strconv.AppendUint(ev, c.cpuDur, 10)
		}
		doc.Raw(append(ev, "}}"...))
	}
	return doc.Close()
}
