package trace

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// roundTripCases are every version, clock and layout the writer produces.
func roundTripCases() []Synth {
	var cases []Synth
	for _, c := range []struct {
		version   int
		clocks    Clocks
		streaming bool
	}{
		{1, CPUOnly, false}, {1, WallOnly, false},
		{2, CPUOnly, false}, {2, WallOnly, false},
		{3, CPUOnly, false}, {3, WallOnly, false}, {3, Dual, false},
		{2, CPUOnly, true}, {2, WallOnly, true}, {3, Dual, true},
	} {
		cases = append(cases, Synth{Seed: uint64(10*c.version) + uint64(c.clocks), Records: 3000, Version: c.version,
			Clocks: c.clocks, Streaming: c.streaming, Threads: 3, Methods: 60, UnknownMethods: 2, Unroll: 20})
	}
	return cases
}

func TestRoundTripEveryVersionAndClock(t *testing.T) {
	for _, s := range roundTripCases() {
		name := fmt.Sprintf("v%d-%s-streaming=%v", s.Version, s.Clocks, s.Streaming)
		t.Run(name, func(t *testing.T) {
			model, err := s.Trace()
			if err != nil {
				t.Fatal(err)
			}
			b, err := model.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			got, ws, err := Decode(bytes.NewReader(b), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if ws.Count(WarnKey)+ws.Count(WarnHeader)+ws.Count(WarnTruncatedData) != 0 {
				t.Errorf("warnings on a generated file: %v", ws.List)
			}
			if got.Version != s.Version || got.Clocks != s.Clocks || got.Streaming != s.Streaming || got.StartTime != model.StartTime {
				t.Errorf("header: version %d clocks %v streaming %v start %d", got.Version, got.Clocks, got.Streaming, got.StartTime)
			}
			gotThreads := slices.Clone(got.Threads)
			if s.Streaming {
				// Announced in order of first use.
				slices.SortFunc(gotThreads, func(a, b Thread) int { return int(a.ID) - int(b.ID) })
			}
			if !reflect.DeepEqual(gotThreads, model.Threads) {
				t.Errorf("threads: got %v want %v", got.Threads, model.Threads)
			}
			if !reflect.DeepEqual(got.Options, model.Options) {
				t.Errorf("options: got %v want %v", got.Options, model.Options)
			}
			if s.Streaming {
				// Only the methods that are used are announced, in order of use.
				for _, m := range got.Methods {
					if !slices.Contains(model.Methods, m) {
						t.Errorf("streaming method %+v not in the model", m)
					}
				}
				if len(got.Methods) < len(model.Methods)/2 {
					t.Errorf("only %d of %d methods announced", len(got.Methods), len(model.Methods))
				}
			} else if !reflect.DeepEqual(got.Methods, model.Methods) {
				t.Errorf("methods differ: got %d, want %d", len(got.Methods), len(model.Methods))
			}
			if len(got.Events) != len(model.Events) {
				t.Fatalf("%d events, want %d", len(got.Events), len(model.Events))
			}
			for i := range got.Events {
				if got.Events[i] != model.Events[i] {
					t.Fatalf("event %d: got %+v want %+v", i, got.Events[i], model.Events[i])
				}
			}
			// Encoding the decoded trace again gives the same bytes.
			if !s.Streaming {
				again, err := got.MarshalBinary()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(again, b) {
					t.Error("re-encoding the decoded trace changed its bytes")
				}
			}
		})
	}
}

// TestProfileSameAcrossLayouts: the same events give the same profile in
// every layout that can hold their clocks.
func TestProfileSameAcrossLayouts(t *testing.T) {
	base := Synth{Seed: 77, Records: 5000, Threads: 3, Methods: 50}
	model, err := base.Trace()
	if err != nil {
		t.Fatal(err)
	}
	profileOf := func(h Header) *Profile {
		t.Helper()
		tr := &Trace{Header: h, Events: model.Events}
		b, err := tr.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		p, err := ReadProfile(bytes.NewReader(b), BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	ref := profileOf(model.Header)
	variants := map[string]Header{}
	wide := model.Header
	wide.RecordSize, wide.DataOffset = 22, 48 // extra bytes per record and in the header
	variants["v3 record size 22, offset 48"] = wide
	stream := model.Header
	stream.Streaming = true
	variants["streaming"] = stream
	for name, h := range variants {
		p := profileOf(h)
		if !reflect.DeepEqual(byName(p), byName(ref)) {
			t.Errorf("%s: profile differs from the plain file's", name)
		}
	}
}

// namedProfile is a profile keyed by method names instead of indexes, which
// differ between layouts (a streaming trace lists methods in order of use).
type namedProfile struct {
	Methods map[string]Stats
	Edges   map[[2]string]Edge
}

func byName(p *Profile) namedProfile {
	np := namedProfile{Methods: map[string]Stats{}, Edges: map[[2]string]Edge{}}
	name := func(i int32) string { return p.Name(i) + " " + p.Methods[i].Signature }
	for _, ms := range p.All.Methods {
		np.Methods[name(ms.Index)] = ms.Stats
	}
	for _, e := range p.All.Edges {
		k := [2]string{name(e.Caller), name(e.Callee)}
		e.Caller, e.Callee = 0, 0
		np.Edges[k] = e
	}
	return np
}

func TestSplitKeyAndData(t *testing.T) {
	b := specExampleBytes(t)
	key, data := b[:317], b[317:]
	p, err := ReadProfileSplit(bytes.NewReader(key), bytes.NewReader(data), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := ReadProfile(bytes.NewReader(b), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.All.Methods, whole.All.Methods) || !reflect.DeepEqual(p.All.Edges, whole.All.Edges) {
		t.Fatal("split profile differs from the single file's")
	}
	// Offsets in warnings are relative to the data file.
	if len(p.Warnings.List) != 1 || p.Warnings.List[0].Part != "data" || p.Warnings.List[0].Offset != 32+5*14 {
		t.Fatalf("warning: %v", p.Warnings.List)
	}
	if whole.Warnings.List[0].Offset != 317+32+5*14 {
		t.Fatalf("single-file warning offset: %v", whole.Warnings.List)
	}
}

func TestWriterRejectsWhatItCannotEncode(t *testing.T) {
	m := []Method{{ID: 4, Class: "a.A", Name: "f", Signature: "()V"}}
	cases := map[string]struct {
		h  Header
		ev *Event
	}{
		"dual clock in version 2": {h: Header{Version: 2, Clocks: Dual}},
		"version 4":               {h: Header{Version: 4}},
		"v3 dual record size 10":  {h: Header{Version: 3, Clocks: Dual, RecordSize: 10}},
		"v2 record size 14":       {h: Header{Version: 2, RecordSize: 14}},
		"data offset 10":          {h: Header{Version: 2, DataOffset: 10}},
		"tab in a class":          {h: Header{Version: 2, Methods: []Method{{ID: 4, Class: "a\tb"}}}},
		"newline in a thread":     {h: Header{Version: 2, Threads: []Thread{{1, "a\nb"}}}},
		"action bits in an id":    {h: Header{Version: 2, Methods: []Method{{ID: 5, Class: "a"}}}},
		"clock option disagrees":  {h: Header{Version: 2, Clocks: CPUOnly, Options: []Option{{"clock", "wall"}}}},
		"option key with =":       {h: Header{Version: 2, Options: []Option{{"a=b", "c"}}}},
		"v1 thread 300":           {h: Header{Version: 1, Methods: m}, ev: &Event{Thread: 300, MethodID: 4}},
		"streaming thread 0":      {h: Header{Version: 2, Streaming: true, Methods: m}, ev: &Event{Thread: 0, MethodID: 4}},
		"event id with bits":      {h: Header{Version: 2, Methods: m}, ev: &Event{Thread: 1, MethodID: 6}},
	}
	for name, c := range cases {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, &c.h)
		if err == nil && c.ev != nil {
			err = w.WriteEvent(*c.ev)
		}
		if !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: got %v, want ErrInvalid", name, err)
		}
	}
}

func TestSynthIsDeterministicAndRealistic(t *testing.T) {
	s := Synth{Seed: 9, Records: 20000}
	var a, b bytes.Buffer
	if _, err := s.WriteTo(&a); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("same seed, different bytes")
	}
	other := Synth{Seed: 10, Records: 20000}
	var c bytes.Buffer
	other.WriteTo(&c)
	if bytes.Equal(a.Bytes(), c.Bytes()) {
		t.Fatal("different seeds, same bytes")
	}
	tr, _ := s.Trace()
	mem, _ := tr.MarshalBinary()
	if !bytes.Equal(mem, a.Bytes()) {
		t.Fatal("Trace and WriteTo disagree")
	}
	p, err := ReadProfile(bytes.NewReader(a.Bytes()), BuildOptions{CallTree: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.Records != 20000 {
		t.Fatalf("%d records", p.Records)
	}
	// The workload has what the tests rely on: several threads, unmatched
	// exits, recursion, calls open at the end and a real depth.
	var recursive int64
	for _, ms := range p.All.Methods {
		recursive += ms.RecursiveCalls
	}
	maxDepth := 0
	for _, tp := range p.Threads {
		for n := range int32(tp.Tree.Len()) {
			maxDepth = max(maxDepth, len(tp.Tree.Path(n)))
		}
	}
	active := 0
	for _, tp := range p.Threads {
		if tp.Records > 1000 {
			active++
		}
	}
	if active < 3 || p.Warnings.Count(WarnUnmatchedExit) == 0 || recursive == 0 || maxDepth < 8 {
		t.Fatalf("workload too simple: %d busy threads, %d unmatched exits, %d recursive calls, depth %d",
			active, p.Warnings.Count(WarnUnmatchedExit), recursive, maxDepth)
	}
}

// Boundaries of the writer: a 16-bit thread id of 0xFFFF decodes, a record
// size of 0xFFFF is written, action 3 may be written, and a streaming
// method line of exactly 65535 bytes (newline included) fits its packet.
func TestWriterBoundaries(t *testing.T) {
	tr := &Trace{Header: Header{Version: 2, Methods: []Method{{ID: 4, Class: "a.A"}}},
		Events: []Event{{0xFFFF, Enter, 4, [2]uint32{1}}, {0xFFFF, ActionReserved, 4, [2]uint32{2}}}}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	back, ws, err := Decode(bytes.NewReader(b), Limits{})
	if err != nil || len(back.Events) != 2 || back.Events[0].Thread != 0xFFFF || back.Events[1].Action != ActionReserved || ws.Count(WarnReservedAction) != 0 {
		t.Fatalf("thread 0xFFFF and action 3: %v %+v", err, back)
	}
	big := &Trace{Header: Header{Version: 3, RecordSize: 0xFFFF, Methods: []Method{{ID: 4, Class: "a.A"}}},
		Events: []Event{{1, Enter, 4, [2]uint32{1, 2}}}}
	if b, err = big.MarshalBinary(); err != nil {
		t.Fatalf("record size 0xFFFF: %v", err)
	}
	if back, _, err = Decode(bytes.NewReader(b), Limits{}); err != nil || back.RecordSize != 0xFFFF || len(back.Events) != 1 {
		t.Fatalf("record size 0xFFFF read back: %v", err)
	}
	for _, c := range []struct {
		classLen int
		ok       bool
	}{{65530, true}, {65531, false}} {
		h := &Header{Version: 2, Streaming: true, Methods: []Method{{ID: 4, Class: strings.Repeat("a", c.classLen)}}}
		var out bytes.Buffer
		w, err := NewWriter(&out, h)
		if err != nil {
			t.Fatal(err)
		}
		err = w.WriteEvent(Event{1, Enter, 4, [2]uint32{1}})
		if (err == nil) != c.ok || !c.ok && !errors.Is(err, ErrInvalid) {
			t.Errorf("method line of %d bytes: %v", 5+c.classLen, err)
		}
	}
}

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// A streaming method packet that cannot be written is WriteEvent's error.
func TestWriterStreamingMethodPacketError(t *testing.T) {
	boom := errors.New("boom")
	h := &Header{Version: 2, Streaming: true, Methods: []Method{{ID: 4, Class: strings.Repeat("a", 65530)}}}
	w, err := NewWriter(failingWriter{boom}, h)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteEvent(Event{1, Enter, 4, [2]uint32{1}}); !errors.Is(err, boom) {
		t.Errorf("WriteEvent: %v, want boom", err)
	}
}
