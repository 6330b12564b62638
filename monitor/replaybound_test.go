package monitor

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/record"
)

// endpointFlood is the recording of issue 30 item 14: n endpoint records of
// n different VMs, one a microsecond, none ever gone.
func endpointFlood(n int) *Recording {
	recs := make([]record.Record, n)
	for i := range recs {
		key := fmt.Sprintf("local:%d", i)
		recs[i] = record.Record{Time: time.Duration(i) * time.Microsecond, Kind: record.KindEndpoint, Key: key,
			Data: []byte(`{"source":"` + key + `","pid":0}`)}
	}
	return recordingOf(recs...)
}

// A recording of 300,000 endpoint records (a few MB) replays at most
// MaxReplayVMs VMs: the store and the heap stay bounded (before: 300,000
// sessions, about 3 KiB each in the heap, 2.8 GB peak for `replay --at`
// with its JSON), and the refusal is reported once. A VM's records after
// its refused endpoint are skipped, not reported each.
func TestReplayBoundsVMs(t *testing.T) {
	const n = 300000
	rec := endpointFlood(n)
	// A record of a refused VM, and an ordinary one of an accepted VM.
	rec.Records = append(rec.Records,
		record.Record{Time: time.Second, Kind: record.KindGone, Key: "local:299999", Data: []byte("bye")},
		record.Record{Time: time.Second, Kind: record.KindChunk, Key: "local:299998", Data: []byte("HELO")},
		record.Record{Time: time.Second, Kind: record.KindGone, Key: "local:0", Data: []byte("bye")})
	runtime.GC()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	store := NewStore(NewBus())
	p := NewReplay(rec, store)
	p.Seek(rec.Duration())
	runtime.GC()
	runtime.ReadMemStats(&m1)
	grew := int64(m1.HeapAlloc) - int64(m0.HeapAlloc)
	t.Logf("%d endpoint records: %d VMs, heap grew %d MiB", n, len(store.VMs()), grew>>20)
	if got := len(store.VMs()); got != MaxReplayVMs-1 { // local:0 went
		t.Errorf("%d VMs in the store, want %d", got, MaxReplayVMs-1)
	}
	if _, ok := store.VM(fmt.Sprintf("local:%d", MaxReplayVMs-1)); !ok {
		t.Error("the last VM within the bound is not replayed")
	}
	if _, ok := store.VM(fmt.Sprintf("local:%d", MaxReplayVMs)); ok {
		t.Error("the first VM past the bound is replayed")
	}
	if grew > 64<<20 {
		t.Errorf("the heap grew by %d MiB, want at most 64", grew>>20)
	}
	errs := p.Errors()
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "more than 4096 VMs at once") || !strings.Contains(errs[0].Error(), `"local:4096"`) {
		t.Errorf("errors %v, want the one refusal", errs)
	}
	// After a seek back the bound counts again from the start.
	p.Seek(0)
	p.Seek(rec.Duration())
	if got := len(store.VMs()); got != MaxReplayVMs-1 {
		t.Errorf("after a seek back: %d VMs", got)
	}
	runtime.KeepAlive(p)
}

// Abort ends a Seek under way within a few hundred records (the dashboard
// ends on SIGTERM or a hung-up terminal without waiting for a long seek
// through a big recording), and nothing is applied after it.
func TestReplayAbortEndsSeek(t *testing.T) {
	rec := endpointFlood(3000)
	store := NewStore(NewBus())
	p := NewReplay(rec, store)
	p.Seek(time.Duration(999) * time.Microsecond) // records 0..999
	if got := p.Applied(); got != 1000 {
		t.Fatalf("%d applied before the abort", got)
	}
	p.Abort()
	p.Seek(rec.Duration())
	if got := p.Applied(); got > 1024 {
		t.Errorf("%d records applied after Abort, want at most the next multiple of 256 (1024)", got)
	}
	if p.Playing() {
		t.Error("an aborted replay plays")
	}
	p.Step()
	if got := p.Applied(); got > 1024 {
		t.Errorf("Step applied records after Abort (%d)", got)
	}
}
