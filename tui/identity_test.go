package tui

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/tui/style"
)

// selections records what the dashboard tells the proxy (OnSelect).
type selections struct {
	mu   sync.Mutex
	keys []string
}

func (s *selections) add(k string) { s.mu.Lock(); s.keys = append(s.keys, k); s.mu.Unlock() }

func (s *selections) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.keys...)
}

// After a debugger detaches from a DDM VM its session re-opens: the VM is
// gone for a moment, then back under the same key. The selection, and with
// it the selected-VM debugger port (8700), must stay on that VM.
func TestSelectionSurvivesReopen(t *testing.T) {
	leakcheck.Check(t)
	store := monitor.NewStore(monitor.NewBus())
	twoVMs(store)
	screen := tcell.NewSimulationScreen("UTF-8")
	if err := screen.Init(); err != nil {
		t.Fatal(err)
	}
	var sel selections
	dash := New(Config{Store: store, Controller: &fakeController{}, Palette: style.Palette{}, Discovery: "test", Screen: screen,
		FrameInterval: 5 * time.Millisecond, OnSelect: sel.add})
	screen.SetSize(120, 40)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- dash.Run(ctx) }()
	defer func() { cancel(); <-done }()
	hs := &harness{t: t, screen: screen, dash: dash}
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, 'j') // j selects the next VM itself
	hs.waitText("selected: com.example.maps")
	if got := sel.list(); len(got) == 0 || got[len(got)-1] != "local:8001" {
		t.Fatalf("proxy told %v", got)
	}
	before := len(sel.list())

	store.Remove("local:8001", "session ended")
	hs.waitText("gone…")
	// A few frames and blink ticks pass while it is away.
	time.Sleep(600 * time.Millisecond)
	hs.waitText("selected: com.example.maps")
	hs.waitText("gone; waiting for it")
	store.UpdateVM("local:8001", func(vm *monitor.VM) {
		vm.Source, vm.PID, vm.App, vm.DDM, vm.VMIdent, vm.Connected = "local:8001", 5678, "com.example.maps", true, "Dalvik v2.1.0", time.Now()
	})
	store.SetThreads("local:8001", []monitor.Thread{{ID: 1, Name: "maps-main", Status: 3, State: "monitor"}})
	hs.waitText("maps-main")
	hs.waitGone("gone…")
	hs.waitText("selected: com.example.maps")
	if got := sel.list()[before:]; len(got) != 0 {
		t.Fatalf("while the VM was away the selected-VM port was moved to %v", got)
	}
}

// A VM that does not come back is dropped after the grace period; the
// selection then moves to the VM that took its row, not to the first.
func TestGoneVMExpiresToNeighbour(t *testing.T) {
	m := newModel()
	t0 := time.Unix(1000, 0)
	for _, k := range []string{"local:8000", "local:8001", "local:8002"} {
		m.upsertVM(monitor.VM{Key: k, Source: k})
	}
	m.sel = "local:8001"
	m.markGone("local:8001", t0)
	if moved, dropped := m.expire(t0.Add(goneGrace - time.Second)); moved || dropped || m.sel != "local:8001" || len(m.vms) != 3 {
		t.Fatalf("dropped inside the grace period: sel %s vms %d", m.sel, len(m.vms))
	}
	if !m.isGone("local:8001") {
		t.Fatal("not marked gone")
	}
	moved, dropped := m.expire(t0.Add(goneGrace))
	if !moved || !dropped || m.sel != "local:8002" || len(m.vms) != 2 {
		t.Fatalf("after the grace period: moved %v dropped %v sel %s vms %d", moved, dropped, m.sel, len(m.vms))
	}
	// Back before the grace period ends: nothing is dropped.
	m.markGone("local:8002", t0)
	m.upsertVM(monitor.VM{Key: "local:8002", Source: "local:8002"})
	if _, dropped := m.expire(t0.Add(time.Hour)); dropped || m.isGone("local:8002") {
		t.Fatal("a VM that came back was dropped")
	}
}
