package meminfo

import (
	"os"
	"testing"
)

// BenchmarkParseAndroid11 is one dumpsys meminfo reading (the -a -d
// sample, the longest format).
func BenchmarkParseAndroid11(b *testing.B) {
	in, err := os.ReadFile("testdata/android11_launcher3.txt")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(in)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if m := Parse(in); m.TotalPSS == nil {
			b.Fatal("no total")
		}
	}
}
