package ddm

import (
	"github.com/ddmtui/ddmtui/testkit/benchdata"
	"testing"

	"github.com/ddmtui/ddmtui/jdwp"
)

// BenchmarkTHSTStreamDecode decodes the THST stream of ../shared/bench
// (gen_ddm_chunks.py thst: 10,000 replies of 200 threads, as JDWP packets),
// named by DDMTUI_THST_STREAM (scripts/bench-ddm.sh sets it): frame each
// packet, split its chunks and decode the table — the session's work before
// the thread table is updated. Compare with ddmlib's "THST pass" in the same
// run.
func BenchmarkTHSTStreamDecode(b *testing.B) {
	packets, size := benchdata.Packets(b, "DDMTUI_THST_STREAM")
	b.SetBytes(size)
	b.ReportAllocs()
	var entries int
	for b.Loop() {
		entries = 0
		for _, raw := range packets {
			p, err := jdwp.Decode(raw, 0)
			if err != nil {
				b.Fatal(err)
			}
			chunks, err := ParseChunks(p.Data, len(p.Data))
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range chunks {
				m, err := DecodeFromVM(c)
				if err != nil {
					b.Fatal(err)
				}
				entries += len(m.(*ThreadStatusTable).Threads)
			}
		}
	}
	if entries != len(packets)*200 {
		b.Fatalf("%d entries", entries)
	}
	b.ReportMetric(float64(entries)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}
