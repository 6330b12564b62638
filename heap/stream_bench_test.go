package heap

import (
	"github.com/ddmtui/ddmtui/testkit/benchdata"
	"testing"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
)

// The stream ddmtui's heap ingest is measured on against ddmlib and the C
// limit (../shared/bench, issue 15 item 1): a 512 MiB heap at 8-byte units
// as JDWP packets, written by
//
//	python3 ../shared/bench/gen_ddm_chunks.py hpsg --heap-mib 512 --unit 8 --seed 1 -o FILE
//
// and named by DDMTUI_HPSG_STREAM (scripts/bench-ddm.sh sets it).
const streamUnits = 512 << 20 / 8

// loadStream reads the stream and splits it into packets (not timed: the
// session receives packets already framed).
func loadStream(b *testing.B) (packets [][]byte, size int64) {
	return benchdata.Packets(b, "DDMTUI_HPSG_STREAM")
}

// ingest does what a monitor session does with each packet from a VM: frame
// it, split the DDM chunks, decode (and validate) each, and feed the
// assembler; HPEN yields the snapshot with its statistics.
func ingest(b *testing.B, a *Assembler, packets [][]byte) *Snapshot {
	var snap *Snapshot
	for _, raw := range packets {
		p, err := jdwp.Decode(raw, 0)
		if err != nil {
			b.Fatal(err)
		}
		chunks, err := ddm.ParseChunks(p.Data, len(p.Data))
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range chunks {
			m, err := ddm.DecodeFromVM(c)
			if err != nil {
				b.Fatal(err)
			}
			switch m := m.(type) {
			case *ddm.HeapStart:
				a.Start(m.HeapID, ddm.TypeHPSG)
			case *ddm.HeapSegment:
				if err := a.Add(m); err != nil {
					b.Fatal(err)
				}
			case *ddm.HeapEnd:
				if snap, err = a.End(m.HeapID); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	return snap
}

// BenchmarkHeapStreamIngest: the 512 MiB heap's packets into the heap model
// (snapshot, statistics by kind and solidity, largest free run), strict
// validation included. Compare with ddmlib's "decode = ingest+walk" and the
// C limit's "decode + state histogram" in the same run (scripts/bench-ddm.sh).
func BenchmarkHeapStreamIngest(b *testing.B) {
	packets, size := loadStream(b)
	var a Assembler
	b.SetBytes(size)
	b.ReportAllocs()
	var snap *Snapshot
	for b.Loop() {
		snap = ingest(b, &a, packets)
	}
	if snap == nil || snap.Units() != streamUnits {
		b.Fatalf("snapshot %v", snap)
	}
	b.ReportMetric(float64(snap.Stats.FreeUnits()*8), "free-bytes")
}
