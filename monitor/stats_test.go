package monitor

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// TestEngineStatsCountSessionsAndReopens: a VM on a port, then another VM
// on the same port (the same key): two sessions, one re-open, and the bytes
// read grow with each.
func TestEngineStatsCountSessionsAndReopens(t *testing.T) {
	leakcheck.Check(t)
	r := startRig(t, nil, 1, SessionOptions{})
	addr := fmt.Sprintf("127.0.0.1:%d", r.ports.First)
	var lastBytes uint64
	for i := 0; i < 2; i++ {
		vm := sim.NewVM(sim.VMSpec{PID: 700 + i, App: "stats", Family: sim.ART, Seed: uint64(i)})
		r.dev.Add(vm)
		if _, err := r.dev.ServeVM(vm, addr); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "VM", 5*time.Second, func() bool { got, ok := r.store.VM(r.key(0)); return ok && got.PID == 700+i && len(got.Threads) > 0 })
		// Every byte the session's JDWP connection read (on Linux, from the
		// socket itself) is in the engine's count, after the handshake's.
		s := r.engine.Session(r.key(0))
		if s == nil {
			t.Fatal("no session")
		}
		if err := s.conn.waitReady(context.Background()); err != nil {
			t.Fatal(err)
		}
		jc := s.conn.jc
		jdwpBytes := jc.Stats().RawBytesIn.Load()
		st := r.engine.Stats()
		if got := st.BytesRead - lastBytes; jdwpBytes == 0 || got < jdwpBytes+uint64(len(jdwp.Handshake)) {
			t.Fatalf("VM %d: engine counted %d bytes, its JDWP connection read %d after the handshake", i, got, jdwpBytes)
		}
		if st.Sessions != uint64(i+1) || st.Reopens != uint64(i) || st.BytesRead <= lastBytes || st.DecodeErrors != 0 {
			t.Fatalf("after VM %d: %+v (bytes before %d)", i, st, lastBytes)
		}
		lastBytes = st.BytesRead
		r.dev.Remove(700 + i)
		waitFor(t, "VM gone", 5*time.Second, func() bool { _, ok := r.store.VM(r.key(0)); return !ok })
	}
}

// TestMalformedChunkIsCountedAndSurvived: a VM that answers HELO and then
// sends a THST chunk too short to hold its header: the chunk is dropped with
// an error on that VM, counted, and the session goes on.
func TestMalformedChunkIsCountedAndSurvived(t *testing.T) {
	leakcheck.Check(t)
	v := startScriptedVM(t, 4711, "com.example.bad", func(_ func(ddm.Message), sendRaw func([]byte)) {
		sendRaw(ddm.AppendChunk(nil, ddm.TypeTHST, []byte{1, 2}))
	})
	<-v.sent
	e, store, key := v.engine, v.store, v.key
	waitFor(t, "decode error", 5*time.Second, func() bool { return e.Stats().DecodeErrors == 1 })
	vm, ok := store.VM(key)
	if !ok || vm.PID != 4711 || !strings.HasPrefix(vm.Err, "thst: ") {
		t.Fatalf("VM after the bad chunk: %+v (present %v)", vm, ok)
	}
	time.Sleep(100 * time.Millisecond)
	if _, ok := store.VM(key); !ok || e.Session(key) == nil {
		t.Fatal("the session ended on a malformed chunk")
	}
}
