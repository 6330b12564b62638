package monitor

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/internal/leakcheck"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/scan"
)

// TestEndlessSegmentSetIsDropped: a VM that announces a 1 MiB heap (HPIF)
// and then sends an HPSG set far larger than any such heap has its set
// dropped with an error on that VM; the session goes on, and the next,
// sane set becomes the heap map.
func TestEndlessSegmentSetIsDropped(t *testing.T) {
	leakcheck.Check(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	sentHuge, sentSane := make(chan struct{}), make(chan struct{})
	vmDone := make(chan struct{})
	go func() {
		defer close(vmDone)
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		if jdwp.ServerHandshake(nc, 2*time.Second) != nil {
			return
		}
		id := uint32(0x100)
		send := func(m ddm.Message) {
			id++
			jdwp.WritePacket(nc, &jdwp.Packet{ID: id, CommandSet: jdwp.CmdSetDDM, Command: jdwp.CmdDDMChunk, Data: ddm.AppendMessage(nil, m)})
		}
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
		helloDone := false
		for {
			nc.SetReadDeadline(time.Now().Add(10 * time.Second))
			p, err := jdwp.ReadPacket(nc, 0)
			if err != nil {
				return
			}
			if helloDone || p.CommandSet != jdwp.CmdSetDDM {
				continue
			}
			hello := ddm.AppendMessage(nil, &ddm.Hello{ClientVersion: 1, PID: 4712, VMIdent: "Android Runtime 2.1.0", AppName: "com.example.endless"})
			jdwp.WritePacket(nc, jdwp.NewReply(p.ID, jdwp.ErrNone, hello))
			helloDone = true
			send(&ddm.HeapInfo{Heaps: []ddm.HeapStats{{HeapID: 1, MaxBytes: 1 << 20, SizeBytes: 1 << 20}}})
			set(64 << 20) // 512 MiB of 8-byte units in a heap that may grow to 1 MiB
			close(sentHuge)
			set(1000)
			close(sentSane)
		}
	}()
	store := NewStore(NewBus())
	e := NewEngine(store, SessionOptions{ThreadInterval: 50 * time.Millisecond})
	key := fmt.Sprintf("local:%d", ln.Addr().(*net.TCPAddr).Port)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			return
		}
		e.Handle(ctx, scan.Endpoint{Key: key, Source: key, Conn: nc})
	}()
	<-sentHuge
	<-sentSane
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
	cancel()
	<-done
	<-vmDone
}
