package monitor

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// dumpVM is a VM on a loopback port that answers HELO and FEAT (streamed
// heap dumps) and, asked for an HPDS dump, sends one of size bytes as a
// single DDM packet, generated in 64 KiB pieces (so that the test process
// holds no copy of it), then the empty reply. With dieAt > 0 it closes
// the connection after dieAt bytes of the dump instead.
type dumpVM struct {
	size, dieAt int
	mu          sync.Mutex
	sums        [][sha256.Size]byte // of each dump sent whole
	seed        atomic.Uint64
}

// send writes one HPDS packet of v.size bytes of data to nc.
func (v *dumpVM) send(nc net.Conn, id uint32) error {
	var hdr [jdwp.HeaderLen + 8]byte
	binary.BigEndian.PutUint32(hdr[0:], uint32(len(hdr)+v.size))
	binary.BigEndian.PutUint32(hdr[4:], id)
	hdr[9], hdr[10] = jdwp.CmdSetDDM, jdwp.CmdDDMChunk
	binary.BigEndian.PutUint32(hdr[11:], uint32(ddm.TypeHPDS))
	binary.BigEndian.PutUint32(hdr[15:], uint32(v.size))
	if _, err := nc.Write(hdr[:]); err != nil {
		return err
	}
	rng := rand.NewChaCha8([32]byte{byte(v.seed.Add(1))})
	h := sha256.New()
	buf := make([]byte, 64<<10)
	for sent := 0; sent < v.size; {
		piece := buf[:min(len(buf), v.size-sent)]
		if v.dieAt > 0 && sent+len(piece) > v.dieAt {
			piece = piece[:v.dieAt-sent]
		}
		rng.Read(piece)
		h.Write(piece)
		if _, err := nc.Write(piece); err != nil {
			return err
		}
		sent += len(piece)
		if v.dieAt > 0 && sent >= v.dieAt {
			return errors.New("died")
		}
	}
	v.mu.Lock()
	v.sums = append(v.sums, [sha256.Size]byte(h.Sum(nil)))
	v.mu.Unlock()
	return nil
}

// sum returns the hash of the i-th dump sent whole, waiting for the VM to
// finish it (the reader may have the last byte before the sender's hash).
func (v *dumpVM) sum(t *testing.T, i int) [sha256.Size]byte {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v.mu.Lock()
		if len(v.sums) > i {
			s := v.sums[i]
			v.mu.Unlock()
			return s
		}
		v.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("the VM did not finish dump %d", i)
		}
		time.Sleep(time.Millisecond)
	}
}

func (v *dumpVM) serve(nc net.Conn) {
	defer nc.Close()
	if jdwp.ServerHandshake(nc, 2*time.Second) != nil {
		return
	}
	id := uint32(0x100)
	for {
		p, err := jdwp.ReadPacket(nc, 0)
		if err != nil || p.IsReply() || p.CommandSet != jdwp.CmdSetDDM || len(p.Data) < 8 {
			if err != nil {
				return
			}
			continue
		}
		var reply []byte
		switch ddm.Type(binary.BigEndian.Uint32(p.Data)) {
		case ddm.TypeHELO:
			reply = ddm.AppendMessage(nil, &ddm.Hello{ClientVersion: 1, PID: 4242, VMIdent: "Dalvik v2.1.0", AppName: "com.example.big"})
		case ddm.TypeFEAT:
			reply = ddm.AppendMessage(nil, &ddm.Features{Names: []string{"hprof-heap-dump", "hprof-heap-dump-streaming"}})
		case ddm.TypeHPDS:
			id++
			if v.send(nc, id) != nil {
				return
			}
		default:
			continue // a VM answering nothing else
		}
		jdwp.WritePacket(nc, jdwp.NewReply(p.ID, jdwp.ErrNone, reply))
	}
}

// startDumpVM runs v and a session of a fresh engine on it; it returns
// the session once HELO and FEAT are in.
func startDumpVM(t *testing.T, v *dumpVM) *Session {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	vmDone := make(chan struct{})
	go func() {
		defer close(vmDone)
		if nc, err := ln.Accept(); err == nil {
			v.serve(nc)
		}
	}()
	key := "local:" + fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	engine := NewEngine(NewStore(NewBus()), SessionOptions{ThreadInterval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if nc, err := net.Dial("tcp", ln.Addr().String()); err == nil {
			engine.Handle(ctx, scan.Endpoint{Key: key, Source: key, Conn: nc})
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		ln.Close()
		<-vmDone
	})
	var s *Session
	waitFor(t, "the session", 10*time.Second, func() bool { s = engine.Session(key); return s != nil })
	wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
	defer wcancel()
	if err := s.conn.waitReady(wctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// peakHeap runs f while sampling the heap in use, and returns how far it
// rose above what it was before f.
func peakHeap(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f()
	close(stop)
	<-sampled
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

// hashWriter hashes what is written to it; it fails (once) after failAt
// bytes when failAt > 0.
type hashWriter struct {
	h      hash.Hash
	n      int64
	failAt int64
}

func (w *hashWriter) Write(b []byte) (int, error) {
	if w.failAt > 0 && w.n+int64(len(b)) > w.failAt {
		return 0, errors.New("disk full")
	}
	w.h.Write(b)
	w.n += int64(len(b))
	return len(b), nil
}

// An HPDS dump of 64 MiB goes to the writer as it arrives: the heap in
// use rises by a small fraction of the dump (the in-memory HeapDump, for
// comparison, holds all of it), and what is written is byte for byte what
// the VM sent. A writer that fails mid-dump gets an error, and the
// connection stays in step (the next dump is whole); a VM that dies
// mid-dump gives an error with the bytes written so far.
func TestHeapDumpStreamsToWriter(t *testing.T) {
	leakcheck.Check(t)
	size := 64 << 20
	if testing.Short() {
		size = 16 << 20
	}
	v := &dumpVM{size: size}
	s := startDumpVM(t, v)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	w := &hashWriter{h: sha256.New()}
	var n int64
	var err error
	streamed := peakHeap(func() { n, err = s.HeapDumpTo(ctx, w, nil) })
	if err != nil || n != int64(size) || w.n != n {
		t.Fatalf("HeapDumpTo: %d bytes (%d written), %v", n, w.n, err)
	}
	if got := [sha256.Size]byte(w.h.Sum(nil)); got != v.sum(t, 0) {
		t.Fatal("the dump written differs from what the VM sent")
	}
	var held []byte
	inMemory := peakHeap(func() { held, err = s.HeapDump(ctx, nil) })
	if err != nil || len(held) != size || [sha256.Size]byte(sha256.Sum256(held)) != v.sum(t, 1) {
		t.Fatalf("HeapDump: %d bytes, %v", len(held), err)
	}
	held = nil
	t.Logf("%d MiB dump: heap in use rose by %.1f MiB streamed, %.1f MiB held in memory",
		size>>20, float64(streamed)/(1<<20), float64(inMemory)/(1<<20))
	if streamed > 8<<20 {
		t.Errorf("streaming a %d MiB dump raised the heap in use by %d MiB", size>>20, streamed>>20)
	}
	if inMemory < uint64(size) {
		t.Errorf("the in-memory dump raised the heap in use by only %d MiB: the measurement does not see a held dump", inMemory>>20)
	}

	// A writer failing midway: an error, the rest of the packet dropped,
	// and the next dump arrives whole on the same connection.
	bad := &hashWriter{h: sha256.New(), failAt: 3 << 20}
	if n, err := s.HeapDumpTo(ctx, bad, nil); err == nil || n > 3<<20 {
		t.Fatalf("a failing writer: %d bytes, %v", n, err)
	}
	again := &hashWriter{h: sha256.New()}
	if n, err := s.HeapDumpTo(ctx, again, nil); err != nil || n != int64(size) || [sha256.Size]byte(again.h.Sum(nil)) != v.sum(t, 3) {
		t.Fatalf("the dump after a failed one: %d bytes, %v", n, err)
	}
}

func TestHeapDumpVMDiesMidway(t *testing.T) {
	leakcheck.Check(t)
	v := &dumpVM{size: 8 << 20, dieAt: 5 << 20}
	s := startDumpVM(t, v)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w := &hashWriter{h: sha256.New()}
	n, err := s.HeapDumpTo(ctx, w, nil)
	if err == nil || n == 0 || n > 5<<20 || n != w.n {
		t.Fatalf("a VM dying mid-dump: %d bytes (%d written), %v", n, w.n, err)
	}
	t.Logf("%d of %d bytes, then: %v", n, v.size, err)
}

var _ io.Writer = (*hashWriter)(nil)

// A large HPDS or MPSE chunk that no collect awaits, or one of a type no
// decoder knows, is dropped as it arrives (diverted to nowhere), not read
// whole into memory to be dropped then; other chunks, and one a collect
// awaits, take the normal path.
func TestUnaskedDumpDroppedUnread(t *testing.T) {
	s := &transfers{log: slog.New(slog.DiscardHandler)}
	chunk := func(ty ddm.Type, n int) (*jdwp.Packet, int, []byte) {
		head := binary.BigEndian.AppendUint32(nil, uint32(ty))
		head = binary.BigEndian.AppendUint32(head, uint32(n-8))
		return &jdwp.Packet{CommandSet: jdwp.CmdSetDDM, Command: jdwp.CmdDDMChunk}, n, head
	}
	for _, ty := range []ddm.Type{ddm.TypeHPDS, ddm.TypeMPSE} {
		w, end := s.divert(chunk(ty, 30<<20))
		if w != io.Discard || end == nil {
			t.Fatalf("%v nobody awaits: writer %v", ty, w)
		}
		end(nil)
	}
	if w, _ := s.divert(chunk(ddm.Type(0x58585858), 30<<20)); w != io.Discard {
		t.Fatalf("a type no decoder knows: writer %v", w)
	}
	if w, _ := s.divert(chunk(ddm.TypeHPSG, 30<<20)); w != nil {
		t.Fatalf("HPSG: diverted to %v", w)
	}
	s.waiting = map[ddm.Type]chan []byte{ddm.TypeHPDS: make(chan []byte, 1)} // a collect reading it whole
	if w, _ := s.divert(chunk(ddm.TypeHPDS, 30<<20)); w != nil {
		t.Fatalf("awaited HPDS: diverted to %v", w)
	}
}
