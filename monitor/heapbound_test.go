package monitor

import (
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// TestEndlessSegmentSetIsDropped: a VM that announces a 1 MiB heap (HPIF)
// and then sends an HPSG set far larger than any such heap has its set
// dropped with an error on that VM; the session goes on, and the next,
// sane set becomes the heap map.
func TestEndlessSegmentSetIsDropped(t *testing.T) {
	leakcheck.Check(t)
	v := startScriptedVM(t, 4712, "com.example.endless", func(send func(ddm.Message), _ func([]byte)) {
		set := func(units uint32) {
			send(&ddm.HeapStart{HeapID: 1})
			w := ddm.NewSegmentWriter(ddm.TypeHPSG, 1, 8)
			w.Start(0x1000)
			obj := ddm.NewState(ddm.KindObject, ddm.SolidityHard)
			for left := units; left > 0; {
				n := min(left, 1<<20)
				if err := w.Append(obj, n); err != nil {
					return
				}
				left -= n
			}
			for _, s := range w.Segments() {
				send(&s)
			}
			send(&ddm.HeapEnd{HeapID: 1})
		}
		send(&ddm.HeapInfo{Heaps: []ddm.HeapStats{{HeapID: 1, MaxBytes: 1 << 20, SizeBytes: 1 << 20}}})
		set(64 << 20) // 512 MiB of 8-byte units in a heap that may grow to 1 MiB
		set(1000)
	})
	<-v.sent
	e, store, key := v.engine, v.store, v.key
	waitFor(t, "the sane set", 10*time.Second, func() bool { s := store.Segments(key); return s != nil && s.Units() == 1000 })
	vm, ok := store.VM(key)
	if !ok || e.Stats().DecodeErrors == 0 {
		t.Fatalf("no error recorded for the endless set: %+v, %d decode errors", vm, e.Stats().DecodeErrors)
	}
	if !strings.HasPrefix(vm.Err, "heap: segment set too large: heap 1: ") {
		t.Fatalf("VM error %q", vm.Err)
	}
	if e.Session(key) == nil {
		t.Fatal("the session ended")
	}
}
