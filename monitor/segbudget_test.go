package monitor

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/heap"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// cyclingMapVM serves one VM that answers HELO and then sends heap maps of
// segs segments each, HPST…HPSG…HPEN, rounds times (no HPIF: the per-set
// bounds are the defaults).
func cyclingMapVM(t *testing.T, ln net.Listener, pid uint32, rounds, segs int) {
	nc, err := ln.Accept()
	if err != nil {
		return
	}
	defer nc.Close()
	if jdwp.ServerHandshake(nc, 2*time.Second) != nil {
		return
	}
	id := uint32(0x100)
	send := func(m ddm.Message) error {
		id++
		return jdwp.WritePacket(nc, &jdwp.Packet{ID: id, CommandSet: jdwp.CmdSetDDM, Command: jdwp.CmdDDMChunk, Data: ddm.AppendMessage(nil, m)})
	}
	for {
		nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		p, err := jdwp.ReadPacket(nc, 0)
		if err != nil {
			return
		}
		if p.CommandSet != jdwp.CmdSetDDM || p.IsReply() {
			continue
		}
		hello := ddm.AppendMessage(nil, &ddm.Hello{ClientVersion: 1, PID: pid, VMIdent: "Android Runtime 2.1.0", AppName: fmt.Sprintf("com.example.maps%d", pid)})
		jdwp.WritePacket(nc, jdwp.NewReply(p.ID, jdwp.ErrNone, hello))
		break
	}
	// Each segment: 4 KiB of usage data (2048 one-unit runs).
	w := ddm.NewSegmentWriter(ddm.TypeHPSG, 1, 8)
	w.Start(0x1000)
	for i := 0; i < segs*2048; i++ {
		st := ddm.NewState(ddm.KindObject, ddm.SolidityHard)
		if i%2 == 1 {
			st = ddm.NewState(ddm.KindObject, ddm.SolidityFree)
		}
		w.Append(st, 1)
	}
	all := w.Segments()
	for range rounds {
		send(&ddm.HeapStart{HeapID: 1})
		for i := range all {
			if send(&all[i]) != nil {
				return
			}
		}
		send(&ddm.HeapEnd{HeapID: 1})
	}
	nc.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		if _, err := jdwp.ReadPacket(nc, 0); err != nil {
			return
		}
	}
}

// TestSegmentBudgetBoundsCyclingVMs: issue 30 #10. Four VMs cycling
// HPST / many HPSG / HPEN each kept a set being built and the last map:
// the per-set bound four times over, twice. The engine's process-wide
// budget (here 3 MiB, each map ~1.1 MiB) holds them all: its peak stays
// within it, the maps that fit become VMs' heap maps, and every byte is
// given back when the sessions end.
func TestSegmentBudgetBoundsCyclingVMs(t *testing.T) {
	leakcheck.Check(t)
	const limit = 3 << 20
	budget := heap.NewBudget(limit)
	store := NewStore(NewBus())
	e := NewEngine(store, SessionOptions{ThreadInterval: time.Hour, SegmentBudget: budget})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() }) // before leakcheck's, even after a Fatal
	var keys []string
	for i := range 4 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("local:%d", ln.Addr().(*net.TCPAddr).Port)
		keys = append(keys, key)
		wg.Add(2)
		go func() { defer wg.Done(); defer ln.Close(); cyclingMapVM(t, ln, uint32(5000+i), 6, 256) }()
		go func() {
			defer wg.Done()
			nc, err := net.Dial("tcp", ln.Addr().String())
			if err != nil {
				return
			}
			e.Handle(ctx, scan.Endpoint{Key: key, Source: key, Conn: nc})
		}()
	}
	waitFor(t, "a heap map", 20*time.Second, func() bool {
		for _, k := range keys {
			if s := store.Segments(k); s != nil && s.Units() == 256*2048 {
				return true
			}
		}
		return false
	})
	time.Sleep(300 * time.Millisecond) // the rest of the rounds
	if p := budget.Peak(); p > limit || p < limit/2 {
		t.Fatalf("peak %d bytes of heap maps, budget %d: not charged as built", p, limit)
	}
	if e.Stats().DecodeErrors == 0 {
		t.Fatal("no set was dropped: four VMs' maps and sets fitted a budget they exceed")
	}
	t.Logf("peak %d bytes of heap maps for 4 VMs (budget %d); %d sets dropped", budget.Peak(), limit, e.Stats().DecodeErrors)
	cancel()
	wg.Wait()
	if u := budget.Used(); u != 0 {
		t.Fatalf("%d bytes still charged after every session ended", u)
	}
}
