package monitor

import (
	"fmt"
	"github.com/ddmtui/ddmtui/testkit/benchdata"
	"os"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/scan"
)

// BenchmarkTHSTIntoModel feeds the THST stream of ../shared/bench
// (gen_ddm_chunks.py thst: 10,000 replies of 200 threads, as JDWP packets),
// named by DDMTUI_THST_STREAM (scripts/bench-ddm.sh sets it), through the
// session's own reply path into the model: each packet is framed
// (jdwp.Decode, as the connection's reader does) and handed to
// takeTHSTReply, which pollTHST calls with the reply to its request: chunks
// split, the table decoded into the session's buffer, applied to the sorted
// thread table as one input, CPU% sampled, and the table copied into the
// Store and published on its Bus (one subscriber, as a dashboard would have).
// What the store holds at the end of each pass is checked against the
// generator's last values. Compare entries/s with ddmlib's "THST pass" in
// the same run.
//
// "store-at-10Hz" is the session as it runs: the store gets a copy of the
// table at most every threadPublishInterval (the live timer's flush is
// done once per pass, at its end); "store-every-reply" copies the table into
// the store after every reply, which the copy of 200 rows dominates.
//
// DDMTUI_THST_EXPECT optionally holds "threads tid status utime stime
// daemon" of the last thread (run_anchors.sh passes the same to ddmlib).
func BenchmarkTHSTIntoModel(b *testing.B) {
	packets, size := benchdata.Packets(b, "DDMTUI_THST_STREAM")
	for _, every := range []bool{false, true} {
		name := "store-at-10Hz"
		if every {
			name = "store-every-reply"
		}
		b.Run(name, func(b *testing.B) { benchTHSTIntoModel(b, packets, int(size), every) })
	}
}

func benchTHSTIntoModel(b *testing.B, packets [][]byte, size int, every bool) {
	store := NewStore(NewBus())
	sub := store.Bus().Subscribe()
	defer sub.Close()
	s := NewSession(scan.Endpoint{Key: "bench", Source: "local:1"}, store, SessionOptions{})
	s.conn.family = ddm.FamilyART
	s.begin(time.Now())
	want := os.Getenv("DDMTUI_THST_EXPECT")

	entries, last := 0, 0 // in the stream, and in its last table
	for _, raw := range packets {
		p, err := jdwp.Decode(raw, 0)
		if err != nil {
			b.Fatal(err)
		}
		chunks, err := ddm.ParseChunks(p.Data, len(p.Data))
		if err != nil || len(chunks) != 1 {
			b.Fatalf("%d chunks: %v", len(chunks), err)
		}
		e, err := ddm.ParseThreadStatusEntries(chunks[0].Data)
		if err != nil {
			b.Fatal(err)
		}
		entries, last = entries+e.Len(), e.Len()
	}

	b.SetBytes(int64(size))
	b.ReportAllocs()
	cpu0 := processCPU()
	for b.Loop() {
		for _, raw := range packets {
			p, err := jdwp.Decode(raw, 0)
			if err != nil {
				b.Fatal(err)
			}
			if err := s.threads.takeTHSTReply(p); err != nil {
				b.Fatal(err)
			}
			if every {
				s.input(s.threads.flush)
			}
		}
		s.input(s.threads.flush) // what the live timer does, within 100 ms
		vm, _ := store.VM("bench")
		if n := len(vm.Threads); n != last {
			b.Fatalf("store holds %d threads, the last reply listed %d", n, last)
		}
		if want != "" {
			if got := lastThread(vm.Threads); got != want {
				b.Fatalf("last thread in the store: %s, generator: %s", got, want)
			}
		}
	}
	b.ReportMetric(float64(entries)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	if cpu := processCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op") // the process's, GC included
	}
}

// lastThread formats the table's size and its last thread as
// DDMTUI_THST_EXPECT does.
func lastThread(threads []Thread) string {
	t := threads[len(threads)-1]
	d := 0
	if t.Daemon {
		d = 1
	}
	return fmt.Sprintf("%d %d %d %d %d %d", len(threads), t.SysTID, t.Status, t.UTime, t.STime, d)
}
