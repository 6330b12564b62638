package monitor

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/internal/pixbound"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/testkit/hostile"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/viewtree"
)

// badViewVM answers HELO, FEAT (view-hierarchy) and VULW with two windows;
// VURT and VUOP with what answer returns for the request (nil: no reply).
func badViewVM(t *testing.T, answer func(ddm.Message) ddm.Message) (*Session, context.Context) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	key := fmt.Sprintf("local:%d", ln.Addr().(*net.TCPAddr).Port)
	vmDone := make(chan struct{})
	go func() {
		defer close(vmDone)
		nc, err := ln.Accept()
		ln.Close()
		if err != nil {
			return
		}
		defer nc.Close()
		if jdwp.ServerHandshake(nc, 2*time.Second) != nil {
			return
		}
		for {
			p, err := jdwp.ReadPacket(nc, 0)
			if err != nil {
				return
			}
			chunks, err := ddm.ParseChunks(p.Data, len(p.Data))
			if err != nil || len(chunks) == 0 {
				continue
			}
			m, err := ddm.DecodeFromMonitor(chunks[0])
			if err != nil {
				continue
			}
			var reply ddm.Message
			switch m.(type) {
			case *ddm.HelloRequest:
				reply = &ddm.Hello{ClientVersion: 1, PID: 9, VMIdent: "Dalvik v2.1.0", AppName: "com.example.bad"}
			case *ddm.FeaturesRequest:
				reply = &ddm.Features{Names: []string{"view-hierarchy"}}
			case *ddm.ViewWindowsRequest:
				reply = &ddm.ViewWindows{Names: []string{"good/android.view.ViewRootImpl@1", "bad/android.view.ViewRootImpl@2"}}
			case *ddm.ViewRootRequest, *ddm.ViewOpRequest:
				reply = answer(m)
			}
			if reply != nil {
				jdwp.WritePacket(nc, jdwp.NewReply(p.ID, jdwp.ErrNone, ddm.AppendMessage(nil, reply)))
			}
		}
	}()
	store := NewStore(NewBus())
	e := NewEngine(store, SessionOptions{ThreadInterval: time.Hour, RequestTimeout: 300 * time.Millisecond, ViewSilentWait: 100 * time.Millisecond})
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
	t.Cleanup(func() {
		cancel()
		<-done
		<-vmDone
	})
	var s *Session
	waitFor(t, "features", 5*time.Second, func() bool {
		vm, ok := store.VM(key)
		s = e.Session(key)
		return ok && len(vm.Features) > 0 && s != nil
	})
	return s, ctx
}

// What a broken or busy app may send: a dump cut short (kept, marked), a
// dump that is no dump, a picture that is no PNG, a capture-layers stream
// cut in a record; each is a clear error for that request only, and a good
// window still dumps after them.
func TestViewDebugBadInput(t *testing.T) {
	leakcheck.Check(t)
	e := viewtree.NewEncoder()
	e.Int("window:left", 0)
	e.Int("window:top", 0)
	e.BeginObject("a.Root", 1)
	e.Int("layout:width", 100)
	e.Short("meta:__childCount__", 1)
	e.Key("meta:__child__0")
	e.BeginObject("a.Child", 2)
	e.EndObject()
	e.EndObject()
	good := e.EndStream()
	at := strings.LastIndex(string(good), "\x00\x0dpropertyIndex") - 5
	cut := append(append([]byte{}, good[:at-8]...), good[at:]...) // inside the child, index appended
	layers := viewtree.EncodeLayers(&viewtree.Layers{Width: 10, Height: 10, Views: []viewtree.Layer{{Name: "a.Root@1", PNG: []byte("xxxx")}}})
	s, ctx := badViewVM(t, func(m ddm.Message) ddm.Message {
		switch m := m.(type) {
		case *ddm.ViewRootRequest:
			switch {
			case m.Op == ddm.ViewCaptureLayers:
				return &ddm.ViewRootData{Data: layers[:len(layers)-3]}
			case strings.HasPrefix(m.ViewRoot, "good"):
				return &ddm.ViewRootData{Data: cut}
			}
			return &ddm.ViewRootData{Data: []byte("\x00\x01garbage")}
		case *ddm.ViewOpRequest:
			if m.Op == ddm.ViewCapture && m.View == "a.Root@1" {
				// issue 37 #6: a PNG claiming 20000×20000 (1.6 GiB decoded)
				return &ddm.ViewOpData{Data: hostile.PNG(20000, 20000, 8, 6, false, 2)}
			}
			if m.Op == ddm.ViewCapture {
				return &ddm.ViewOpData{Data: []byte("\x89PNG not really")}
			}
		}
		return nil // silence
	})
	all, err := s.Views().DumpAllWindows(ctx)
	if err != nil || len(all) != 2 {
		t.Fatalf("%v %+v", err, all)
	}
	if all[0].Error != "" || !all[0].Truncated || all[0].ViewCount != 2 {
		t.Errorf("cut dump: %+v", all[0])
	}
	if all[1].Error == "" || all[1].Tree != nil {
		t.Errorf("garbage dump: %+v", all[1])
	}
	if _, err := s.Views().CaptureView(ctx, "good/android.view.ViewRootImpl@1", "a.Child@2"); err == nil || !strings.Contains(err.Error(), "does not decode as PNG") {
		t.Errorf("bad PNG: %v", err)
	}
	if _, err := s.Views().CaptureView(ctx, "good/android.view.ViewRootImpl@1", "a.Root@1"); !errors.Is(err, pixbound.ErrTooLarge) {
		t.Errorf("a PNG claiming 20000×20000: %v", err)
	}
	l, err := s.Views().CaptureLayers(ctx, "good/android.view.ViewRootImpl@1")
	if err != nil || !l.Truncated {
		t.Errorf("cut layers: %v %+v", err, l)
	}
	// A profile left unanswered times out: an error, not a hang.
	pctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	if _, err := s.Views().ProfileView(pctx, "good/android.view.ViewRootImpl@1", "a.Child@2"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("silent profile: %v", err)
	}
	if tr, err := s.Views().DumpWindow(ctx, "good/android.view.ViewRootImpl@1"); err != nil || tr.Count() != 2 {
		t.Errorf("a good window after all that: %v", err)
	}
}
