package heapview

import (
	"runtime/debug"
	"testing"

	"github.com/ddmtui/ddmtui/heapfile"
	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/internal/memlimit"
)

// An analysis raises the soft memory limit by its file's allowance while
// its model is open (a dashboard's limit is its budget, which a large heap
// passes); the baseline's only while it is read; a failed load gives its
// allowance back.
func TestLoadRaisesMemoryLimitUntilClose(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	file, _ := writeScene(t, scene.Options{Seed: 5})
	allowance := heapfile.MemoryAllowance(file)
	if allowance <= 0 {
		t.Fatal("no allowance")
	}
	before := memlimit.Limit()
	var during int64
	m, err := LoadPID(file, file, 0, nil, func(string, float64) {
		during = max(during, memlimit.Limit()-before)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := memlimit.Limit() - before; got != allowance {
		t.Errorf("model open: raised by %d, want %d (the baseline's given back)", got, allowance)
	}
	if during != allowance {
		t.Errorf("while analysing: raised by at most %d, want %d (one dump at a time)", during, allowance)
	}
	m.Close()
	if got := memlimit.Limit(); got != before {
		t.Errorf("closed: limit %d, want %d", got, before)
	}
	if _, err := LoadPID(file+".none", "", 0, nil, nil); err == nil {
		t.Fatal("a missing file loaded")
	}
	if got := memlimit.Limit(); got != before {
		t.Errorf("after a failed load: limit %d, want %d", got, before)
	}
}
