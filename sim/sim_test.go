package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/trace"
)

func serveOne(t *testing.T, spec VMSpec) (*Device, *VM, string) {
	t.Helper()
	dev := NewDevice("sim-test")
	vm := NewVM(spec)
	dev.Add(vm)
	addr, err := dev.ServeVM(vm, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev, vm, addr
}

func dialVM(t *testing.T, addr string) *jdwp.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	c, err := jdwp.Dial(ctx, addr, jdwp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func ddmRequest(t *testing.T, c *jdwp.Conn, m ddm.Message, timeout time.Duration) (ddm.Message, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	p, err := c.Request(ctx, jdwp.CmdSetDDM, jdwp.CmdDDMChunk, ddm.AppendMessage(nil, m))
	if err != nil {
		return nil, err
	}
	chunks, err := ddm.ParseChunks(p.Data, len(p.Data))
	if err != nil {
		t.Fatalf("reply to %v: %v", m.ChunkType(), err)
	}
	if len(chunks) == 0 {
		return nil, nil // empty reply
	}
	return ddm.DecodeFromVM(chunks[0])
}

// unsolicited collects the VM's DDM commands until one of type stop arrives.
func unsolicited(t *testing.T, c *jdwp.Conn, stop ddm.Type) []ddm.Message {
	t.Helper()
	var out []ddm.Message
	timeout := time.After(5 * time.Second)
	for {
		select {
		case p, ok := <-c.Incoming():
			if !ok {
				t.Fatalf("connection ended while waiting for %v", stop)
			}
			if !p.IsDDM() {
				t.Fatalf("VM sent a non-DDM packet: %v", p)
			}
			chunks, err := ddm.ParseChunks(p.Data, len(p.Data))
			if err != nil || len(chunks) != 1 {
				t.Fatalf("VM chunk framing: %v (%d chunks)", err, len(chunks))
			}
			m, err := ddm.DecodeFromVM(chunks[0])
			if err != nil {
				t.Fatalf("decode %v: %v", chunks[0].Type, err)
			}
			out = append(out, m)
			if m.ChunkType() == stop {
				return out
			}
		case <-timeout:
			t.Fatalf("no %v within 5s (got %d chunks)", stop, len(out))
		}
	}
}

func TestHELOGivesPidAndAppName(t *testing.T) {
	leakcheck.Check(t)
	_, _, addr := serveOne(t, VMSpec{PID: 4242, App: "com.example.mail", Package: "com.example.mail", Family: ART, Seed: 1})
	c := dialVM(t, addr)
	m, err := ddmRequest(t, c, &ddm.HelloRequest{ServerVersion: 1}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	h, ok := m.(*ddm.Hello)
	if !ok {
		t.Fatalf("reply %T", m)
	}
	if h.PID != 4242 || h.AppName != "com.example.mail" || h.VMIdent != "Dalvik v2.1.0" || h.ABI != "64-bit ("+Architecture+")" /* as its track-app entry says */ {
		t.Fatalf("HELO reply %+v", h)
	}
	m, err = ddmRequest(t, c, &ddm.FeaturesRequest{}, time.Second)
	if err != nil || !m.(*ddm.Features).Has("method-trace-profiling-streaming") {
		t.Fatalf("FEAT: %v %v", m, err)
	}
}

func TestThreadsNotifyThenStatus(t *testing.T) {
	leakcheck.Check(t)
	_, vm, addr := serveOne(t, VMSpec{PID: 100, App: "a", Family: ART, Threads: 5, Seed: 7})
	c := dialVM(t, addr)
	// THCR for every thread arrives before the THEN reply.
	if _, err := ddmRequest(t, c, &ddm.ThreadNotifyRequest{Enable: true}, time.Second); err != nil {
		t.Fatal(err)
	}
	truth := vm.Threads()
	var created []ThreadInfo
	for len(created) < len(truth) {
		select {
		case p := <-c.Incoming():
			ch, _ := ddm.ParseChunks(p.Data, len(p.Data))
			m, err := ddm.DecodeFromVM(ch[0])
			if err != nil {
				t.Fatal(err)
			}
			tc := m.(*ddm.ThreadCreated)
			created = append(created, ThreadInfo{ID: tc.ID, Name: tc.Name})
		default:
			t.Fatalf("only %d of %d THCR before the THEN reply", len(created), len(truth))
		}
	}
	for i := range truth {
		if created[i].ID != truth[i].ID || created[i].Name != truth[i].Name {
			t.Fatalf("THCR %d = %+v, want %+v", i, created[i], truth[i])
		}
	}
	m, err := ddmRequest(t, c, &ddm.ThreadStatusRequest{}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	tab := m.(*ddm.ThreadStatusTable)
	if len(tab.Threads) != len(truth) {
		t.Fatalf("THST has %d threads, VM %d", len(tab.Threads), len(truth))
	}
	for i, ts := range tab.Threads {
		if ts.ID != truth[i].ID || ts.Status != truth[i].Status || ts.SysTID != truth[i].SysTID || ts.Daemon != truth[i].Daemon {
			t.Fatalf("THST entry %d = %+v, VM %+v", i, ts, truth[i])
		}
	}
	m, err = ddmRequest(t, c, &ddm.StackTraceRequest{ThreadID: 1}, time.Second)
	if err != nil || len(m.(*ddm.StackTrace).Frames) == 0 {
		t.Fatalf("STKL: %v %v", m, err)
	}
	m, err = ddmRequest(t, c, &ddm.StackTraceRequest{ThreadID: 9999}, time.Second)
	var fail *ddm.FailError
	if f, ok := m.(*ddm.FailError); !ok || f.Message != "Stack trace unavailable" {
		t.Fatalf("STKL of a missing thread: %v %v (%v)", m, err, fail)
	}
	if vm.Stats().NonDDMPackets.Load() != 0 {
		t.Fatal("test client sent non-DDM packets")
	}
}

func TestModernARTDoesNotReplyToEmptyHandlers(t *testing.T) {
	leakcheck.Check(t)
	_, _, addr := serveOne(t, VMSpec{PID: 5, App: "m", Family: ART, Modern: true, Seed: 2})
	c := dialVM(t, addr)
	_, err := ddmRequest(t, c, &ddm.HeapInfoRequest{When: ddm.HeapInfoEveryGC}, 200*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("HPIF on modern ART: err = %v, want no reply (timeout)", err)
	}
	// The connection is still good and HELO is answered.
	m, err := ddmRequest(t, c, &ddm.HelloRequest{ServerVersion: 1}, time.Second)
	if err != nil || m.(*ddm.Hello).Extent != ddm.HelloPackageName {
		t.Fatalf("HELO after an unanswered request: %v %v", m, err)
	}
	// An unknown chunk: no reply either.
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if _, err := c.Request(ctx, jdwp.CmdSetDDM, jdwp.CmdDDMChunk, ddm.AppendChunk(nil, ddm.Type(0x58585858), nil)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("unknown chunk on modern ART: %v", err)
	}
}

func TestClassicReplyEmptyToUnknownChunk(t *testing.T) {
	leakcheck.Check(t)
	_, _, addr := serveOne(t, VMSpec{PID: 6, App: "c", Family: Dalvik, Seed: 2})
	c := dialVM(t, addr)
	p, err := c.Request(context.Background(), jdwp.CmdSetDDM, jdwp.CmdDDMChunk, ddm.AppendChunk(nil, ddm.Type(0x58585858), nil))
	if err != nil || len(p.Data) != 0 {
		t.Fatalf("unknown chunk on Dalvik: %v, %d bytes (want an empty reply)", err, len(p.Data))
	}
}

func TestJVMRejectsDDMAndAnswersJDWP(t *testing.T) {
	leakcheck.Check(t)
	_, vm, addr := serveOne(t, VMSpec{PID: 7, App: "jvm", Family: JVM, Threads: 2, Seed: 3})
	c := dialVM(t, addr)
	_, err := ddmRequest(t, c, &ddm.HelloRequest{ServerVersion: 1}, time.Second)
	var re *jdwp.ReplyError
	if !errors.As(err, &re) || re.Code != jdwp.ErrNotImplemented {
		t.Fatalf("HELO to a JVM: %v", err)
	}
	ctx := context.Background()
	v, err := c.Version(ctx)
	if err != nil || v.VMName != "OpenJDK 64-Bit Server VM" {
		t.Fatalf("version %+v %v", v, err)
	}
	sz, err := c.IDSizes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := c.AllThreads(ctx, sz)
	if err != nil {
		t.Fatal(err)
	}
	truth := vm.Threads()
	if len(ids) != len(truth) {
		t.Fatalf("AllThreads %d, VM %d", len(ids), len(truth))
	}
	for i, id := range ids {
		n, err := c.ThreadName(ctx, sz, id)
		if err != nil || n != truth[i].Name {
			t.Fatalf("name %q %v, want %q", n, err, truth[i].Name)
		}
		st, err := c.ThreadStatus(ctx, sz, id)
		if err != nil || st.Status != int32(truth[i].Status) {
			t.Fatalf("status %+v %v, want %d", st, err, truth[i].Status)
		}
	}
	if _, err := c.ThreadName(ctx, sz, 12345); !errors.Is(err, &jdwp.ReplyError{Code: jdwp.ErrInvalidThread}) {
		t.Fatalf("name of a bogus thread: %v", err)
	}
}

func TestHeapAtGCMatchesTruth(t *testing.T) {
	leakcheck.Check(t)
	_, vm, addr := serveOne(t, VMSpec{PID: 8, App: "h", Family: ART, HeapBytes: 4 << 20, Fragmented: true, Seed: 4})
	c := dialVM(t, addr)
	for _, m := range []ddm.Message{&ddm.HeapInfoRequest{When: ddm.HeapInfoEveryGC}, &ddm.SegmentRequest{Type: ddm.TypeHPSG, When: 1, What: 0}} {
		if _, err := ddmRequest(t, c, m, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ddmRequest(t, c, &ddm.GCRequest{}, time.Second); err != nil {
		t.Fatal(err)
	}
	msgs := unsolicited(t, c, ddm.TypeHPEN)
	info, ok := msgs[0].(*ddm.HeapInfo)
	if !ok {
		t.Fatalf("first chunk after GC is %T, want HPIF", msgs[0])
	}
	truth := vm.Heap()
	hs := info.Heaps[0]
	if uint64(hs.SizeBytes) != truth.SizeBytes || uint64(hs.AllocatedBytes) != truth.AllocatedBytes || uint64(hs.AllocatedObjects) != truth.Objects || uint64(hs.MaxBytes) != truth.MaxBytes {
		t.Fatalf("HPIF %+v, truth %+v", hs, truth)
	}
	if _, ok := msgs[1].(*ddm.HeapStart); !ok {
		t.Fatalf("second chunk %T, want HPST", msgs[1])
	}
	var byKind, bySolid [8]uint64
	var units uint64
	segs := 0
	for _, m := range msgs[2 : len(msgs)-1] {
		s := m.(*ddm.HeapSegment)
		segs++
		if len(s.Data) > ddm.MaxSegmentData {
			t.Fatalf("segment with %d bytes of data", len(s.Data))
		}
		for r := range s.Runs {
			if r.State.Solidity() != ddm.SolidityFree {
				byKind[r.State.Kind()] += uint64(r.Units)
			}
			bySolid[r.State.Solidity()] += uint64(r.Units)
			units += uint64(r.Units)
		}
	}
	wantKind, wantSolid := vm.SegmentTruth()
	if byKind != wantKind || bySolid != wantSolid {
		t.Fatalf("segments by kind %v / solidity %v, truth %v / %v", byKind, bySolid, wantKind, wantSolid)
	}
	if units*heapUnit != truth.SizeBytes || segs < 2 {
		t.Fatalf("segments cover %d bytes in %d chunks, heap footprint %d", units*heapUnit, segs, truth.SizeBytes)
	}
}

func TestWaitAndAppNameChange(t *testing.T) {
	leakcheck.Check(t)
	_, vm, addr := serveOne(t, VMSpec{PID: 9, App: "com.example.late", Family: ART, WaitingForDebugger: true, PreInitialized: true, Seed: 5})
	c := dialVM(t, addr)
	m, err := ddmRequest(t, c, &ddm.HelloRequest{ServerVersion: 1}, time.Second)
	if err != nil || m.(*ddm.Hello).AppName != "<pre-initialized>" {
		t.Fatalf("HELO before naming: %v %v", m, err)
	}
	if w := unsolicited(t, c, ddm.TypeWAIT); w[len(w)-1].(*ddm.Wait).Reason != 0 {
		t.Fatalf("WAIT %+v", w)
	}
	vm.Step()
	msgs := unsolicited(t, c, ddm.TypeAPNM)
	if a := msgs[len(msgs)-1].(*ddm.AppName); a.Name != "com.example.late" {
		t.Fatalf("APNM %+v", a)
	}
}

func TestExitEndsTheVM(t *testing.T) {
	leakcheck.Check(t)
	dev, vm, addr := serveOne(t, VMSpec{PID: 11, App: "x", Family: ART, Seed: 6})
	c := dialVM(t, addr)
	if _, err := c.Post(jdwp.CmdSetDDM, jdwp.CmdDDMChunk, ddm.AppendMessage(nil, &ddm.ExitRequest{Status: 3})); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("connection still open after EXIT")
	}
	deadline := time.Now().Add(2 * time.Second)
	for dev.VM(11) != nil && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if dev.VM(11) != nil || !vm.Exited() {
		t.Fatal("VM still on the device after EXIT")
	}
	if nc, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		nc.Close()
		t.Fatal("the exited VM's port still accepts connections")
	}
}

func TestOneConnectionAtATime(t *testing.T) {
	leakcheck.Check(t)
	_, _, addr := serveOne(t, VMSpec{PID: 12, App: "y", Family: ART, Seed: 6})
	c := dialVM(t, addr)
	if _, err := ddmRequest(t, c, &ddm.HelloRequest{ServerVersion: 1}, time.Second); err != nil {
		t.Fatal(err)
	}
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	nc.SetDeadline(time.Now().Add(2 * time.Second))
	if _, err := io.ReadAll(nc); err != nil {
		t.Fatalf("second connection: %v (want it closed at once)", err)
	}
	// The first connection still works.
	if _, err := ddmRequest(t, c, &ddm.ThreadStatusRequest{}, time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestDeterministicFromSeed(t *testing.T) {
	run := func() string {
		vm := NewVM(VMSpec{PID: 50, App: "d", Family: ART, Threads: 6, Seed: 99})
		for i := 0; i < 40; i++ {
			vm.Step()
		}
		return fmt.Sprint(vm.Threads(), vm.Heap())
	}
	a, b := run(), run()
	if a != b {
		t.Fatalf("same seed, different VMs:\n%s\n%s", a, b)
	}
	other := NewVM(VMSpec{PID: 50, App: "d", Family: ART, Threads: 6, Seed: 100})
	for i := 0; i < 40; i++ {
		other.Step()
	}
	if fmt.Sprint(other.Threads(), other.Heap()) == a {
		t.Fatal("different seeds gave identical VMs")
	}
}

func TestScenarioIsVariedAndDeterministic(t *testing.T) {
	s := Scenario(1, 10)
	if !reflect.DeepEqual(s, Scenario(1, 10)) {
		t.Fatal("scenario not deterministic")
	}
	var waiting, fragmented, dalvik, jvm bool
	pids := map[int]bool{}
	for _, v := range s {
		waiting = waiting || v.WaitingForDebugger
		fragmented = fragmented || v.Fragmented
		dalvik = dalvik || v.Family == Dalvik
		jvm = jvm || v.Family == JVM
		if pids[v.PID] {
			t.Fatalf("duplicate pid %d", v.PID)
		}
		pids[v.PID] = true
	}
	if !waiting || !fragmented || !dalvik || !jvm {
		t.Fatalf("scenario lacks variety: waiting=%v fragmented=%v dalvik=%v jvm=%v", waiting, fragmented, dalvik, jvm)
	}
}

func TestDeviceOpenJDWPAndClose(t *testing.T) {
	leakcheck.Check(t)
	dev := NewDevice("d")
	dev.Add(NewVM(VMSpec{PID: 77, App: "p", Family: ART, Seed: 1}))
	pids, changed := dev.JDWPPids()
	if fmt.Sprint(pids) != "[77]" {
		t.Fatalf("pids %v", pids)
	}
	nc, err := dev.OpenJDWP(77)
	if err != nil {
		t.Fatal(err)
	}
	if err := jdwp.ClientHandshake(nc, time.Second); err != nil {
		t.Fatal(err)
	}
	c := jdwp.NewConn(nc, jdwp.Options{})
	m, err := ddmRequest(t, c, &ddm.HelloRequest{ServerVersion: 1}, time.Second)
	if err != nil || m.(*ddm.Hello).PID != 77 {
		t.Fatalf("HELO through OpenJDWP: %v %v", m, err)
	}
	dev.Add(NewVM(VMSpec{PID: 78, App: "q", Family: ART, Seed: 1}))
	select {
	case <-changed:
	default:
		t.Fatal("adding a VM did not signal a change")
	}
	if _, err := dev.OpenJDWP(1); err == nil {
		t.Fatal("OpenJDWP of a missing pid succeeded")
	}
	dev.Close()
	select {
	case <-c.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("device Close left the JDWP stream open")
	}
	c.Close()
}

func TestMethodProfilingReturnsRealTrace(t *testing.T) {
	leakcheck.Check(t)
	for _, modern := range []bool{false, true} {
		t.Run(fmt.Sprintf("modern=%v", modern), func(t *testing.T) {
			_, vm, addr := serveOne(t, VMSpec{PID: 321, App: "prof", Family: ART, Modern: modern, Threads: 3, Seed: 8})
			c := dialVM(t, addr)
			m, err := ddmRequest(t, c, &ddm.ProfilingStatusRequest{}, time.Second)
			if err != nil || m.(*ddm.ProfilingStatus).Mode != ddm.ProfilingInactive {
				t.Fatalf("MPRQ before: %v %v", m, err)
			}
			if _, err := c.Post(jdwp.CmdSetDDM, jdwp.CmdDDMChunk, ddm.AppendMessage(nil, &ddm.MethodTraceStreamStartRequest{BufferSize: 8 << 20})); err != nil {
				t.Fatal(err)
			}
			m, err = ddmRequest(t, c, &ddm.ProfilingStatusRequest{}, time.Second)
			if err != nil || m.(*ddm.ProfilingStatus).Mode != ddm.ProfilingMethodTrace {
				t.Fatalf("MPRQ while tracing: %v %v", m, err)
			}
			if _, err := c.Post(jdwp.CmdSetDDM, jdwp.CmdDDMChunk, ddm.AppendMessage(nil, &ddm.MethodTraceStreamStopRequest{})); err != nil {
				t.Fatal(err)
			}
			msgs := unsolicited(t, c, ddm.TypeMPSE)
			data := msgs[len(msgs)-1].(*ddm.MethodTraceData).Trace
			prof, err := trace.ReadProfile(bytes.NewReader(data), trace.BuildOptions{})
			if err != nil {
				t.Fatalf("the MPSE body is not a trace file: %v", err)
			}
			if prof.Header.Version != 3 || prof.Header.Clocks != trace.Dual {
				t.Fatalf("trace version %d clocks %v, want ART's v3 dual clock", prof.Header.Version, prof.Header.Clocks)
			}
			// ART writes an entry for every frame on the stack when tracing
			// begins: no exit comes with an empty stack.
			if n := prof.Warnings.Counts[trace.WarnUnmatchedExit]; n != 0 {
				t.Fatalf("%d unmatched-exit warnings: the simulator writes exits of frames it never entered", n)
			}
			names := map[string]bool{}
			for _, th := range prof.Header.Threads {
				names[th.Name] = true
			}
			for _, th := range vm.Threads() {
				if !names[th.Name] {
					t.Fatalf("thread %q of the VM missing from the trace key", th.Name)
				}
			}
			if vm.ProfilingMode() != ddm.ProfilingInactive {
				t.Fatal("still tracing after MPSE")
			}
		})
	}
}

func TestFileMethodTraceAndSampling(t *testing.T) {
	leakcheck.Check(t)
	_, vm, addr := serveOne(t, VMSpec{PID: 322, App: "prof", Family: ART, Seed: 9})
	c := dialVM(t, addr)
	if _, err := ddmRequest(t, c, &ddm.MethodTraceStartRequest{BufferSize: 1 << 20, FileName: "/sdcard/prof.trace"}, time.Second); err != nil {
		t.Fatal(err)
	}
	m, err := ddmRequest(t, c, &ddm.MethodTraceStopRequest{}, time.Second)
	if err != nil || m.(*ddm.MethodTraceResult).Result != 0 {
		t.Fatalf("MPRE: %v %v", m, err)
	}
	if _, err := trace.ReadProfile(bytes.NewReader(vm.File("/sdcard/prof.trace")), trace.BuildOptions{}); err != nil {
		t.Fatalf("MPRE file: %v", err)
	}
	// Stopping twice fails with the VM's reason.
	if m, _ := ddmRequest(t, c, &ddm.MethodTraceStreamStopRequest{}, time.Second); m == nil || m.(*ddm.FailError).Message != "method tracing is not active" {
		t.Fatalf("MPSE without tracing: %v", m)
	}
	if _, err := ddmRequest(t, c, &ddm.SamplingStartRequest{BufferSize: 1 << 20, IntervalMicros: 1000}, time.Second); err != nil {
		t.Fatal(err)
	}
	if m, _ := ddmRequest(t, c, &ddm.MethodTraceStreamStartRequest{}, time.Second); m == nil || m.(*ddm.FailError).Message != "method tracing is already active" {
		t.Fatalf("MPSS while sampling: %v", m)
	}
	if _, err := c.Post(jdwp.CmdSetDDM, jdwp.CmdDDMChunk, ddm.AppendMessage(nil, &ddm.SamplingStopRequest{})); err != nil {
		t.Fatal(err)
	}
	msgs := unsolicited(t, c, ddm.TypeMPSE)
	if _, err := trace.ReadProfile(bytes.NewReader(msgs[len(msgs)-1].(*ddm.MethodTraceData).Trace), trace.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
}

// While notifications are on, every thread created, renamed or ended is
// announced (THCR, THNM, THDE), so a monitor's table tracks the VM's.
func TestThreadNotificationsFollowSteps(t *testing.T) {
	leakcheck.Check(t)
	_, vm, addr := serveOne(t, VMSpec{PID: 401, App: "churn", Family: ART, Threads: 6, Seed: 11})
	c := dialVM(t, addr)
	if _, err := ddmRequest(t, c, &ddm.ThreadNotifyRequest{Enable: true}, time.Second); err != nil {
		t.Fatal(err)
	}
	names := map[uint32]string{}
	apply := func(m ddm.Message) {
		switch m := m.(type) {
		case *ddm.ThreadCreated:
			names[m.ID] = m.Name
		case *ddm.ThreadRenamed:
			names[m.ID] = m.Name
		case *ddm.ThreadDied:
			delete(names, m.ID)
		}
	}
	drain := func() {
		for {
			select {
			case p := <-c.Incoming():
				ch, _ := ddm.ParseChunks(p.Data, len(p.Data))
				m, err := ddm.DecodeFromVM(ch[0])
				if err != nil {
					t.Fatal(err)
				}
				apply(m)
			case <-time.After(100 * time.Millisecond):
				return
			}
		}
	}
	drain()
	seen := map[ddm.Type]bool{}
	for i := 0; i < 60; i++ {
		vm.Step()
	}
	for {
		select {
		case p := <-c.Incoming():
			ch, _ := ddm.ParseChunks(p.Data, len(p.Data))
			m, _ := ddm.DecodeFromVM(ch[0])
			seen[m.ChunkType()] = true
			apply(m)
			continue
		case <-time.After(200 * time.Millisecond):
		}
		break
	}
	for _, typ := range []ddm.Type{ddm.TypeTHCR, ddm.TypeTHNM, ddm.TypeTHDE} {
		if !seen[typ] {
			t.Errorf("no %v in 60 steps", typ)
		}
	}
	truth := vm.Threads()
	if len(names) != len(truth) {
		t.Fatalf("notifications give %d threads, VM has %d", len(names), len(truth))
	}
	for _, th := range truth {
		if names[th.ID] != th.Name {
			t.Fatalf("thread %d: notified name %q, VM %q", th.ID, names[th.ID], th.Name)
		}
	}
}
