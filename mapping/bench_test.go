package mapping

import (
	"bytes"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/ddmtui/ddmtui/mapping/internal/mapgen"
)

func generated(tb testing.TB, size int64) ([]byte, []mapgen.Class) {
	tb.Helper()
	var b bytes.Buffer
	b.Grow(int(size) + 4096)
	sample, err := mapgen.Write(&b, size, 1)
	if err != nil {
		tb.Fatal(err)
	}
	return b.Bytes(), sample
}

// TestGeneratedMapping retraces what the generator says it wrote.
func TestGeneratedMapping(t *testing.T) {
	data, sample := generated(t, 1<<20)
	m, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	if m.Skipped != 0 || m.Header.Compiler != "R8" {
		t.Fatalf("skipped %d (%v), header %+v", m.Skipped, m.FirstSkip, m.Header)
	}
	for _, c := range sample {
		r := m.Frame(StackFrame{c.Obfuscated, c.Obf, c.Line, ""})
		if !r.Known || r.Ambiguous {
			t.Fatalf("%+v: %+v", c, r)
		}
		ch := r.Candidates[0]
		if outer := ch[len(ch)-1]; outer.Class != c.Original || outer.Name != c.Method {
			t.Errorf("%+v: got %v", c, frameStrings(r))
		}
	}
}

// mappingBenchSize is the benchmark's file size; MAPPING_BENCH_MB changes it.
func mappingBenchSize() int64 {
	if s := os.Getenv("MAPPING_BENCH_MB"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return int64(n) << 20
		}
	}
	return 100 << 20
}

// BenchmarkParse indexes a generated 100 MB R8 mapping; it reports the
// index's own bytes (what the Mapping adds to the file's) per file byte.
func BenchmarkParse(b *testing.B) {
	data, _ := generated(b, mappingBenchSize())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var m *Mapping
	cpu := cpuNanos()
	for b.Loop() {
		var err error
		if m, err = Parse(data); err != nil {
			b.Fatal(err)
		}
	}
	index := len(m.classes)*28 + len(m.origSlots)*4 + len(m.obfSlots)*4 + cap(m.members)*8 + cap(m.extras)*16
	b.ReportMetric(float64(index)/float64(len(data)), "index/file")
	b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op")
	runtime.KeepAlive(m)
}

// BenchmarkRetrace10k retraces 10,000 frames against the 100 MB mapping.
func BenchmarkRetrace10k(b *testing.B) {
	data, sample := generated(b, mappingBenchSize())
	m, err := Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	frames := make([]StackFrame, 10000)
	for i := range frames {
		c := sample[i%len(sample)]
		frames[i] = StackFrame{c.Obfuscated, c.Obf, c.Line, ""}
	}
	m.Obfuscated("warm.up") // the by-original table, built on first use
	b.ResetTimer()
	cpu := cpuNanos()
	for b.Loop() {
		for i := 0; i < len(frames); i += 50 {
			m.Stack("java.lang.IllegalStateException", frames[i:i+50])
		}
	}
	b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op")
}

// BenchmarkRetraceText10k retraces a 10,000-frame text (200 traces of 50
// frames) against the 100 MB mapping, as `ddmtui retrace` does.
func BenchmarkRetraceText10k(b *testing.B) {
	data, sample := generated(b, mappingBenchSize())
	m, err := Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	var text bytes.Buffer
	for i := 0; i < 10000; i++ {
		if i%50 == 0 {
			text.WriteString("java.lang.IllegalStateException: crash\n")
		}
		c := sample[i%len(sample)]
		text.WriteString("\tat " + c.Obfuscated + "." + c.Obf + "(SourceFile:" + strconv.Itoa(c.Line) + ")\n")
	}
	b.SetBytes(int64(text.Len()))
	m.Obfuscated("warm.up")
	b.ResetTimer()
	cpu := cpuNanos()
	for b.Loop() {
		var out bytes.Buffer
		if _, err := m.RetraceText(&out, bytes.NewReader(text.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuNanos()-cpu)/float64(b.N), "cpu-ns/op")
}
