package procfs

import (
	"fmt"
	"testing"
)

// BenchmarkParse200Threads is one poll of a busy app: 200 threads' stat
// records (about 50 KB), as the /proc source reads every thread interval.
func BenchmarkParse200Threads(b *testing.B) {
	var in []byte
	for i := 0; i < 200; i++ {
		in = append(in, Format(Thread{TID: 4000 + i, Comm: fmt.Sprintf("worker-%d", i), State: 'S', UTime: uint64(i * 7), STime: uint64(i)}, 4000)...)
	}
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r := Parse(in); len(r.Threads) != 200 {
			b.Fatal(len(r.Threads))
		}
	}
}
