package trace

import (
	"bytes"
	"os"
	"sync"
	"testing"
	"unsafe"
)

// BenchmarkSynth10M is the workload of BenchmarkParseProfile10M and of
// scripts/bench-trace.sh (trace/internal/tracegen with the same values).
var BenchmarkSynth10M = Synth{Seed: 1, Records: 10_000_000}

var bench10M struct {
	once sync.Once
	data []byte
	err  error
}

func trace10M(b *testing.B) []byte {
	bench10M.once.Do(func() {
		var buf bytes.Buffer
		_, bench10M.err = BenchmarkSynth10M.WriteTo(&buf)
		bench10M.data = buf.Bytes()
	})
	if bench10M.err != nil {
		b.Fatal(bench10M.err)
	}
	return bench10M.data
}

// BenchmarkParseProfile10M parses and profiles a generated 10-million-record
// version 3 dual-clock trace (140 MB) from memory.
func BenchmarkParseProfile10M(b *testing.B) {
	data := trace10M(b)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		p, err := ReadProfile(bytes.NewReader(data), BuildOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if p.Records != int64(BenchmarkSynth10M.Records) {
			b.Fatalf("%d records", p.Records)
		}
	}
}

// BenchmarkParseProfileFile parses and profiles the trace file named by
// DDMTUI_TRACE_FILE (scripts/bench-trace.sh sets it to the anchor trace of
// ../shared/bench/gen_dmtrace.py), read from the page cache as the command
// reads it.
func BenchmarkParseProfileFile(b *testing.B) {
	path := os.Getenv("DDMTUI_TRACE_FILE")
	if path == "" {
		b.Skip("DDMTUI_TRACE_FILE is not set (scripts/bench-trace.sh sets it)")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		p, err := ReadProfile(f, BuildOptions{})
		f.Close()
		if err != nil || p.Records == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallTreesFile profiles the file named by DDMTUI_TRACE_FILE with
// call trees (each thread's top-down tree is built while profiling) and
// opens the two views the viewer starts with: merged top down and merged
// bottom up, their first level expanded. It reports the top-down trees'
// nodes and bytes.
func BenchmarkCallTreesFile(b *testing.B) {
	path := os.Getenv("DDMTUI_TRACE_FILE")
	if path == "" {
		b.Skip("DDMTUI_TRACE_FILE is not set (scripts/bench-trace.sh sets it)")
	}
	b.ReportAllocs()
	for b.Loop() {
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		p, err := ReadProfile(f, BuildOptions{CallTree: true})
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		var trees []*CallTree
		nodes := 0
		for i := range p.Threads {
			if t := p.Threads[i].Tree; t != nil {
				trees = append(trees, t)
				nodes += t.Len()
			}
		}
		NewTopDownView(trees, ClockCPU).Expand(0)
		NewBottomUpView(trees, ClockCPU).Expand(0)
		b.ReportMetric(float64(nodes), "nodes")
		b.ReportMetric(float64(nodes)*float64(unsafe.Sizeof(treeNode{}))/(1<<20), "tree-MiB")
	}
}
