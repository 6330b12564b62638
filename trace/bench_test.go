package trace

import (
	"bytes"
	"sync"
	"testing"
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
