package monitor

import (
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// The heap summary is asked at every thread poll of a VM that answers
// HPIF, not only at start and at GCs: between GCs the summary is at most
// one interval old (issue 38 #12: a snapshot taken seconds after a VM grew
// showed the numbers of its last GC).
func TestHeapSummaryFollowsThePollInterval(t *testing.T) {
	leakcheck.Check(t)
	r := startRig(t, []sim.VMSpec{{PID: 4300, App: "com.example.grows", Family: sim.ART, Threads: 2, HeapBytes: 1 << 20, Seed: 11}}, 0,
		SessionOptions{ThreadInterval: 50 * time.Millisecond})
	var first time.Time
	waitFor(t, "the first heap summary", 10*time.Second, func() bool {
		vm, ok := r.store.VM(r.key(0))
		if !ok || len(vm.Heaps) == 0 {
			return false
		}
		first = vm.Heaps[0].Updated
		return true
	})
	// Summaries asked "now" keep arriving, well past the first, with no GC
	// asked for.
	nows := map[time.Time]bool{}
	waitFor(t, "summaries at the poll interval", 5*time.Second, func() bool {
		vm, _ := r.store.VM(r.key(0))
		for _, h := range vm.Heaps {
			if h.Reason == int(ddm.HeapInfoNow) && h.Updated.After(first) {
				nows[h.Updated] = true
			}
		}
		return len(nows) >= 5
	})
}
