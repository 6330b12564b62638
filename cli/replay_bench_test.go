package cli

import (
	"os"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/monitor"
)

// Replay speed: a recording of the simulated VMs (7 local VMs and the
// Android 14 device, 3 s) applied from start to end as fast as it goes,
// through the decoders and the model: model events (records applied) per
// second.
func BenchmarkReplay(b *testing.B) {
	path, _ := recordSimulated(b, 3*time.Second)
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	rec, err := monitor.ReadRecording(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var applied uint64
	for range b.N {
		store := monitor.NewStore(monitor.NewBus())
		p := monitor.NewReplay(rec, store)
		p.Seek(rec.Duration())
		applied += p.Applied()
	}
	b.ReportMetric(float64(applied)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(len(rec.Records)), "records/op")
}
