package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// v5Example is a two-method, one-thread trace whose format V2 bytes are
// written out by hand in v5ExampleBytes.
func v5Example() *Trace {
	return &Trace{
		Header: Header{Clocks: Dual, StartTime: 1000,
			Options: []Option{{Key: "vm", Value: "art"}},
			Threads: []Thread{{ID: 4242, Name: "main"}},
			Methods: []Method{
				{ID: 0, Class: "A", Name: "f", Signature: "()V", File: "A.java"},
				{ID: 4, Class: "B", Name: "g", Signature: "(I)I", File: "B.java"},
			}},
		Events: []Event{
			{Thread: 4242, Action: Enter, MethodID: 0, Time: [2]uint32{10, 12}},
			{Thread: 4242, Action: Enter, MethodID: 4, Time: [2]uint32{20, 25}},
			{Thread: 4242, Action: Exit, MethodID: 4, Time: [2]uint32{35, 42}},
			{Thread: 4242, Action: Exit, MethodID: 0, Time: [2]uint32{60, 70}},
		},
	}
}

// joinParts joins byte slices and strings.
func joinParts(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch v := p.(type) {
		case []byte:
			b = append(b, v...)
		case string:
			b = append(b, v...)
		default:
			panic("joinParts: bad part")
		}
	}
	return b
}

// v5ExampleBytes: every byte of v5Example as ART's TraceWriter lays it out
// (trace.cc: header, RecordThreadInfo, RecordMethodInfoV2,
// FlushEntriesFormatV2 with EncodeEventBlockHeader, the summary packet).
func v5ExampleBytes() []byte {
	return joinParts(
		// header: "SLOW", version 5, start 1,000,000 ns, zeros to 32 bytes
		[]byte{0x53, 0x4C, 0x4F, 0x57, 0x05, 0x00, 0x40, 0x42, 0x0F, 0, 0, 0, 0, 0},
		make([]byte, 18),
		// thread packet: type 0, tid 4242, name length 4
		[]byte{0x00, 0x92, 0x10, 0x00, 0x00, 0x04, 0x00}, "main",
		// method packets: type 1, pointer, line length
		[]byte{0x01, 0, 0, 0, 0, 0, 0x70, 0, 0, 0x0F, 0x00}, "A\tf\t()V\tA.java\n",
		[]byte{0x01, 0x20, 0, 0, 0, 0, 0x70, 0, 0, 0x10, 0x00}, "B\tg\t(I)I\tB.java\n",
		// entries block: type 2, tid 4242, 4 records (u3), 29 bytes (u4)
		[]byte{0x02, 0x92, 0x10, 0x00, 0x00, 0x04, 0x00, 0x00, 0x1D, 0x00, 0x00, 0x00},
		// enter A: SLEB 0x700000000000, wall +12000 ns, cpu +10000 ns
		[]byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x1C, 0xE0, 0x5D, 0x90, 0x4E},
		// enter B: +0x20, wall +13000, cpu +10000
		[]byte{0x20, 0xC8, 0x65, 0x90, 0x4E},
		// exit B: +1 (action 1), wall +17000, cpu +15000
		[]byte{0x01, 0xE8, 0x84, 0x01, 0x98, 0x75},
		// exit A: -32 (back to A's pointer, action 1), wall +28000, cpu +25000
		[]byte{0x60, 0xE0, 0xDA, 0x01, 0xA8, 0xC3, 0x01},
		// summary packet: type 3, u2 length 34
		[]byte{0x03, 0x22, 0x00}, "*version\n5\nclock=dual\nvm=art\n*end\n",
	)
}

func TestEncodeV2Vector(t *testing.T) {
	var buf bytes.Buffer
	if err := EncodeV2(&buf, v5Example(), V2Options{}); err != nil {
		t.Fatal(err)
	}
	want := v5ExampleBytes()
	if !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("EncodeV2:\n got % x\nwant % x", buf.Bytes(), want)
	}
}

func TestReadV2Vector(t *testing.T) {
	tr, ws, err := Decode(bytes.NewReader(v5ExampleBytes()), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if ws.Total() != 0 {
		t.Errorf("warnings: %v", ws.List)
	}
	want := v5Example()
	if tr.Version != 5 || tr.DataVersion != 5 || tr.Clocks != Dual || tr.StartTime != 1000 || tr.Streaming {
		t.Errorf("header: %+v", tr.Header)
	}
	if len(tr.Methods) != 2 || tr.Methods[1] != want.Methods[1] || tr.Methods[0] != want.Methods[0] {
		t.Errorf("methods: %+v", tr.Methods)
	}
	if len(tr.Threads) != 1 || tr.Threads[0] != want.Threads[0] {
		t.Errorf("threads: %+v", tr.Threads)
	}
	if v, _ := tr.Option("vm"); v != "art" {
		t.Errorf("options: %+v", tr.Options)
	}
	if len(tr.Events) != len(want.Events) {
		t.Fatalf("events: %+v", tr.Events)
	}
	for i := range want.Events {
		if tr.Events[i] != want.Events[i] {
			t.Errorf("event %d: got %+v, want %+v", i, tr.Events[i], want.Events[i])
		}
	}
	p, err := ReadProfile(bytes.NewReader(v5ExampleBytes()), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := p.All.Stats(firstKeyMethod), p.All.Stats(firstKeyMethod+1)
	if a.Inclusive != [2]uint64{50, 58} || a.Exclusive != [2]uint64{35, 41} || b.Inclusive != [2]uint64{15, 17} || b.Exclusive != [2]uint64{15, 17} {
		t.Errorf("profile: A %+v, B %+v", a, b)
	}
	if tp := p.Thread(4242); tp == nil || tp.Name != "main" || tp.Records != 4 {
		t.Errorf("thread: %+v", tp)
	}
}

// v4ReaderBytes is a single-clock (wall) file as a streaming trace writes it:
// packets interleaved, a tid past 16 bits, two blocks of the same thread
// (deltas restart at each), a method pointer with no method packet, and the
// summary naming the clock at the end.
func v4ReaderBytes() []byte {
	return joinParts(
		[]byte{0x53, 0x4C, 0x4F, 0x57, 0xF4, 0x00, 0, 0, 0, 0, 0, 0, 0, 0}, make([]byte, 18),
		// thread 70000 (0x11170) "w"
		[]byte{0x00, 0x70, 0x11, 0x01, 0x00, 0x01, 0x00}, "w",
		// method at pointer 0x1000
		[]byte{0x01, 0x00, 0x10, 0, 0, 0, 0, 0, 0, 0x09, 0x00}, "C\th\t()V\t\n",
		// block 1: 2 records, 8 bytes: enter 0x1000 at 1000 ns; enter 0x2000 (unknown) at 3000 ns
		[]byte{0x02, 0x70, 0x11, 0x01, 0x00, 0x02, 0x00, 0x00, 0x08, 0x00, 0x00, 0x00},
		[]byte{0x80, 0x20, 0xE8, 0x07}, []byte{0x80, 0x20, 0xD0, 0x0F},
		// block 2: 2 records, 9 bytes: exit 0x2000 at 4000 ns (deltas restart:
		// +0x2001); exit 0x1000 at 9000 ns (-0x1000)
		[]byte{0x02, 0x70, 0x11, 0x01, 0x00, 0x02, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00},
		[]byte{0x81, 0xC0, 0x00, 0xA0, 0x1F}, []byte{0x80, 0x60, 0x88, 0x27},
		[]byte{0x03, 0x1B, 0x00}, "*version\n4\nclock=wall\n*end\n",
	)
}

func TestReadV4Streaming(t *testing.T) {
	p, err := ReadProfile(bytes.NewReader(v4ReaderBytes()), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Header.Version != 4 || p.Header.DataVersion != 0xF4 || !p.Header.Streaming || p.Clocks != WallOnly {
		t.Errorf("header: %+v", p.Header)
	}
	tp := p.Thread(70000)
	if tp == nil || tp.Name != "w" || tp.Records != 4 {
		t.Fatalf("thread: %+v", p.Threads)
	}
	c, u := p.All.Stats(firstKeyMethod), p.All.Stats(Unknown)
	// Times are µs: 1, 3, 4, 9 on the wall clock.
	if c.Inclusive[ClockWall] != 8 || c.Exclusive[ClockWall] != 7 || u.Inclusive[ClockWall] != 1 || c.Inclusive[ClockCPU] != 0 {
		t.Errorf("C %+v, unknown %+v", c, u)
	}
	if p.Warnings.Count(WarnUnknownMethod) != 1 || len(p.UnknownMethodIDs) != 1 || p.UnknownMethodIDs[0] != 0x2000 {
		t.Errorf("unknown: %v %v", p.Warnings.List, p.UnknownMethodIDs)
	}
}

func TestLEB128(t *testing.T) {
	for _, v := range []int64{0, 1, -1, 63, 64, -64, -65, 1 << 40, -(1 << 40), 1<<63 - 1, -1 << 63} {
		b := appendSleb128(nil, v)
		got, k := sleb128(b)
		if k != len(b) || got != v {
			t.Errorf("sleb %d: % x → %d (%d bytes)", v, b, got, k)
		}
		u := uint64(v)
		b = appendUleb128(nil, u)
		gu, k := uleb128(b)
		if k != len(b) || gu != u {
			t.Errorf("uleb %d: % x → %d (%d bytes)", u, b, gu, k)
		}
	}
	if _, k := uleb128([]byte{0x80, 0x80}); k != 0 {
		t.Errorf("cut uleb: k %d", k)
	}
	if _, k := sleb128(bytes.Repeat([]byte{0x80}, 11)); k != -1 {
		t.Errorf("long sleb: k %d", k)
	}
}

func TestV2RoundTripSynth(t *testing.T) {
	for _, s := range []Synth{
		{Seed: 5, Records: 20000, Version: 3, Threads: 3, Methods: 40},
		{Seed: 6, Records: 5000, Version: 2, Threads: 2, Methods: 20},
	} {
		tr := renumbered(must(s.Trace()))
		for _, streaming := range []bool{false, true} {
			var buf bytes.Buffer
			if err := EncodeV2(&buf, tr, V2Options{BlockRecords: 100, Streaming: streaming}); err != nil {
				t.Fatal(err)
			}
			pw := must(ReadProfile(bytes.NewReader(must(tr.MarshalBinary())), BuildOptions{}))
			pg, err := ReadProfile(bytes.NewReader(buf.Bytes()), BuildOptions{})
			if err != nil {
				t.Fatal(err)
			}
			wantVersion := VersionSingleClockV2
			if tr.Clocks == Dual {
				wantVersion = VersionDualClockV2
			}
			if pg.Header.Version != wantVersion || pg.Clocks != tr.Clocks {
				t.Errorf("version %d clocks %s", pg.Header.Version, pg.Clocks)
			}
			// A streaming file describes methods in the order they are first
			// used, so compare by name.
			if !reflect.DeepEqual(statsByName(pw, &pw.All), statsByName(pg, &pg.All)) {
				t.Errorf("synth %d streaming=%v: profiles differ", s.Seed, streaming)
			}
			for i := range pw.Threads {
				gt := pg.Thread(pw.Threads[i].ID)
				if gt == nil || gt.Name != pw.Threads[i].Name || !reflect.DeepEqual(statsByName(pw, &pw.Threads[i].Graph), statsByName(pg, &gt.Graph)) {
					t.Errorf("synth %d: thread %d differs", s.Seed, pw.Threads[i].ID)
				}
			}
			if pw.Records != pg.Records || pw.All.Total() != pg.All.Total() {
				t.Errorf("records %d/%d total %v/%v", pw.Records, pg.Records, pw.All.Total(), pg.All.Total())
			}
		}
	}
}

func TestReadV2Malformed(t *testing.T) {
	good := v5ExampleBytes()
	blockAt := bytes.Index(good, []byte{0x02, 0x92, 0x10})
	cases := []struct {
		name string
		data []byte
		err  error // nil: no error, but a truncation warning
	}{
		{"short header", good[:20], ErrTruncated},
		{"bad packet type", joinParts(good[:32], []byte{0x09}), ErrMalformed},
		{"block size too small", patch(good, blockAt+8, 0x03), ErrMalformed},
		{"block size too large", patch(good, blockAt+8, 0xFF), ErrMalformed},
		{"records overrun block", patch(good, blockAt+5, 0x05), ErrMalformed},
		{"leb longer than 10 bytes", joinParts(good[:blockAt], []byte{0x02, 1, 0, 0, 0, 1, 0, 0, 12, 0, 0, 0}, bytes.Repeat([]byte{0x80}, 12)), ErrMalformed},
		{"cut inside block", good[:blockAt+12+16], nil},
		{"cut inside method packet", good[:blockAt-3], nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadProfile(bytes.NewReader(c.data), BuildOptions{})
			if c.err == nil {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				return
			}
			var fe *FormatError
			if !errors.Is(err, c.err) || !errors.As(err, &fe) {
				t.Fatalf("got %v, want %v", err, c.err)
			}
		})
	}
	p, err := ReadProfile(bytes.NewReader(good[:blockAt+12+16]), BuildOptions{})
	if err != nil || p.Records != 2 || p.Warnings.Count(WarnTruncatedData) == 0 {
		t.Errorf("cut block: %v, %d records, %v", err, p.Records, p.Warnings.List)
	}
}

// statsByName returns g's method stats and edges keyed by method name.
func statsByName(p *Profile, g *Graph) map[string]any {
	out := make(map[string]any)
	for _, m := range g.Methods {
		out[p.Name(m.Index)+p.Methods[m.Index].Signature] = m.Stats
	}
	for _, e := range g.Edges {
		out[p.Name(e.Caller)+" > "+p.Name(e.Callee)+p.Methods[e.Callee].Signature] = [3]any{e.Calls, e.RecursiveCalls, e.Inclusive}
	}
	return out
}

// renumbered gives tr's methods the ids a format V2 reader assigns (index
// << 2, key order), in the key and in the events.
func renumbered(tr *Trace) *Trace {
	re := make(map[uint32]uint32)
	for i := range tr.Methods {
		re[tr.Methods[i].ID] = uint32(i) << 2
		tr.Methods[i].ID = uint32(i) << 2
	}
	for i := range tr.Events {
		if id, ok := re[tr.Events[i].MethodID]; ok {
			tr.Events[i].MethodID = id
		}
	}
	return tr
}

func patch(b []byte, at int, v byte) []byte {
	c := bytes.Clone(b)
	c[at] = v
	return c
}

// TestReadV2SmallReads feeds the file one byte per Read, so every packet and
// record straddles buffer refills.
func TestReadV2SmallReads(t *testing.T) {
	tr := renumbered(must(Synth{Seed: 9, Records: 3000, Version: 3, Threads: 2, Methods: 30}.Trace()))
	var buf bytes.Buffer
	if err := EncodeV2(&buf, tr, V2Options{BlockRecords: 7, Streaming: true}); err != nil {
		t.Fatal(err)
	}
	got, _, err := Decode(io.LimitReader(oneByteReader{bytes.NewReader(buf.Bytes())}, 1<<30), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Events) != len(tr.Events) {
		t.Fatalf("%d events, want %d", len(got.Events), len(tr.Events))
	}
	name := func(h *Header, id uint32) string {
		for _, m := range h.Methods {
			if m.ID == id {
				return m.FullName() + m.Signature
			}
		}
		return "?"
	}
	for i := range tr.Events {
		g, w := got.Events[i], tr.Events[i]
		if name(&got.Header, g.MethodID) != name(&tr.Header, w.MethodID) {
			t.Fatalf("event %d: method %s, want %s", i, name(&got.Header, g.MethodID), name(&tr.Header, w.MethodID))
		}
		g.MethodID = w.MethodID
		if g != w {
			t.Fatalf("event %d: %+v, want %+v", i, g, w)
		}
	}
}

type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

// FuzzReadV2 feeds mutated format V2 files to the reader and profiler: no
// panic, and profiles keep their invariants. Seeds: testdata/fuzz/FuzzReadV2.
func FuzzReadV2(f *testing.F) {
	f.Add(v5ExampleBytes())
	f.Add(v4ReaderBytes())
	f.Add(v5TimeFirstBytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := Limits{MaxStackDepth: 512, MaxKeyBytes: 1 << 16, MaxMethods: 4096}
		rd, err := NewReader(bytes.NewReader(data), lim)
		if err != nil {
			return
		}
		var calls int64
		p, err := Build(rd, BuildOptions{Limits: lim, OnCall: func(*Call) { calls++ }})
		if err != nil {
			return
		}
		checkProfileInvariants(t, p, calls)
		if err := WriteJSON(io.Discard, p); err != nil {
			t.Fatal(err)
		}
	})
}

// TestFuzzReadV2Seeds keeps the committed corpus in step with the vectors.
func TestFuzzReadV2Seeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzReadV2")
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) < 3 {
		t.Fatalf("seed corpus %s: %v (%d files)", dir, err, len(ents))
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil || !strings.HasPrefix(string(b), "go test fuzz v1\n") {
			t.Errorf("%s: not a fuzz seed", e.Name())
		}
	}
}

// v5TimeFirstBytes: v5Example in the 2026 layout (V2TimeFirst), by hand:
// the header carries the start counter (1) and no frequency (times in ns);
// each record is SLEB128 deltas of time<<2|action, the thread-CPU time and,
// for entries only, the method pointer.
func v5TimeFirstBytes() []byte {
	return joinParts(
		[]byte{0x53, 0x4C, 0x4F, 0x57, 0x05, 0x00, 0x40, 0x42, 0x0F, 0, 0, 0, 0, 0},
		[]byte{1, 0, 0, 0, 0, 0, 0, 0}, make([]byte, 8), []byte{0, 0},
		[]byte{0x00, 0x92, 0x10, 0x00, 0x00, 0x04, 0x00}, "main",
		[]byte{0x01, 0, 0, 0, 0, 0, 0x70, 0, 0, 0x0F, 0x00}, "A\tf\t()V\tA.java\n",
		[]byte{0x01, 0x20, 0, 0, 0, 0, 0x70, 0, 0, 0x10, 0x00}, "B\tg\t(I)I\tB.java\n",
		// entries block: 4 records, 32 bytes
		[]byte{0x02, 0x92, 0x10, 0x00, 0x00, 0x04, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00},
		// enter A: time 12000 ns <<2 = 48000; CPU +10000; pointer +0x700000000000
		[]byte{0x80, 0xF7, 0x02, 0x90, 0xCE, 0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x1C},
		// enter B: +52000 (25000<<2); CPU +10000; pointer +0x20
		[]byte{0xA0, 0x96, 0x03, 0x90, 0xCE, 0x00, 0x20},
		// exit B: +68001 (42000<<2 | 1); CPU +15000; no method
		[]byte{0xA1, 0x93, 0x04, 0x98, 0xF5, 0x00},
		// exit A: +112000 (70000<<2 | 1 after 42000<<2 | 1); CPU +25000
		[]byte{0x80, 0xEB, 0x06, 0xA8, 0xC3, 0x01},
		[]byte{0x03, 0x22, 0x00}, "*version\n5\nclock=dual\nvm=art\n*end\n",
	)
}

func TestEncodeV2TimeFirstVector(t *testing.T) {
	var buf bytes.Buffer
	if err := EncodeV2(&buf, v5Example(), V2Options{Layout: V2TimeFirst}); err != nil {
		t.Fatal(err)
	}
	if want := v5TimeFirstBytes(); !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("EncodeV2 (time first):\n got % x\nwant % x", buf.Bytes(), want)
	}
}

func TestReadV2TimeFirstVector(t *testing.T) {
	tr, ws, err := Decode(bytes.NewReader(v5TimeFirstBytes()), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if ws.Total() != 0 {
		t.Errorf("warnings: %v", ws.List)
	}
	want := v5Example()
	if tr.Version != 5 || tr.Clocks != Dual || tr.StartTime != 1000 || len(tr.Events) != len(want.Events) {
		t.Fatalf("header %+v, %d events", tr.Header, len(tr.Events))
	}
	for i := range want.Events {
		if tr.Events[i] != want.Events[i] {
			t.Errorf("event %d: got %+v, want %+v", i, tr.Events[i], want.Events[i])
		}
	}
}

// TestV2TimeFirstCounterTicks: wall times in counter ticks (19.2 MHz, as
// many ARM devices) come back as the events' µs; an exit before any entry
// on its thread is an exit of an unknown method.
func TestV2TimeFirstCounterTicks(t *testing.T) {
	tr := v5Example()
	tr.Events = append([]Event{{Thread: 7, Action: Exit, MethodID: 4, Time: [2]uint32{3, 5}}}, tr.Events...)
	tr.Threads = append(tr.Threads, Thread{ID: 7, Name: "early"})
	var buf bytes.Buffer
	if err := EncodeV2(&buf, tr, V2Options{Layout: V2TimeFirst, TSCFrequency: 19_200_000}); err != nil {
		t.Fatal(err)
	}
	got, _, err := Decode(bytes.NewReader(buf.Bytes()), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Events) != len(tr.Events) {
		t.Fatalf("%d events", len(got.Events))
	}
	if e := got.Events[0]; e.Thread != 7 || e.Action != Exit || e.Time != [2]uint32{3, 5} {
		t.Errorf("early exit: %+v", e)
	}
	for i := 1; i < len(tr.Events); i++ {
		if got.Events[i] != tr.Events[i] {
			t.Errorf("event %d: got %+v, want %+v", i, got.Events[i], tr.Events[i])
		}
	}
	p, err := ReadProfile(bytes.NewReader(buf.Bytes()), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if u := p.All.Stats(Unknown); u.Calls != 1 || p.All.Stats(firstKeyMethod).Inclusive != [2]uint64{50, 58} {
		t.Errorf("unknown %+v, A %+v", u, p.All.Stats(firstKeyMethod))
	}
}

// balancedTrace is a random dual-clock trace whose exits always match the
// innermost open entry of their thread (what the time-first layout can
// carry), with ids as a V2 reader numbers them.
func balancedTrace(seed uint64, n int) *Trace {
	rng := rand.New(rand.NewPCG(seed, seed))
	tr := &Trace{Header: Header{Clocks: Dual}}
	for i := range 20 {
		tr.Methods = append(tr.Methods, Method{ID: uint32(i) << 2, Class: "C" + strconv.Itoa(i), Name: "m", Signature: "()V", File: "C.java"})
	}
	for _, id := range []uint16{1, 300, 4242} {
		tr.Threads = append(tr.Threads, Thread{ID: uint32(id), Name: "t" + strconv.Itoa(int(id))})
	}
	stacks := map[uint16][]uint32{}
	now := map[uint16][2]uint32{}
	for len(tr.Events) < n {
		th := tr.Threads[rng.IntN(len(tr.Threads))].ID
		id := uint16(th)
		t := now[id]
		t[0] += uint32(rng.IntN(50))
		t[1] += uint32(rng.IntN(80))
		now[id] = t
		st := stacks[id]
		if len(st) > 0 && rng.IntN(2) == 0 {
			tr.Events = append(tr.Events, Event{Thread: id, Action: Action(1 + rng.IntN(2)), MethodID: st[len(st)-1], Time: t})
			stacks[id] = st[:len(st)-1]
			continue
		}
		m := uint32(rng.IntN(len(tr.Methods))) << 2
		tr.Events = append(tr.Events, Event{Thread: id, Action: Enter, MethodID: m, Time: t})
		stacks[id] = append(st, m)
	}
	return tr
}

func TestV2TimeFirstRoundTripSmallReads(t *testing.T) {
	tr := balancedTrace(3, 4000)
	var buf bytes.Buffer
	if err := EncodeV2(&buf, tr, V2Options{Layout: V2TimeFirst, TSCFrequency: 24_000_000, BlockRecords: 5}); err != nil {
		t.Fatal(err)
	}
	got, _, err := Decode(oneByteReader{bytes.NewReader(buf.Bytes())}, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Events) != len(tr.Events) {
		t.Fatalf("%d events, want %d", len(got.Events), len(tr.Events))
	}
	for i := range tr.Events {
		if got.Events[i] != tr.Events[i] {
			t.Fatalf("event %d: %+v, want %+v", i, got.Events[i], tr.Events[i])
		}
	}
}

// TestV2SummaryWithoutLength: a summary packet whose text follows one byte
// or none after the type (as Perfetto's reader of the 2026 layout allows)
// still names the clock.
func TestV2SummaryWithoutLength(t *testing.T) {
	good := v4ReaderBytes()
	at := bytes.LastIndex(good, []byte{0x03, 0x1B, 0x00})
	for _, hdr := range [][]byte{{0x03}, {0x03, 0x00}} {
		data := joinParts(good[:at], hdr, "*version\n4\nclock=wall\n*end\n")
		p, err := ReadProfile(bytes.NewReader(data), BuildOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.Clocks != WallOnly || p.Records != 4 {
			t.Errorf("header % x: clocks %s, %d records", hdr, p.Clocks, p.Records)
		}
	}
}

// TestV2ThreadCap: a format V2 file names its threads with 32-bit ids, so
// a small file can hold hundreds of thousands of threads of one record
// each (500,000 in 7.5 MB took 1.57 GB as profiles and call trees). The
// reader stops at Limits.MaxThreads (default 1<<16, the 16-bit ids of
// versions 1-3) with ErrLimit; a file at the limit reads.
func TestV2ThreadCap(t *testing.T) {
	// One thread (id 7) with one record, cut into its packets and
	// repeated with other ids (the model's events take 16-bit ids).
	tr := &Trace{Header: Header{Version: 4, Clocks: Dual, Threads: []Thread{{ID: 7, Name: "t"}},
		Methods: []Method{{ID: 4, Class: "a", Name: "f", Signature: "()V"}}}}
	tr.Events = []Event{{Thread: 7, Action: Enter, MethodID: 4, Time: [2]uint32{5, 5}}}
	var one bytes.Buffer
	if err := EncodeV2(&one, tr, V2Options{Streaming: true}); err != nil {
		t.Fatal(err)
	}
	b := one.Bytes()
	const hdr = 32
	thread := b[hdr : hdr+8] // 0, u4 tid, u2 length 1, "t"
	if thread[0] != packetThreadV2 || binary.LittleEndian.Uint32(thread[1:]) != 7 {
		t.Fatalf("thread packet not where expected: % x", b[:48])
	}
	es := bytes.Index(b[hdr+8:], []byte{packetEntriesV2, 7, 0, 0, 0}) + hdr + 8
	ee := es + entriesHeaderV2 + int(binary.LittleEndian.Uint32(b[es+8:]))
	encode := func(threads int) []byte {
		out := append([]byte{}, b[:hdr]...)
		out = append(out, b[hdr+8:es]...) // the method packet
		for i := 1; i <= threads; i++ {
			p := len(out)
			out = append(out, thread...)
			binary.LittleEndian.PutUint32(out[p+1:], uint32(i))
			p = len(out)
			out = append(out, b[es:ee]...)
			binary.LittleEndian.PutUint32(out[p+1:], uint32(i))
		}
		return append(out, b[ee:]...) // the summary
	}
	read := func(b []byte, lim Limits) (records int, err error) {
		rd, err := NewReader(bytes.NewReader(b), lim)
		if err != nil {
			return 0, err
		}
		buf := make([]Record, 512)
		for {
			n, err := rd.Read(buf)
			records += n
			if err == io.EOF {
				return records, nil
			}
			if err != nil {
				return records, err
			}
		}
	}
	over := encode(DefaultMaxThreads + 10)
	_, err := read(over, Limits{})
	var fe *FormatError
	if !errors.Is(err, ErrLimit) || !errors.As(err, &fe) || fe.Offset <= 0 {
		t.Fatalf("%d threads (%d bytes): got %v, want ErrLimit with an offset", DefaultMaxThreads+10, len(over), err)
	}
	if !strings.Contains(err.Error(), "more than 65536 threads") {
		t.Errorf("error %q does not say what the limit is", err)
	}
	if n, err := read(encode(100), Limits{MaxThreads: 100}); err != nil || n != 100 {
		t.Fatalf("100 threads at a limit of 100: %d records, %v", n, err)
	}
	if _, err := read(encode(101), Limits{MaxThreads: 100}); !errors.Is(err, ErrLimit) {
		t.Fatalf("101 threads at a limit of 100: %v", err)
	}
}
