package simpleperf

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/trace"
	"google.golang.org/protobuf/encoding/protowire"
)

// expected is a brute-force count of a stream: per thread, per call path
// (root first, frames named "file|symbol", Java ones "java|symbol"), the samples and event counts
// whose stack starts with the path (incl) or is the path (self).
type expected struct {
	incl, self map[uint32]map[string][2]uint64
	samples    int64
}

func bruteForce(t *testing.T, b []byte) expected {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	type kept struct {
		tid   uint32
		chain []Frame
		ev    uint64
	}
	var samples []kept
	files := map[uint32]string{}
	for {
		k, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch k {
		case KindSample:
			samples = append(samples, kept{uint32(r.Sample.ThreadID), append([]Frame(nil), r.Sample.Callchain...), r.Sample.EventCount})
		case KindFile:
			files[r.File.ID] = r.File.Path
		}
	}
	e := expected{incl: map[uint32]map[string][2]uint64{}, self: map[uint32]map[string][2]uint64{}, samples: int64(len(samples))}
	for _, s := range samples {
		if e.incl[s.tid] == nil {
			e.incl[s.tid], e.self[s.tid] = map[string][2]uint64{}, map[string][2]uint64{}
		}
		key := ""
		for i := len(s.chain) - 1; i >= 0; i-- {
			f := s.chain[i]
			var name string
			if f.SymbolID < 0 {
				name = fmt.Sprintf("%s+0x%x", path.Base(files[f.FileID]), f.VAddr)
			} else {
				name, _ = genSymbol(int(f.FileID), int(f.SymbolID)) // the demangled form
			}
			if f.SymbolID >= 0 && JavaFile(files[f.FileID]) {
				key += "/java|" + name // one method whatever file it ran from
			} else {
				key += "/" + files[f.FileID] + "|" + name
			}
			v := e.incl[s.tid][key]
			e.incl[s.tid][key] = [2]uint64{v[0] + 1, v[1] + s.ev}
		}
		v := e.self[s.tid][key]
		e.self[s.tid][key] = [2]uint64{v[0] + 1, v[1] + s.ev}
	}
	return e
}

// checkTrees compares every node of every thread's tree with the brute
// force count, and the count with the trees (no path missing).
func checkTrees(t *testing.T, p *Profile, e expected) {
	t.Helper()
	tp := p.Trace
	if tp.Sampling == nil || tp.Sampling.Samples != e.samples {
		t.Fatalf("sampling %+v, want %d samples", tp.Sampling, e.samples)
	}
	for _, th := range tp.Threads {
		tr := th.Tree
		want := e.incl[th.ID]
		var keys []string
		nodes := 0
		tr.Walk(func(n int32, depth int) bool {
			nodes++
			keys = keys[:depth-1]
			m := &tp.Methods[tr.Method(n)]
			k := m.File + "|" + m.FullName()
			if tp.Sampling.JavaMethods[tr.Method(n)] {
				k = "java|" + m.FullName()
			}
			if depth > 1 {
				k = keys[depth-2] + "/" + k
			} else {
				k = "/" + k
			}
			keys = append(keys, k)
			w, ok := want[k]
			if !ok {
				t.Fatalf("thread %d: path %s not in the samples", th.ID, k)
			}
			// Time: each path's self event count in µs (rounded down),
			// summed over the subtree.
			var us uint64
			for q, s := range e.self[th.ID] {
				if q == k || strings.HasPrefix(q, k+"/") {
					us += s[1] / 1000
				}
			}
			if got := [2]uint64{tr.Inclusive(n, trace.ClockCPU), tr.Inclusive(n, trace.ClockWall)}; got != [2]uint64{w[0], us} {
				t.Fatalf("thread %d: %s: inclusive %v, want %v", th.ID, k, got, [2]uint64{w[0], us})
			}
			s := e.self[th.ID][k]
			if got := tr.Self(n, trace.ClockCPU); got != s[0] {
				t.Fatalf("thread %d: %s: self %d samples, want %d", th.ID, k, got, s[0])
			}
			return true
		})
		if nodes != len(want) {
			t.Fatalf("thread %d: %d nodes, %d distinct paths", th.ID, nodes, len(want))
		}
	}
	if len(tp.Threads) != len(e.incl) {
		t.Fatalf("%d threads, want %d", len(tp.Threads), len(e.incl))
	}
}

func TestLoadKnownTrees(t *testing.T) {
	for _, opt := range []GenOptions{
		{Threads: 3, Duration: 2 * time.Second, Frequency: 500, Depth: 12, Stacks: 16, Seed: 1},
		{Threads: 1, Duration: time.Second, Frequency: 1000, Depth: 1, Stacks: 4, Seed: 2},
		{Threads: 4, Duration: time.Second, Frequency: 200, Depth: 40, Stacks: 50, Seed: 3, OffCPU: true, AppType: "debuggable"},
		{Threads: 2, Duration: time.Second, Frequency: 1000, Depth: 20, Stacks: 8, Seed: 5, MovingLeaf: true},
	} {
		t.Run(fmt.Sprintf("%dx%d", opt.Threads, opt.Depth), func(t *testing.T) {
			var buf bytes.Buffer
			st, err := Gen(&buf, opt)
			if err != nil {
				t.Fatal(err)
			}
			if st.Bytes != int64(buf.Len()) {
				t.Fatalf("Gen says %d bytes, wrote %d", st.Bytes, buf.Len())
			}
			p, err := Load(bytes.NewReader(buf.Bytes()), LoadOptions{CallIndex: true})
			if err != nil {
				t.Fatal(err)
			}
			e := bruteForce(t, buf.Bytes())
			checkTrees(t, p, e)
			if p.Meta.AppPackage != "com.example.app" || p.Meta.AppType != opt.withDefaults().AppType || p.Meta.TraceOffCPU != opt.OffCPU {
				t.Errorf("meta %+v", p.Meta)
			}
			if p.Lost.LostCount != uint64(st.Samples/1000) || p.Files != len(genFiles) || len(p.Threads) != opt.Threads {
				t.Errorf("lost %+v, %d files, %d threads", p.Lost, p.Files, len(p.Threads))
			}
			if opt.OffCPU != (p.ContextSwitches > 0) {
				t.Errorf("%d context switches", p.ContextSwitches)
			}
			if p.UnknownFiles != 0 || p.UnknownSymbols != 0 {
				t.Errorf("unknown: %d files, %d symbols", p.UnknownFiles, p.UnknownSymbols)
			}
			checkFlat(t, p)
			checkIndex(t, p)
		})
	}
}

// checkFlat: the flat profile's self weights add up to the samples, Java
// methods are those of Java files (only they are made one method across
// files), and names were demangled.
func checkFlat(t *testing.T, p *Profile) {
	t.Helper()
	tp := p.Trace
	var self uint64
	for _, ms := range tp.All.Methods {
		self += ms.Exclusive[trace.ClockCPU]
		m := &tp.Methods[ms.Index]
		if ms.Index < 2 {
			continue
		}
		files := strings.Split(m.File, FileSeparator)
		if got, want := tp.Sampling.JavaMethods[ms.Index], JavaFile(files[0]); got != want {
			t.Errorf("%s in %s: java %v", m.FullName(), m.File, got)
		}
		if len(files) > 1 && !tp.Sampling.JavaMethods[ms.Index] {
			t.Errorf("%s: native, in %d files", m.FullName(), len(files))
		}
		if strings.HasPrefix(m.FullName(), "_Z") {
			t.Errorf("%s not demangled", m.FullName())
		}
	}
	if self != uint64(tp.Sampling.Samples) {
		t.Errorf("self samples %d, want %d", self, tp.Sampling.Samples)
	}
	if tp.Name(tp.All.Methods[0].Index) != "(toplevel)" || tp.Sampling.Unit != "µs" {
		t.Errorf("first %q, unit %q", tp.Name(tp.All.Methods[0].Index), tp.Sampling.Unit)
	}
}

// checkIndex: each thread's call index covers its samples (on clock 0, the
// sample numbers), the calls of a depth do not overlap, and the tree over
// the whole range on clock 0 is the thread's tree.
func checkIndex(t *testing.T, p *Profile) {
	t.Helper()
	for _, th := range p.Trace.Threads {
		ix := th.Index
		var sum uint32
		for _, id := range ix.ByDepth[0] {
			c := ix.Calls[id]
			sum += c.End[0] - c.Start[0]
		}
		if int64(sum) != th.Records {
			t.Fatalf("thread %d: depth 0 covers %d samples of %d", th.ID, sum, th.Records)
		}
		for d, row := range ix.ByDepth {
			for i := 1; i < len(row); i++ {
				a, b := ix.Calls[row[i-1]], ix.Calls[row[i]]
				for c := range 2 {
					if b.Start[c] < a.End[c] {
						t.Fatalf("thread %d depth %d: calls %d and %d overlap on clock %d", th.ID, d, row[i-1], row[i], c)
					}
				}
			}
		}
		rt := ix.RangeTree(trace.ClockCPU, 0, uint32(th.Records))
		if rt.Len() != th.Tree.Len() {
			t.Fatalf("thread %d: range tree %d nodes, tree %d", th.ID, rt.Len(), th.Tree.Len())
		}
		var a, b uint64
		for c := range rt.Children(0) {
			a += rt.Inclusive(c, 0)
		}
		for c := range th.Tree.Children(0) {
			b += th.Tree.Inclusive(c, 0)
		}
		if a != b {
			t.Fatalf("thread %d: range tree %d samples, tree %d", th.ID, a, b)
		}
	}
}

// stream writes samples and files by hand for the edge cases.
func stream(t *testing.T, write func(w *Writer)) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := NewWriter(&buf)
	write(w)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestLoadEdgeCases(t *testing.T) {
	t.Run("unknown file and symbol", func(t *testing.T) {
		b := stream(t, func(w *Writer) {
			w.Sample(&Sample{Time: 1, ThreadID: 5, EventCount: 1000, Callchain: []Frame{{FileID: 0, SymbolID: 7}, {FileID: 3, SymbolID: 0, VAddr: 0x10}}})
			w.File(&File{ID: 0, Path: "/system/lib64/libc.so", Symbols: []string{"malloc"}})
		})
		p, err := Load(bytes.NewReader(b), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.UnknownFiles != 1 || p.UnknownSymbols != 1 || p.Trace.Sampling.Samples != 1 {
			t.Fatalf("unknown files %d symbols %d, samples %d", p.UnknownFiles, p.UnknownSymbols, p.Trace.Sampling.Samples)
		}
		tr := p.Trace.Threads[0].Tree
		if got := p.Trace.Name(tr.Method(1)); got != "[unknown file 3]+0x0" {
			// Frames with a symbol id are keyed by it; the address is not kept.
			t.Errorf("root frame %q", got)
		}
		if got := p.Trace.Name(tr.Method(2)); got != "libc.so+[unknown symbol 7]" {
			t.Errorf("leaf frame %q", got)
		}
		if p.Trace.Threads[0].Name != "" {
			t.Errorf("undescribed thread named %q", p.Trace.Threads[0].Name)
		}
	})
	t.Run("100,000 frames", func(t *testing.T) {
		chain := make([]Frame, 100_000)
		for i := range chain {
			chain[i] = Frame{FileID: 0, SymbolID: int32(i % 3)}
		}
		b := stream(t, func(w *Writer) {
			w.Sample(&Sample{Time: 1, ThreadID: 1, EventCount: 1000, Callchain: chain})
			w.Sample(&Sample{Time: 2, ThreadID: 1, EventCount: 1000, Callchain: chain[1:]})
			w.File(&File{ID: 0, Path: "libdeep.so", Symbols: []string{"a", "b", "c"}})
		})
		p, err := Load(bytes.NewReader(b), LoadOptions{CallIndex: true})
		if err != nil {
			t.Fatal(err)
		}
		tr := p.Trace.Threads[0].Tree
		if tr.Len() != 100_001 || tr.Inclusive(1, 0) != 2 || tr.Self(100_000, 0) != 1 || tr.Self(99_999, 0) != 1 {
			t.Fatalf("%d nodes, root child %d samples", tr.Len(), tr.Inclusive(1, 0))
		}
		if _, err := Load(bytes.NewReader(b), LoadOptions{Limits: Limits{MaxCallChain: 50_000}}); err == nil || !strings.Contains(err.Error(), "record 1") {
			t.Fatalf("past the limit: %v", err)
		}
	})
	t.Run("times going backwards", func(t *testing.T) {
		b := stream(t, func(w *Writer) {
			for _, tm := range []uint64{5e6, 9e6, 7e6, 2e6, 10e6} {
				w.Sample(&Sample{Time: tm, ThreadID: 1, EventCount: 1e6, Callchain: []Frame{{SymbolID: 0}}})
			}
			w.File(&File{ID: 0, Path: "libx.so", Symbols: []string{"x"}})
		})
		p, err := Load(bytes.NewReader(b), LoadOptions{CallIndex: true})
		if err != nil {
			t.Fatal(err)
		}
		if s := p.Trace.Sampling; s.Samples != 5 || s.Backward != 2 {
			t.Fatalf("samples %d, backward %d", s.Samples, s.Backward)
		}
		ix := p.Trace.Threads[0].Index
		if len(ix.Calls) != 1 || ix.Calls[0].End[1] != 5000 || ix.Calls[0].End[0] != 5 {
			t.Fatalf("calls %+v", ix.Calls)
		}
	})
	t.Run("empty call chain", func(t *testing.T) {
		b := stream(t, func(w *Writer) {
			w.Sample(&Sample{Time: 1, ThreadID: 1, EventCount: 4000})
			w.Sample(&Sample{Time: 2, ThreadID: 1, EventCount: 2000, Callchain: []Frame{{SymbolID: -1, VAddr: 0x1a2b0}}})
			w.File(&File{ID: 0, Path: "/data/app/lib/arm64/libfoo.so"})
		})
		p, err := Load(bytes.NewReader(b), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		tr := p.Trace.Threads[0].Tree
		if tr.Self(0, trace.ClockCPU) != 1 || tr.Inclusive(0, trace.ClockWall) != 6 || p.Trace.Name(tr.Method(1)) != "libfoo.so+0x1a2b0" {
			t.Fatalf("root self %d, root %d µs, frame %q", tr.Self(0, 0), tr.Inclusive(0, 1), p.Trace.Name(tr.Method(1)))
		}
	})
}

// A call index past its budget is dropped, the trees stay.
func TestIndexBudget(t *testing.T) {
	var buf bytes.Buffer
	Gen(&buf, GenOptions{Threads: 2, Duration: time.Second, Frequency: 1000, Depth: 16, Stacks: 32, Seed: 4})
	p, err := Load(bytes.NewReader(buf.Bytes()), LoadOptions{CallIndex: true, MaxIndexCalls: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Trace.Sampling.IndexDropped || p.Trace.Threads[0].Index != nil || p.Trace.Threads[0].Tree.Inclusive(0, 0) != 1000 {
		t.Fatalf("dropped %v, index %v", p.Trace.Sampling.IndexDropped, p.Trace.Threads[0].Index != nil)
	}
	p, _ = Load(bytes.NewReader(buf.Bytes()), LoadOptions{CallIndex: true})
	if p.Trace.Sampling.IndexDropped || p.Trace.Threads[0].Index == nil {
		t.Fatal("index dropped within its budget")
	}
}

func TestDemangle(t *testing.T) {
	for in, want := range map[string]string{
		"_ZN3art9ArtMethod6InvokeEPNS_6ThreadEPjjPNS_6JValueEPKc": "art::ArtMethod::Invoke(art::Thread*, unsigned int*, unsigned int, art::JValue*, char const*)",
		"art::ArtMethod::Invoke":                                  "art::ArtMethod::Invoke",
		"com.example.Foo.bar":                                     "com.example.Foo.bar",
		"_Znotmangled":                                            "_Znotmangled",
	} {
		if got := Demangle(in); got != want {
			t.Errorf("Demangle(%q) = %q, want %q", in, got, want)
		}
	}
}

// Load compares a thread's call chains with its previous sample's by
// their bytes and decodes only the entries that differ: entries apart
// from one another (another field between them), entries of 128 bytes or
// more (a two-byte length) and chains that change in their middle load as
// the plain decoder reads them.
func TestLoadEntriesAsWritten(t *testing.T) {
	entry := func(file, sym int, pad int) []byte {
		e := appendVarintField(nil, 1, uint64(0x1000+sym))
		e = appendVarintField(e, 2, uint64(file))
		e = appendVarintField(e, 3, uint64(sym))
		if pad > 0 { // an unknown field, as a newer simpleperf may add
			e = protowire.AppendTag(e, 9, protowire.BytesType)
			e = protowire.AppendBytes(e, make([]byte, pad))
		}
		return protowire.AppendBytes(protowire.AppendTag(nil, 3, protowire.BytesType), e)
	}
	sample := func(tid int, tm uint64, fields ...[]byte) []byte {
		b := appendVarintField(nil, 1, tm)
		b = appendVarintField(b, 2, uint64(tid))
		for _, f := range fields {
			b = append(b, f...)
		}
		return b
	}
	ev := appendVarintField(nil, 4, 1000)
	// The tag written in two bytes (0x9a 0x00: a varint need not be as
	// short as it can), which a decoder accepts.
	overlong := append([]byte{0x9a, 0x00}, entry(0, 5, 0)[1:]...)
	a, b, c, d := entry(0, 1, 0), entry(0, 2, 0), entry(5, 3, 200), entry(0, 4, 0)
	samples := [][]byte{
		sample(1, 1, a, b, c, ev),
		sample(1, 2, a, b, c, ev),                // the same bytes
		sample(2, 3, a, ev, b, c),                // another thread, a field between entries
		sample(1, 4, a, ev, b, c),                // thread 1's chain again, written apart
		sample(1, 5, d, b, c, ev),                // a new leaf
		sample(1, 6, d, a, c, ev),                // a new middle frame under the same root
		sample(2, 7, c, ev),                      // only the long root
		sample(2, 8, d, c, ev, entry(0, 1, 130)), // a longer root: another frame
		sample(1, 9, ev),                         // no chain
		sample(1, 10, overlong, a, c, ev),        // a leaf whose tag takes two bytes
		sample(1, 11, overlong, a, c, ev),        // the same bytes again
		sample(1, 12, d, overlong, c, ev),        // in the middle
	}
	var out bytes.Buffer
	w := NewWriter(&out)
	for _, s := range samples {
		w.record(KindSample, s)
	}
	for _, id := range []int{0, 5} {
		f := File{ID: uint32(id), Path: genFiles[id].path}
		for i := range 8 {
			name, _ := genSymbol(id, i)
			f.Symbols = append(f.Symbols, name)
		}
		w.File(&f)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	p, err := Load(bytes.NewReader(out.Bytes()), LoadOptions{CallIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	checkTrees(t, p, bruteForce(t, out.Bytes()))
}

// A Java method seen interpreted (base.apk) and JIT-compiled ([JIT app
// cache]) is one frame, its File naming both; native symbols of one name
// in two libraries stay two.
func TestLoadOneJavaMethod(t *testing.T) {
	apk, jit := File{ID: 0, Path: genFiles[0].path, Symbols: []string{"com.example.Foo.bar", "com.example.Foo.run"}}, File{ID: 1, Path: "[JIT app cache]", Symbols: []string{"com.example.Foo.run", "com.example.Foo.bar"}}
	liba, libb := File{ID: 2, Path: "liba.so", Symbols: []string{"init"}}, File{ID: 3, Path: "libb.so", Symbols: []string{"init"}}
	b := stream(t, func(w *Writer) {
		run, bar, barJIT, runJIT := Frame{FileID: 0, SymbolID: 1}, Frame{FileID: 0, SymbolID: 0}, Frame{FileID: 1, SymbolID: 1}, Frame{FileID: 1, SymbolID: 0}
		for i, chain := range [][]Frame{
			{bar, run},
			{barJIT, run},
			{barJIT, runJIT},
			{{FileID: 2, SymbolID: 0}, barJIT, run},
			{{FileID: 3, SymbolID: 0}, bar, run},
		} {
			w.Sample(&Sample{Time: uint64(i+1) * 1e6, ThreadID: 1, EventCount: 1e6, Callchain: chain})
		}
		for _, f := range []*File{&apk, &jit, &liba, &libb} {
			w.File(f)
		}
	})
	p, err := Load(bytes.NewReader(b), LoadOptions{CallIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	tp := p.Trace
	tr := tp.Threads[0].Tree
	var got []string
	tr.Walk(func(n int32, depth int) bool {
		m := &tp.Methods[tr.Method(n)]
		got = append(got, fmt.Sprintf("%d %s (%s) %d", depth, m.FullName(), m.File, tr.Inclusive(n, trace.ClockCPU)))
		return true
	})
	want := []string{
		"1 com.example.Foo.run (" + apk.Path + ", [JIT app cache]) 5",
		"2 com.example.Foo.bar (" + apk.Path + ", [JIT app cache]) 5",
		"3 init (liba.so) 1",
		"3 init (libb.so) 1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("tree:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The call chart: one call of each Java method over the five samples.
	ix := tp.Threads[0].Index
	if len(ix.ByDepth[0]) != 1 || len(ix.ByDepth[1]) != 1 || ix.Calls[ix.ByDepth[1][0]].End[0] != 5 || len(ix.ByDepth[2]) != 2 {
		t.Fatalf("calls %+v", ix.Calls)
	}
}

// A broken frame fails the load at its record, and Load returns with its
// reading goroutine ended, however much of the stream is left.
func TestLoadStopsReading(t *testing.T) {
	leakcheck.Check(t)
	bad := appendVarintField(nil, 1, 1)
	bad = appendVarintField(bad, 2, 1)
	entry := protowire.AppendTag(nil, 1, protowire.BytesType) // vaddr_in_file as bytes: the wrong wire type
	entry = protowire.AppendBytes(entry, []byte{1})
	bad = protowire.AppendBytes(protowire.AppendTag(bad, 3, protowire.BytesType), entry)
	b := stream(t, func(w *Writer) {
		for i := range 3 {
			w.Sample(&Sample{Time: uint64(i), ThreadID: 1, EventCount: 1000, Callchain: []Frame{{SymbolID: 0}}})
		}
		w.record(KindSample, bad)
		for i := range 50_000 {
			w.Sample(&Sample{Time: uint64(i + 4), ThreadID: 1, EventCount: 1000, Callchain: []Frame{{SymbolID: int32(i % 7)}, {SymbolID: 9}}})
		}
	})
	_, err := Load(bytes.NewReader(b), LoadOptions{})
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Record != 4 || !errors.Is(err, ErrWireType) {
		t.Fatalf("got %v, want a wrong wire type at record 4", err)
	}
	if _, plain := decodePass(bytes.NewReader(b)); plain == nil || plain.Error() != err.Error() {
		t.Fatalf("Load: %v; plain decoding: %v", err, plain)
	}
	buf := make([]byte, 1<<20)
	if stacks := string(buf[:runtime.Stack(buf, true)]); strings.Contains(stacks, "simpleperf.decodeBatches") {
		t.Fatalf("the reading goroutine outlived Load:\n%s", stacks)
	}
}

// A sample without a call chain after one with a chain: the raw reader
// holds no bytes of the chain before (a record's bytes end where it does).
func TestRawChainEmptyAfterLong(t *testing.T) {
	r := &Reader{rawChains: true, lim: Limits{}.withDefaults()}
	var long []byte
	long = appendVarintField(long, 1, 5)
	for i := range 20 {
		e := appendVarintField(nil, 1, uint64(0x4000+i))
		e = appendVarintField(e, 2, 1)
		e = appendVarintField(e, 3, uint64(i))
		long = protowire.AppendBytes(protowire.AppendTag(long, 3, protowire.BytesType), e)
	}
	if err := r.decodeSample(long); err != nil || len(r.chainEnds) != 20 {
		t.Fatalf("%v, %d entries", err, len(r.chainEnds))
	}
	short := appendVarintField(nil, 4, 1000)
	short = short[:len(short):len(short)]
	if err := r.decodeSample(short); err != nil || len(r.chainEnds) != 0 || len(r.chainBytes) != 0 {
		t.Fatalf("%v, %d entries, %d bytes", err, len(r.chainEnds), len(r.chainBytes))
	}
}
