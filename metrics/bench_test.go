package metrics

import (
	"fmt"
	"io"
	"net/http/httptest"
	"testing"

	"github.com/ddmtui/ddmtui/monitor"
)

// thousandVMs is a model of 1,000 VMs on 20 devices, 30 threads and two
// heaps each, as a large farm host would hold.
func thousandVMs() *model {
	m := newModel()
	states := []string{"running", "sleeping", "wait", "monitor", "native"}
	for i := 0; i < 1000; i++ {
		threads := make([]monitor.Thread, 30)
		for j := range threads {
			threads[j] = monitor.Thread{ID: uint64(j + 1), State: states[j%len(states)], UTime: i + j, STime: j}
		}
		serial := fmt.Sprintf("dev-%02d", i%20)
		m.addVM(fmt.Sprintf("adb:%s:%d", serial, 1000+i), "adb:"+serial, 1000+i, fmt.Sprintf("com.example.app%d", i), threads,
			[]monitor.Heap{{ID: 1, MaxBytes: 512 << 20, SizeBytes: 64 << 20, AllocatedBytes: 40 << 20, Objects: 100000, GCCount: i % 9}, {ID: 2}})
	}
	return m
}

// BenchmarkScrape1000VMs is one full scrape of /metrics (text format) with
// 1,000 VMs; BenchmarkStoreVMs1000 is the model copy every scrape starts
// with, the baseline its cost is reported against (docs/PERFORMANCE.md).
func BenchmarkScrape1000VMs(b *testing.B) {
	h := Handler(Registry(NewCollector(thousandVMs(), "h")))
	b.ReportAllocs()
	var size int
	for i := 0; i < b.N; i++ {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		size = rec.Body.Len()
		io.Copy(io.Discard, rec.Body)
	}
	b.ReportMetric(float64(size), "bytes/scrape")
}

func BenchmarkStoreVMs1000(b *testing.B) {
	m := thousandVMs()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if len(m.store.VMs()) != 1000 {
			b.Fatal("VMs lost")
		}
	}
}
