package monitor

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/record"
	"github.com/ddmtui/ddmtui/scan"
)

// A VM's records lie between its endpoint record and its gone record, and
// nothing reaches the store after the session's end: a VM that sends WAIT
// the moment its connection opens (one started to wait for a debugger) and
// keeps sending until the connection closes is recorded, and shown, only
// while its session lives. A replay drops a VM's records before its endpoint
// record and re-creates nothing after its end, so anything outside made
// replay differ from what the live monitor showed.
func TestSessionRecordsNothingOutsideItsLife(t *testing.T) {
	wait := ddm.AppendMessage(nil, &ddm.Wait{Reason: ddm.WaitForDebugger})
	for round := range 200 { // the old order failed within 2-80 rounds
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
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
			for id := uint32(1); ; id++ { // WAIT at once, and on until the monitor hangs up
				if jdwp.WritePacket(nc, &jdwp.Packet{ID: id, CommandSet: jdwp.CmdSetDDM, Command: jdwp.CmdDDMChunk, Data: wait}) != nil {
					return
				}
				if id%64 == 0 {
					time.Sleep(time.Millisecond)
				}
			}
		}()
		var buf bytes.Buffer
		rec, err := NewRecorder(&buf, 0)
		if err != nil {
			t.Fatal(err)
		}
		store := NewStore(NewBus())
		key := "local:" + ln.Addr().String()
		s := NewSession(scan.Endpoint{Key: key, Source: "local"}, store, SessionOptions{Recorder: rec})
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan error, 1)
		go func() { ran <- s.Run(ctx, nc) }()
		waitFor(t, "the waiting VM", 5*time.Second, func() bool { vm, ok := store.VM(key); return ok && vm.Debugger == DebuggerWaiting })
		cancel()
		if err := <-ran; err != nil {
			t.Fatal(err)
		}
		ln.Close()
		<-vmDone
		if vm, ok := store.VM(key); ok {
			t.Fatalf("round %d: the VM is in the store after its session ended: %+v", round, vm)
		}
		if err := rec.Flush(); err != nil {
			t.Fatal(err)
		}
		got, err := ReadRecording(&buf)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []record.Kind
		for _, x := range got.Records {
			if x.Key == key {
				kinds = append(kinds, x.Kind)
			}
		}
		if len(kinds) < 3 || kinds[0] != record.KindEndpoint || kinds[len(kinds)-1] != record.KindGone {
			t.Fatalf("round %d: the VM's records are %v; want its endpoint record first and its gone record last", round, kinds)
		}
	}
}
