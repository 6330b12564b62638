package monitor

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// handTo is a discovery that hands the engine a fixed set of endpoints.
type handTo []scan.Endpoint

func (h handTo) Run(ctx context.Context, handle scan.Handler) error {
	var wg sync.WaitGroup
	for _, ep := range h {
		wg.Add(1)
		go func() { defer wg.Done(); handle(ctx, ep) }()
	}
	wg.Wait()
	return nil
}

// When the process-wide budget is spent, the heap maps kept of VMs whose
// maps nobody asks for give way (one drop, noted, the bus told with a nil
// map); the map of the VM that is looked at stays, and so do both VMs'
// sessions. The reclaimer goes with Engine.Run.
func TestEngineDropsHeapMapsNobodyLooksAt(t *testing.T) {
	leakcheck.Check(t)
	process := budget.New(64 << 20)
	store := NewStore(NewBus())
	e := NewEngine(store, SessionOptions{ThreadInterval: time.Hour, SegmentBudget: process.Child(0)})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	var eps handTo
	var keys []string
	for i := range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() { defer wg.Done(); defer ln.Close(); cyclingMapVM(t, ln, uint32(6000+i), 1, 64) }()
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("local:%d", ln.Addr().(*net.TCPAddr).Port)
		keys = append(keys, key)
		eps = append(eps, scan.Endpoint{Key: key, Source: key, Conn: nc})
	}
	sub := store.Bus().Subscribe()
	defer sub.Close()
	wg.Add(1)
	go func() { defer wg.Done(); e.Run(ctx, Discovery{ADB: []Runner{eps}}) }()
	waitFor(t, "both heap maps", 20*time.Second, func() bool {
		return store.Segments(keys[0]) != nil && store.Segments(keys[1]) != nil && process.Reclaimers() == 1
	})
	looked, unlooked := keys[0], keys[1]
	e.Session(looked).heaps.setOptions(SegmentOptions{Managed: true})
	mapBytes := store.Segments(unlooked).Held()
	if mapBytes <= 0 || process.Used() != 2*mapBytes {
		t.Fatalf("a map holds %d bytes, the budget %d", mapBytes, process.Used())
	}
	sub.Drain()
	if !process.Take(64<<20 - mapBytes) {
		t.Fatal("no room made")
	}
	if store.Segments(unlooked) != nil || store.Segments(looked) == nil {
		t.Fatalf("kept maps: looked at %v, not looked at %v", store.Segments(looked) != nil, store.Segments(unlooked) != nil)
	}
	st := process.Stats()
	if st.Drops != 1 || st.DroppedBytes != mapBytes || !strings.Contains(st.LastDrop, "a heap map of a VM not looked at") {
		t.Fatalf("stats %+v", st)
	}
	told := false
	for _, ev := range sub.Drain() {
		if u, ok := ev.(SegmentsUpdated); ok && u.Key == unlooked && u.Snapshot == nil {
			told = true
		}
	}
	if !told || e.Session(unlooked) == nil || e.Session(looked) == nil {
		t.Fatalf("bus told %v; sessions %v %v", told, e.Session(unlooked) != nil, e.Session(looked) != nil)
	}
	process.Give(64<<20 - mapBytes)
	cancel()
	wg.Wait()
	if process.Reclaimers() != 0 {
		t.Fatal("the engine's reclaimer outlived Run")
	}
}
