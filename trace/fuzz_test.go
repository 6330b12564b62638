package trace

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the reader and profiler. It must never
// panic, and whenever a profile comes out, its numbers must be consistent:
// see checkProfileInvariants. Seeds: testdata/fuzz/FuzzParse and f.Add below.
func FuzzParse(f *testing.F) {
	f.Add(specExampleBytes(f))
	f.Add(must(edgeCaseTrace().MarshalBinary()))
	for _, s := range []Synth{
		{Seed: 1, Records: 60, Version: 1, Threads: 2, Methods: 10},
		{Seed: 2, Records: 60, Version: 2, Threads: 2, Methods: 10, UnknownMethods: 2},
		{Seed: 3, Records: 60, Version: 3, Threads: 2, Methods: 10, Streaming: true},
	} {
		f.Add(must(must(s.Trace()).MarshalBinary()))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := Limits{MaxStackDepth: 512, MaxKeyBytes: 1 << 16, MaxMethods: 4096}
		rd, err := NewReader(bytes.NewReader(data), lim)
		if err != nil {
			return
		}
		var calls int64
		p, err := Build(rd, BuildOptions{Limits: lim, CallTree: true, CallIndex: true, OnCall: func(c *Call) {
			calls++
			for k := range 2 {
				if c.Exit[k] < c.Entry[k] {
					t.Fatalf("call ends before it starts: %+v", c)
				}
			}
		}})
		if err != nil {
			return
		}
		checkProfileInvariants(t, p, calls)
		// Every export works on whatever parsed.
		if err := WriteJSON(io.Discard, p); err != nil {
			t.Fatal(err)
		}
		if err := WriteFolded(io.Discard, p, p.Clocks.First()); err != nil {
			t.Fatal(err)
		}
		if err := WriteDOT(io.Discard, p, DOTOptions{ThresholdPercent: -1}); err != nil {
			t.Fatal(err)
		}
		// The call trees: valid JSON both ways, and the flat profile's sums.
		for _, bu := range []bool{false, true} {
			var tb bytes.Buffer
			if err := WriteTreeJSON(&tb, p, TreeJSONOptions{Clock: p.Clocks.First(), BottomUp: bu}); err != nil || !json.Valid(tb.Bytes()) {
				t.Fatalf("tree JSON: %v", err)
			}
		}
		checkTreesAgainstGraph(t, p)
		for i := range p.Threads {
			if ix := p.Threads[i].Index; ix != nil {
				checkIndex(t, ix)
			}
		}
		b, _ := json.Marshal(p.JSON())
		if !json.Valid(b) {
			t.Fatal("invalid JSON")
		}
	})
}

// checkProfileInvariants verifies what the definitions guarantee (spec §4):
// exclusive ≤ inclusive per method; the edges into a method carry exactly
// its calls and recursive calls; every µs between a thread's first and last
// record is self time of exactly one method or the top level; thread
// profiles sum to the whole; call trees agree with the method table.
func checkProfileInvariants(t *testing.T, p *Profile, reportedCalls int64) {
	t.Helper()
	var records, calls int64
	for _, tp := range p.Threads {
		records += tp.Records
		checkGraph(t, p, &tp.Graph, "thread")
		if tp.Tree != nil && tp.Records > 0 {
			var self [2]uint64
			var treeCalls int64
			for i := range int32(tp.Tree.Len()) {
				self[0] += tp.Tree.Self(i, 0)
				self[1] += tp.Tree.Self(i, 1)
				treeCalls += tp.Tree.Calls(i)
			}
			var methodCalls int64
			for _, ms := range tp.Methods {
				methodCalls += ms.Calls
			}
			if self != tp.Total() || treeCalls != methodCalls {
				t.Fatalf("thread %d: tree self %v calls %d; traced %v, calls %d", tp.ID, self, treeCalls, tp.Total(), methodCalls)
			}
		}
	}
	if records != p.Records {
		t.Fatalf("threads hold %d records, profile %d", records, p.Records)
	}
	checkGraph(t, p, &p.All, "all")
	for _, ms := range p.All.Methods {
		calls += ms.Calls
	}
	if calls != reportedCalls {
		t.Fatalf("%d calls counted, %d reported to OnCall", calls, reportedCalls)
	}
	// Threads add up to the whole.
	sum := map[int32]Stats{}
	for _, tp := range p.Threads {
		for _, ms := range tp.Methods {
			s := sum[ms.Index]
			addStats(&s, &ms.Stats)
			sum[ms.Index] = s
		}
	}
	for _, ms := range p.All.Methods {
		if sum[ms.Index] != ms.Stats {
			t.Fatalf("%s: threads sum to %+v, all %+v", p.Name(ms.Index), sum[ms.Index], ms.Stats)
		}
	}
}

func checkGraph(t *testing.T, p *Profile, g *Graph, what string) {
	t.Helper()
	var self [2]uint64
	for _, ms := range g.Methods {
		for c := range 2 {
			self[c] += ms.Exclusive[c]
			if ms.Index != TopLevel && ms.Exclusive[c] > ms.Inclusive[c] {
				t.Fatalf("%s: %s clock %d: exclusive %d > inclusive %d", what, p.Name(ms.Index), c, ms.Exclusive[c], ms.Inclusive[c])
			}
		}
		if ms.RecursiveCalls > ms.Calls {
			t.Fatalf("%s: %s: %d recursive of %d calls", what, p.Name(ms.Index), ms.RecursiveCalls, ms.Calls)
		}
		var in, rin int64
		for _, e := range g.Callers(ms.Index) {
			in += e.Calls
			rin += e.RecursiveCalls
		}
		if ms.Index != TopLevel && (in != ms.Calls || rin != ms.RecursiveCalls) {
			t.Fatalf("%s: %s: edges bring %d calls (%d recursive), method has %d (%d)", what, p.Name(ms.Index), in, rin, ms.Calls, ms.RecursiveCalls)
		}
	}
	if self != g.Total() {
		t.Fatalf("%s: exclusive times sum to %v, traced time %v", what, self, g.Total())
	}
}
