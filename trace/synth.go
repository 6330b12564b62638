package trace

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"

	"github.com/ddmtui/ddmtui/internal/iocount"
)

// Synth describes a deterministic synthetic workload: a program of Methods
// methods with a layered call graph (a few popular utility methods, some
// directly and some mutually recursive methods), run by Threads threads that
// interleave, each starting inside a few frames entered before tracing began
// (so the trace has unmatched exits) and ending with calls still open. The
// same Synth always produces the same bytes.
type Synth struct {
	Seed     uint64
	Records  int // exact number of records
	Threads  int // default 4
	Methods  int // default 300
	MaxDepth int // default 40
	Version  int // default 3
	Clocks   Clocks
	// Streaming writes ART's streaming format (versions 2 and 3).
	Streaming bool
	// UnknownMethods leaves that many of the called methods out of the key.
	UnknownMethods int
	// Unroll is the per-mille share of exits written as exception unwinding.
	Unroll int
	// NamedThreads, when set, are the threads (ids and names) instead of
	// Threads generated ones: a simulator passes its VM's threads.
	NamedThreads []Thread
	// PID goes into the key's pid= option (default 4242).
	PID int
	// EntersAtStart writes, first, an entry for each frame on a thread's
	// stack when tracing begins, as ART does (its instrumentation reports
	// a method entry for every frame on the stack when method tracing is
	// enabled), so that no exit is unmatched; without it those frames'
	// exits come with an empty stack, as from a VM that does not (and as
	// the tests of that case want). The records count towards Records.
	EntersAtStart bool
}

func (s Synth) withDefaults() Synth {
	if len(s.NamedThreads) > 0 {
		s.Threads = len(s.NamedThreads)
	}
	if s.PID <= 0 {
		s.PID = 4242
	}
	if s.Threads <= 0 {
		s.Threads = 4
	}
	if s.Methods <= 0 {
		s.Methods = 300
	}
	if s.Methods < 8 {
		s.Methods = 8
	}
	if s.MaxDepth <= 0 {
		s.MaxDepth = 40
	}
	if s.Version == 0 {
		s.Version = 3
	}
	if s.Clocks == 0 {
		s.Clocks = CPUOnly
		if s.Version == 3 {
			s.Clocks = Dual
		}
	}
	if s.Version == 1 && s.Threads > 200 && len(s.NamedThreads) == 0 {
		s.Threads = 200
	}
	if s.UnknownMethods >= s.Methods {
		s.UnknownMethods = s.Methods - 1
	}
	return s
}

var (
	synthPackages = []string{"com.example.app", "com.example.app.ui", "com.example.app.data", "android.view", "android.os", "java.util", "java.lang", "kotlinx.coroutines"}
	synthClasses  = []string{"MainActivity", "FeedAdapter", "Repository", "View", "ViewGroup", "Handler", "Looper", "HashMap", "ArrayList", "String", "StringBuilder", "JsonReader", "ImageLoader", "Cache", "Parser", "Dispatcher", "TextView", "RecyclerView$ViewHolder", "Choreographer$FrameCallback", "Tree$Node"}
	synthNames    = []string{"<init>", "onCreate", "onBindViewHolder", "measure", "layout", "draw", "get", "put", "add", "hashCode", "equals", "append", "toString", "parse", "nextToken", "load", "decode", "dispatchMessage", "loop", "run", "invalidate", "compute", "visit", "resize"}
	synthSigs     = []string{"()V", "(I)I", "(Ljava/lang/Object;)Z", "(Ljava/lang/String;)Ljava/lang/StringBuilder;", "(II)V", "()Ljava/lang/String;", "(Landroid/os/Message;)V", "([BII)I", "(Landroid/graphics/Canvas;)V", "(J)V"}
)

// synthProgram is the generated method table and call graph.
type synthProgram struct {
	methods   []Method // every method; the last UnknownMethods are not in the key
	callees   [][]int
	recursive []bool
	roots     []int
}

func (s Synth) program(rng *rand.Rand) synthProgram {
	var p synthProgram
	n := s.Methods
	seen := make(map[string]bool, n)
	for i := range n {
		var m Method
		for attempt := 0; ; attempt++ {
			pkg := synthPackages[rng.IntN(len(synthPackages))]
			m = Method{
				Class:     pkg + "." + synthClasses[rng.IntN(len(synthClasses))],
				Name:      synthNames[rng.IntN(len(synthNames))],
				Signature: synthSigs[rng.IntN(len(synthSigs))],
			}
			if attempt > 3 {
				m.Name += strconv.Itoa(i)
			}
			k := m.Class + "." + m.Name + " " + m.Signature
			if !seen[k] {
				seen[k] = true
				break
			}
		}
		if s.Version == 3 {
			m.ID = uint32(i) << 2 // ART: index << 2; the first is printed as 0
			m.File = m.Class[lastDot(m.Class)+1:] + ".java"
		} else {
			m.ID = 0x70000000 + uint32(i)*0x28 // Dalvik: Method* pointers
			m.File = m.Class[lastDot(m.Class)+1:] + ".java"
			m.Line = 10 + rng.IntN(500)
		}
		p.methods = append(p.methods, m)
	}
	// Layered call graph: method i calls methods of later layers, plus a few
	// popular leaves; some methods recurse into themselves or an earlier one.
	p.callees = make([][]int, n)
	p.recursive = make([]bool, n)
	popular := n / 20
	for i := range n {
		fan := 1 + rng.IntN(6)
		if i > n*3/4 {
			fan = rng.IntN(2) // mostly leaves at the bottom
		}
		for range fan {
			var c int
			switch r := rng.IntN(10); {
			case r < 2 && popular > 0:
				c = n - 1 - rng.IntN(popular) // hot utilities
			case r < 3 && i > 0:
				c = rng.IntN(i) // back edge: mutual recursion
			default:
				c = min(n-1, i+1+rng.IntN(max(1, n/8)))
			}
			p.callees[i] = append(p.callees[i], c)
		}
		if rng.IntN(20) == 0 {
			p.recursive[i] = true
			p.callees[i] = append(p.callees[i], i)
		}
	}
	for i := range min(n, 12) {
		p.roots = append(p.roots, i)
	}
	return p
}

func lastDot(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '.' {
			return i
		}
	}
	return -1
}

// Header returns the header the workload is written with.
func (s Synth) Header() *Header {
	s = s.withDefaults()
	rng := rand.New(rand.NewPCG(s.Seed, s.Seed^0x5eed))
	p := s.program(rng)
	return s.header(&p)
}

func (s Synth) threadIDs() []uint16 {
	ids := make([]uint16, s.Threads)
	if len(s.NamedThreads) > 0 {
		for i, t := range s.NamedThreads {
			ids[i] = uint16(t.ID) // records carry 16 bits (spec §2.2)
		}
		return ids
	}
	for i := range ids {
		if s.Version == 1 {
			ids[i] = uint16(1 + i) // Dalvik thread ids
		} else {
			ids[i] = uint16(4242 + 7*i) // Linux tids, < 32768 for dmtracedump
		}
	}
	return ids
}

func (s Synth) header(p *synthProgram) *Header {
	h := &Header{Version: s.Version, Clocks: s.Clocks, Streaming: s.Streaming, StartTime: 1474470000123456}
	h.Options = []Option{
		{"data-file-overflow", "false"},
		{"clock", s.Clocks.String()},
		{"num-method-calls", strconv.Itoa(s.Records)},
		{"clock-call-overhead-nsec", "1200"},
		{"vm", "art"},
		{"pid", strconv.Itoa(s.PID)},
	}
	if len(s.NamedThreads) > 0 {
		h.Threads = append(h.Threads, s.NamedThreads...)
		h.Methods = p.methods[:len(p.methods)-s.UnknownMethods]
		return h
	}
	names := []string{"main", "RenderThread", "AsyncTask #1", "OkHttp Dispatcher", "FinalizerDaemon", "Binder:4242_1"}
	for i, id := range s.threadIDs() {
		name := "Thread-" + strconv.Itoa(i)
		if i < len(names) {
			name = names[i]
		}
		h.Threads = append(h.Threads, Thread{ID: uint32(id), Name: name})
	}
	h.Methods = p.methods[:len(p.methods)-s.UnknownMethods]
	return h
}

type synthThread struct {
	id     uint16
	stack  []int
	hidden []int // frames entered before tracing; their exits are unmatched
	cpu    uint32
}

// Generate calls emit for each event in order.
func (s Synth) Generate(emit func(Event) error) error {
	s = s.withDefaults()
	rng := rand.New(rand.NewPCG(s.Seed, s.Seed^0x5eed))
	p := s.program(rng)
	threads := make([]*synthThread, s.Threads)
	for i, id := range s.threadIDs() {
		th := &synthThread{id: id, cpu: uint32(rng.IntN(50))}
		for range 1 + rng.IntN(3) {
			th.hidden = append(th.hidden, p.roots[rng.IntN(len(p.roots))])
		}
		threads[i] = th
	}
	var wall uint32 = 5
	n := 0
	if s.EntersAtStart {
		for _, th := range threads {
			for _, m := range th.hidden {
				if n == s.Records {
					break
				}
				ev := Event{Thread: th.id, Action: Enter, MethodID: p.methods[m].ID, Time: [2]uint32{th.cpu, wall}}
				if !s.Clocks.Has(ClockCPU) {
					ev.Time[ClockCPU] = 0
				}
				if !s.Clocks.Has(ClockWall) {
					ev.Time[ClockWall] = 0
				}
				if err := emit(ev); err != nil {
					return err
				}
				th.stack = append(th.stack, m)
				n++
			}
			th.hidden = nil
		}
	}
	cur := threads[0]
	for ; n < s.Records; n++ {
		if len(threads) > 1 && rng.IntN(24) == 0 {
			cur = threads[rng.IntN(len(threads))]
			wall += uint32(rng.IntN(40)) // scheduling gap
		}
		step := uint32(1 + rng.IntN(8))
		if rng.IntN(50) == 0 {
			step += uint32(rng.IntN(400))
		}
		cur.cpu += step
		wall += step
		if rng.IntN(30) == 0 {
			wall += uint32(rng.IntN(2000)) // blocked: wall time passes, CPU time does not
		}
		ev := Event{Thread: cur.id, Time: [2]uint32{cur.cpu, wall}}
		depth := len(cur.stack)
		switch {
		case depth == 0 && len(cur.hidden) > 0 && rng.IntN(8) == 0:
			m := cur.hidden[len(cur.hidden)-1]
			cur.hidden = cur.hidden[:len(cur.hidden)-1]
			ev.MethodID, ev.Action = p.methods[m].ID, Exit
		case depth == 0:
			m := p.roots[rng.IntN(len(p.roots))]
			cur.stack = append(cur.stack, m)
			ev.MethodID, ev.Action = p.methods[m].ID, Enter
		default:
			top := cur.stack[depth-1]
			callees := p.callees[top]
			// Fewer calls the deeper we are, so stacks stay realistic.
			pCall := 0.62 * float64(s.MaxDepth-depth) / float64(s.MaxDepth)
			if depth < s.MaxDepth && len(callees) > 0 && rng.Float64() < pCall {
				c := callees[rng.IntN(len(callees))]
				cur.stack = append(cur.stack, c)
				ev.MethodID, ev.Action = p.methods[c].ID, Enter
			} else {
				cur.stack = cur.stack[:depth-1]
				ev.MethodID, ev.Action = p.methods[top].ID, Exit
				if s.Unroll > 0 && rng.IntN(1000) < s.Unroll {
					ev.Action = Unroll
				}
			}
		}
		if !s.Clocks.Has(ClockCPU) {
			ev.Time[ClockCPU] = 0
		}
		if !s.Clocks.Has(ClockWall) {
			ev.Time[ClockWall] = 0
		}
		if err := emit(ev); err != nil {
			return err
		}
	}
	return nil
}

// Trace generates the workload in memory.
func (s Synth) Trace() (*Trace, error) {
	t := &Trace{Header: *s.Header()}
	t.Events = make([]Event, 0, max(0, s.Records))
	err := s.Generate(func(ev Event) error {
		t.Events = append(t.Events, ev)
		return nil
	})
	return t, err
}

// WriteTo streams the workload as a trace file to w without holding the
// events in memory.
func (s Synth) WriteTo(w io.Writer) (int64, error) {
	cw := &iocount.Writer{W: w}
	wr, err := NewWriter(cw, s.Header())
	if err != nil {
		return cw.N, err
	}
	if err := s.Generate(wr.WriteEvent); err != nil {
		return cw.N, fmt.Errorf("synth: %w", err)
	}
	err = wr.Close()
	return cw.N, err
}
