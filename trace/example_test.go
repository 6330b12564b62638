package trace

import (
	"bytes"
	"encoding/hex"
	"strings"
	"testing"
)

// specExampleKey is the key of the worked example in spec/dmtrace.md §6.
const specExampleKey = "*version\n3\ndata-file-overflow=false\nclock=dual\nelapsed-time-usec=1000\n" +
	"num-method-calls=7\nclock-call-overhead-nsec=1200\nvm=art\npid=4242\n*threads\n4242\tmain\n4250\tworker\n" +
	"*methods\n0x4\tcom.example.Foo\tmain\t([Ljava/lang/String;)V\tFoo.java\n" +
	"0x8\tcom.example.Foo\tcompute\t(I)I\tFoo.java\n0xc\tjava.lang.Math\tabs\t(I)I\tMath.java\n*end\n"

// specExampleData is the data section of the same example, byte for byte.
const specExampleData = "534C4F57 0300 2000 40DE96CC053D0500 0E00 0000000000000000000000000000" +
	"9210 04000000 0A000000 0C000000" +
	"9210 08000000 14000000 19000000" +
	"9210 0C000000 1E000000 24000000" +
	"9210 0D000000 23000000 2A000000" +
	"9210 09000000 3C000000 46000000" +
	"9A10 09000000 05000000 06000000" +
	"9210 05000000 50000000 5F000000"

func specExampleBytes(t testing.TB) []byte {
	t.Helper()
	data, err := hex.DecodeString(strings.ReplaceAll(specExampleData, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	if len(specExampleKey) != 317 {
		t.Fatalf("example key is %d bytes, the spec says 317", len(specExampleKey))
	}
	return append([]byte(specExampleKey), data...)
}

// specExampleModel is the example as a Trace value.
func specExampleModel() *Trace {
	return &Trace{
		Header: Header{
			Version: 3, Clocks: Dual, StartTime: 1474470000123456,
			Options: []Option{{"data-file-overflow", "false"}, {"clock", "dual"}, {"elapsed-time-usec", "1000"},
				{"num-method-calls", "7"}, {"clock-call-overhead-nsec", "1200"}, {"vm", "art"}, {"pid", "4242"}},
			Threads: []Thread{{4242, "main"}, {4250, "worker"}},
			Methods: []Method{
				{ID: 4, Class: "com.example.Foo", Name: "main", Signature: "([Ljava/lang/String;)V", File: "Foo.java"},
				{ID: 8, Class: "com.example.Foo", Name: "compute", Signature: "(I)I", File: "Foo.java"},
				{ID: 0xc, Class: "java.lang.Math", Name: "abs", Signature: "(I)I", File: "Math.java"},
			},
		},
		Events: []Event{
			{4242, Enter, 4, [2]uint32{10, 12}},
			{4242, Enter, 8, [2]uint32{20, 25}},
			{4242, Enter, 0xc, [2]uint32{30, 36}},
			{4242, Exit, 0xc, [2]uint32{35, 42}},
			{4242, Exit, 8, [2]uint32{60, 70}},
			{4250, Exit, 8, [2]uint32{5, 6}},
			{4242, Exit, 4, [2]uint32{80, 95}},
		},
	}
}

func methodIndex(t testing.TB, p *Profile, fullName string) int32 {
	t.Helper()
	for i := range p.Methods {
		if p.Methods[i].FullName() == fullName {
			return int32(i)
		}
	}
	t.Fatalf("no method %s", fullName)
	return -1
}

func TestSpecExampleEncodesToSpecBytes(t *testing.T) {
	got, err := specExampleModel().MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	want := specExampleBytes(t)
	if !bytes.Equal(got, want) {
		t.Fatalf("encoded example differs from the spec:\n got %x\nwant %x", got, want)
	}
}

func TestSpecExampleProfile(t *testing.T) {
	p, err := ReadProfile(bytes.NewReader(specExampleBytes(t)), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Clocks != Dual || p.Header.Version != 3 || p.Records != 7 {
		t.Fatalf("clocks %v version %d records %d", p.Clocks, p.Header.Version, p.Records)
	}
	main := methodIndex(t, p, "com.example.Foo.main")
	compute := methodIndex(t, p, "com.example.Foo.compute")
	abs := methodIndex(t, p, "java.lang.Math.abs")

	// The spec's numbers (dmtracedump, thread-CPU clock).
	if got := p.All.Total()[ClockCPU]; got != 70 {
		t.Errorf("total %d, spec says 70", got)
	}
	cpu := []struct {
		m          int32
		excl, incl uint64
		calls      int64
	}{
		{compute, 35, 45, 2},
		{main, 30, 70, 1},
		{abs, 5, 5, 1},
	}
	for _, c := range cpu {
		s := p.All.Stats(c.m)
		if s.Exclusive[ClockCPU] != c.excl || s.Inclusive[ClockCPU] != c.incl || s.Calls != c.calls {
			t.Errorf("%s: cpu excl %d incl %d calls %d, spec says %d %d %d", p.Name(c.m),
				s.Exclusive[ClockCPU], s.Inclusive[ClockCPU], s.Calls, c.excl, c.incl, c.calls)
		}
	}
	// The unmatched exit on worker is counted from time 0 with the top level
	// as caller: the edge (toplevel) → compute carries 5 µs and 1 call.
	var fromTop *Edge
	for _, e := range p.All.Callers(compute) {
		if e.Caller == TopLevel {
			fromTop = &e
		}
	}
	if fromTop == nil || fromTop.Calls != 1 || fromTop.Inclusive[ClockCPU] != 5 {
		t.Errorf("toplevel → compute edge: %+v", fromTop)
	}
	if got := p.Warnings.Count(WarnUnmatchedExit); got != 1 {
		t.Errorf("%d unmatched-exit warnings, want 1: %v", got, p.Warnings.List)
	}
	// Wall clock, by the same rules applied to the second time field:
	// main thread 12..95 (83), worker 6..6 (0); main excl (25-12)+(95-70)=38;
	// compute (36-25)+(70-42)=39; abs 42-36=6; compute incl 70-25 + 6-0 = 51.
	wall := []struct {
		m          int32
		excl, incl uint64
	}{{main, 38, 83}, {compute, 39, 51}, {abs, 6, 6}}
	for _, c := range wall {
		s := p.All.Stats(c.m)
		if s.Exclusive[ClockWall] != c.excl || s.Inclusive[ClockWall] != c.incl {
			t.Errorf("%s: wall excl %d incl %d, want %d %d", p.Name(c.m), s.Exclusive[ClockWall], s.Inclusive[ClockWall], c.excl, c.incl)
		}
	}
	if got := p.All.Total()[ClockWall]; got != 83 {
		t.Errorf("wall total %d, want 83", got)
	}
	worker := p.Thread(4250)
	if worker == nil || worker.Name != "worker" || worker.Records != 1 || worker.Stats(compute).Inclusive[ClockCPU] != 5 {
		t.Errorf("worker thread profile: %+v", worker)
	}
}
