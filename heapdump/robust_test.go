package heapdump

import (
	"math/rand/v2"
	"testing"
)

// Thousands of mutated files (bytes changed, cut out, repeated, inserted)
// give a Heap or an error, never a panic; every Heap answers its report.
// The fuzz target explores further; this runs in every `go test`.
func TestMutatedInputs(t *testing.T) {
	_, seed := scenario(t, ScenarioOptions{})
	r := rand.New(rand.NewPCG(1, 2))
	n := 3000
	if testing.Short() {
		n = 300
	}
	ok := 0
	for range n {
		d := append([]byte(nil), seed...)
		for range 1 + r.IntN(4) {
			p := 31 + r.IntN(len(d)-31)
			switch r.IntN(4) {
			case 0:
				d[p] = byte(r.Uint32())
			case 1:
				d = append(d[:p:p], d[min(len(d), p+1+r.IntN(8)):]...)
			case 2:
				q := 31 + r.IntN(len(d)-31)
				l := min(r.IntN(40), len(d)-q)
				d = append(d[:p:p], append(append([]byte(nil), d[q:q+l]...), d[p:]...)...)
			case 3:
				d = append(d[:p:p], append([]byte{0xff, 0xff, 0xff, byte(r.Uint32())}, d[p:]...)...)
			}
		}
		if h, err := Analyze(d, Options{}); err == nil {
			h.Report(3)
			ok++
		}
	}
	// Most mutations leave a file that still parses: the queries ran.
	if ok < n/4 {
		t.Fatalf("only %d of %d mutated files analysed", ok, n)
	}
	t.Logf("%d of %d mutated files analysed, the rest refused", ok, n)
}
