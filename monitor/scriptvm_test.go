package monitor

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/scan"
)

// scriptedVM is a VM on a loopback port that answers HELO (as pid and app)
// and then runs script, which sends what the test needs; it answers nothing
// else, as a modern VM does. A session of a fresh engine (ThreadInterval
// 50 ms) runs on it until the test ends.
type scriptedVM struct {
	key    string
	store  *Store
	engine *Engine
	sent   chan struct{} // closed when script returned
}

func startScriptedVM(t *testing.T, pid uint32, app string, script func(send func(ddm.Message), sendRaw func([]byte))) *scriptedVM {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	v := &scriptedVM{key: fmt.Sprintf("local:%d", ln.Addr().(*net.TCPAddr).Port), store: NewStore(NewBus()), sent: make(chan struct{})}
	v.engine = NewEngine(v.store, SessionOptions{ThreadInterval: 50 * time.Millisecond})
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
		sendRaw := func(data []byte) {
			id++
			jdwp.WritePacket(nc, &jdwp.Packet{ID: id, CommandSet: jdwp.CmdSetDDM, Command: jdwp.CmdDDMChunk, Data: data})
		}
		send := func(m ddm.Message) { sendRaw(ddm.AppendMessage(nil, m)) }
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
			hello := ddm.AppendMessage(nil, &ddm.Hello{ClientVersion: 1, PID: pid, VMIdent: "Android Runtime 2.1.0", AppName: app})
			jdwp.WritePacket(nc, jdwp.NewReply(p.ID, jdwp.ErrNone, hello))
			helloDone = true
			script(send, sendRaw)
			close(v.sent)
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		nc, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			return
		}
		v.engine.Handle(ctx, scan.Endpoint{Key: v.key, Source: v.key, Conn: nc})
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		ln.Close()
		<-vmDone
	})
	return v
}
