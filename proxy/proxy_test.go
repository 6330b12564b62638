package proxy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

func onePort(p int) scan.PortRange { return scan.PortRange{First: p, Last: p} }

// breakpointSet is the data of an EventRequest.Set for a breakpoint at the
// spec example's location with the given suspend policy.
func breakpointSet(policy uint8) []byte {
	b := []byte{jdwp.EventBreakpoint, policy, 0, 0, 0, 1, jdwpspy.ModLocationOnly, 1}
	b = binary.BigEndian.AppendUint64(b, 0x1a2b)
	b = binary.BigEndian.AppendUint64(b, 0x70c0ffee)
	return binary.BigEndian.AppendUint64(b, 0x10)
}

// A debugger attached through the proxy to a standard-JDWP VM sets requests,
// gets an event that suspends the VM, suspends a thread itself, and closes
// its connection: the proxy clears every request and resumes every
// suspension, the VM keeps its monitor session, and the store shows the port
// and the debugger state throughout.
func TestDebuggerLeavesNothingBehind(t *testing.T) {
	leakcheck.Check(t)
	vm := startFakeVM(t)
	r := startRig(t, onePort(vm.port()), Options{})
	key := localKey(vm.port())
	port := r.waitPort(key)
	waitFor(t, "debug_port in the store", 5*time.Second, func() bool { return r.vm(key).DebugPort == port })
	if st := r.vm(key).Debugger; st != monitor.DebuggerNone {
		t.Fatalf("debugger state before attaching: %q", st)
	}

	ctx := ctxT(t)
	dbg := dialDebugger(t, port, 1)
	waitFor(t, "attached state", 5*time.Second, func() bool { return r.vm(key).Debugger == monitor.DebuggerAttached })
	sz, err := dbg.IDSizes(ctx)
	if err != nil || sz != fakeSizes {
		t.Fatalf("IDSizes through the proxy: %+v, %v", sz, err)
	}
	var reqIDs []int32
	for _, policy := range []uint8{0, 2} {
		rep, err := dbg.Request(ctx, jdwp.CmdSetEventRequest, jdwp.CmdEventRequestSet, breakpointSet(policy))
		if err != nil {
			t.Fatal(err)
		}
		reqIDs = append(reqIDs, int32(binary.BigEndian.Uint32(rep.Data)))
	}
	// The VM hits the SUSPEND_ALL breakpoint; the debugger gets the event.
	if err := vm.emit(2, jdwp.EventBreakpoint, reqIDs[1], 0x101); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-dbg.Incoming():
		if ev.CommandSet != jdwp.CmdSetEvent || ev.Command != jdwp.CmdEventComposite {
			t.Fatalf("debugger got %v, want Event.Composite", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the event did not reach the debugger")
	}
	if _, err := dbg.Request(ctx, jdwp.CmdSetThreadReference, jdwp.CmdThreadSuspend, jdwp.AppendID(nil, 8, 0x100)); err != nil {
		t.Fatal(err)
	}
	if n, susp := vm.state(); n != 2 || susp[0x100] != 2 || susp[0x101] != 1 {
		t.Fatalf("VM state while debugging: %d requests, suspended %v", n, susp)
	}
	dbg.Close()

	left := r.waitRecord("the leave record", summaryHas("left"))
	waitFor(t, "a clean VM", 5*time.Second, func() bool {
		n, susp := vm.state()
		return n == 0 && len(susp) == 0
	})
	if !strings.Contains(left.Note, "cleared 2 event request(s)") || !strings.Contains(left.Note, "resumed the VM 1 time(s)") ||
		!strings.Contains(left.Note, "resumed threads 1 time(s)") || !strings.Contains(left.Summary, "closed the connection") {
		t.Errorf("leave record: %s (%s)", left.Summary, left.Note)
	}
	waitFor(t, "state none after leaving", 5*time.Second, func() bool { return r.vm(key).Debugger == monitor.DebuggerNone })
	if vm.connections() != 1 {
		t.Errorf("a standard-JDWP VM was re-opened (%d connections); the cleanup should suffice", vm.connections())
	}
	if vm := r.vm(key); vm.DebugPort != port || vm.Key != key {
		t.Errorf("after the debugger left the store shows %+v", vm)
	}
	// The port takes a new debugger.
	dbg2 := dialDebugger(t, port, 1)
	if _, err := dbg2.Version(ctx); err != nil {
		t.Fatalf("second debugger after the first left: %v", err)
	}
	dbg2.Close()
	r.stop()
}

// The debugger's VirtualMachine.Dispose is answered by the proxy and never
// reaches the VM (HotSpot would close the shared connection); the cleanup
// runs as for a closed connection.
func TestDisposeAnsweredByProxy(t *testing.T) {
	leakcheck.Check(t)
	vm := startFakeVM(t)
	r := startRig(t, onePort(vm.port()), Options{})
	key := localKey(vm.port())
	port := r.waitPort(key)
	ctx := ctxT(t)
	dbg := dialDebugger(t, port, 1)
	if _, err := dbg.IDSizes(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := dbg.Request(ctx, jdwp.CmdSetVirtualMachine, jdwp.CmdVMSuspend, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := dbg.Request(ctx, jdwp.CmdSetVirtualMachine, cmdVMDispose, nil); err != nil {
		t.Fatalf("Dispose through the proxy: %v", err)
	}
	select {
	case <-dbg.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the proxy did not close the connection after Dispose")
	}
	waitFor(t, "the VM resumed", 5*time.Second, func() bool { _, s := vm.state(); return len(s) == 0 })
	for _, c := range vm.commands() {
		if c.set == 1 && c.cmd == cmdVMDispose {
			t.Fatal("Dispose reached the VM")
		}
	}
	rec := r.waitRecord("Dispose record", func(r jdwpspy.Record) bool {
		return r.Name == "VirtualMachine.Dispose" && r.Type == jdwpspy.TypeCommand
	})
	if !strings.Contains(rec.Note, "not forwarded") {
		t.Errorf("Dispose record note %q", rec.Note)
	}
	r.waitRecord("leave record", summaryHas("sent VirtualMachine.Dispose"))
}

// A debugger whose ids fall in the monitor's range (0x40000000…) or repeat
// an id still in flight gets its commands rewritten to free ids on the VM
// connection, and its replies under its own ids.
func TestDebuggerIDsRewrittenOutOfMonitorRange(t *testing.T) {
	leakcheck.Check(t)
	vm := startFakeVM(t)
	r := startRig(t, onePort(vm.port()), Options{})
	key := localKey(vm.port())
	port := r.waitPort(key)

	nc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := jdwp.ClientHandshake(nc, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	// Three commands at once: two share an id in the monitor's range, one
	// has an ordinary id.
	ids := []uint32{jdwp.DefaultIDBase + 1, jdwp.DefaultIDBase + 1, 7}
	var out []byte
	for _, id := range ids {
		out = jdwp.NewCommand(id, jdwp.CmdSetVirtualMachine, jdwp.CmdVMVersion, nil).Append(out)
	}
	if _, err := nc.Write(out); err != nil {
		t.Fatal(err)
	}
	_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	got := map[uint32]int{}
	for range ids {
		p, err := jdwp.ReadPacket(nc, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !p.IsReply() || p.ErrorCode != jdwp.ErrNone {
			t.Fatalf("got %v", p)
		}
		if v, err := jdwp.DecodeVersion(p.Data); err != nil || v.VMName != "FakeVM" {
			t.Fatalf("reply %v: %+v %v", p, v, err)
		}
		got[p.ID]++
	}
	if got[jdwp.DefaultIDBase+1] != 2 || got[7] != 1 {
		t.Fatalf("reply ids %v, want the debugger's own", got)
	}
	// On the VM connection: the plain id as is, the others outside the
	// monitor's range and distinct.
	var aliases []uint32
	plain := 0
	for _, c := range vm.commands() {
		if c.set != 1 || c.cmd != jdwp.CmdVMVersion {
			continue
		}
		switch {
		case c.id == 7:
			plain++
		case c.id >= aliasBase:
			aliases = append(aliases, c.id)
		}
	}
	if plain != 1 || len(aliases) != 2 || aliases[0] == aliases[1] {
		t.Fatalf("ids seen by the VM: plain %d, aliases %#x", plain, aliases)
	}
	var recs []jdwpspy.Record
	waitFor(t, "records of the rewritten commands", 5*time.Second, func() bool {
		recs = r.records(func(r jdwpspy.Record) bool { return r.Type == jdwpspy.TypeCommand && r.WireID != 0 })
		return len(recs) >= 2
	})
	if len(recs) != 2 || recs[0].ID != jdwp.DefaultIDBase+1 {
		t.Errorf("inspector records with rewritten ids: %+v", recs)
	}
	// The monitor's own requests keep working on the same connection.
	waitFor(t, "monitor thread polls", 5*time.Second, func() bool { return len(r.vm(key).Threads) == 2 })
}

// One debugger per VM: a second connection, on the VM's port or on the
// selected port leading to the same VM, is accepted and closed at once; the
// first debugger is unaffected.
func TestSecondDebuggerRefused(t *testing.T) {
	leakcheck.Check(t)
	vm := startFakeVM(t)
	r := startRig(t, onePort(vm.port()), Options{})
	key := localKey(vm.port())
	port := r.waitPort(key)
	r.proxy.Select(key)
	ctx := ctxT(t)
	dbg := dialDebugger(t, port, 1)
	if _, err := dbg.Version(ctx); err != nil {
		t.Fatal(err)
	}
	for _, p := range []int{port, r.opts.SelectedPort} {
		nc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			t.Fatal(err)
		}
		_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
		_, _ = nc.Write([]byte(jdwp.Handshake))
		// The slot is claimed after the handshake (issue 16): the second
		// debugger's handshake is answered, then its connection closed.
		got, err := io.ReadAll(nc)
		nc.Close()
		var ne net.Error
		if string(got) != jdwp.Handshake || err != nil || (errors.As(err, &ne) && ne.Timeout()) {
			t.Fatalf("second debugger on port %d: read %q, %v; want the handshake, then the connection closed", p, got, err)
		}
	}
	if _, err := dbg.Version(ctx); err != nil {
		t.Fatalf("first debugger after the refusals: %v", err)
	}
	var refused []jdwpspy.Record
	waitFor(t, "refusal records", 5*time.Second, func() bool {
		refused = r.records(summaryHas("refused"))
		return len(refused) >= 2
	})
	if len(refused) != 2 || !strings.Contains(refused[0].Note, "already attached") {
		t.Errorf("refusal records: %+v", refused)
	}
}

// The selected port leads to the selected VM; with none selected a
// debugger is turned away.
func TestSelectedPort(t *testing.T) {
	leakcheck.Check(t)
	vms, rng := startFakeVMs(t, 2)
	a, b := vms[0], vms[1]
	r := startRig(t, rng, Options{})
	ka, kb := localKey(a.port()), localKey(b.port())
	r.waitPort(ka)
	r.waitPort(kb)
	ctx := ctxT(t)

	// No selection: refused.
	nc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", r.opts.SelectedPort))
	if err != nil {
		t.Fatal(err)
	}
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	if n, err := nc.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Fatalf("unselected: read %d, %v", n, err)
	}
	nc.Close()

	for _, tc := range []struct {
		key string
		vm  *fakeVM
	}{{kb, b}, {ka, a}} {
		r.proxy.Select(tc.key)
		before := len(tc.vm.commands())
		dbg := dialDebugger(t, r.opts.SelectedPort, 1)
		if _, err := dbg.Request(ctx, jdwp.CmdSetVirtualMachine, jdwp.CmdVMIDSizes, nil); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, c := range tc.vm.commands()[before:] {
			if c.id < jdwp.DefaultIDBase && c.cmd == jdwp.CmdVMIDSizes {
				found = true
			}
		}
		if !found {
			t.Fatalf("selected %s, but the debugger's command did not reach it", tc.key)
		}
		var ps PortStatus
		for _, s := range r.proxy.Ports() {
			if s.Selected {
				ps = s
			}
		}
		if ps.VM != tc.key || ps.Debugger == "" || !ps.Listening {
			t.Errorf("selected port status %+v", ps)
		}
		dbg.Close()
		waitFor(t, "debugger gone", 5*time.Second, func() bool { return r.vm(tc.key).Debugger == monitor.DebuggerNone })
	}
}

// A debugger port already in use is reported for that VM only; the next VM
// gets the next port and works, and so does the selected port.
func TestPortInUse(t *testing.T) {
	leakcheck.Check(t)
	_, rng := startFakeVMs(t, 2)
	base := freeRange(t, 3)
	blocker, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base))
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Close()
	sel := freeRange(t, 1)
	selBlocker, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", sel))
	if err != nil {
		t.Fatal(err)
	}
	defer selBlocker.Close()

	r := startRig(t, rng, Options{BasePort: base, SelectedPort: sel})
	var failed, working PortStatus
	var selected PortStatus
	waitFor(t, "two VM ports", 10*time.Second, func() bool {
		failed, working = PortStatus{}, PortStatus{}
		for _, ps := range r.proxy.Ports() {
			switch {
			case ps.Selected:
				selected = ps
			case ps.Err != "":
				failed = ps
			case ps.Listening:
				working = ps
			}
		}
		return failed.VM != "" && working.VM != ""
	})
	t.Logf("ports: %+v", r.proxy.Ports())
	if failed.Port != base || !strings.Contains(failed.Err, fmt.Sprint(base)) || !strings.Contains(failed.Err, "address already in use") {
		t.Errorf("failed port: %+v", failed)
	}
	if working.Port != base+1 {
		t.Errorf("working port %+v, want %d", working, base+1)
	}
	if selected.Listening || !strings.Contains(selected.Err, "address already in use") {
		t.Errorf("selected port: %+v", selected)
	}
	if vm := r.vm(failed.VM); vm.DebugPort != 0 {
		t.Errorf("VM without a port shows debug_port %d", vm.DebugPort)
	}
	dbg := dialDebugger(t, working.Port, 1)
	if _, err := dbg.Version(ctxT(t)); err != nil {
		t.Fatal(err)
	}
}

// Commands the VM sends before any debugger connected (a VM_START event)
// are kept and delivered first when one attaches.
func TestPreDataDeliveredOnAttach(t *testing.T) {
	leakcheck.Check(t)
	vm := startFakeVM(t)
	r := startRig(t, onePort(vm.port()), Options{})
	key := localKey(vm.port())
	port := r.waitPort(key)
	// Wait until the proxy routes the session's packets.
	waitFor(t, "passthrough", 5*time.Second, func() bool {
		for _, ps := range r.proxy.Ports() {
			if ps.VM == key && ps.Present {
				return true
			}
		}
		return false
	})
	if err := vm.emit(0, jdwp.EventVMStart, 0, 0x100); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	dbg := dialDebugger(t, port, 1)
	select {
	case ev := <-dbg.Incoming():
		c, err := jdwpspy.DecodeComposite(ev.Data, fakeSizes, nil)
		if err != nil || len(c.Events) != 1 || c.Events[0].Kind != jdwp.EventVMStart {
			t.Fatalf("first packet %v: %+v %v", ev, c, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("VM_START was not delivered")
	}
}

// Stopping the proxy while a debugger holds the VM suspended resumes it and
// leaves no goroutine or descriptor behind.
func TestStopWhileDebugging(t *testing.T) {
	leakcheck.Check(t)
	vm := startFakeVM(t)
	r := startRig(t, onePort(vm.port()), Options{})
	key := localKey(vm.port())
	port := r.waitPort(key)
	ctx := ctxT(t)
	dbg := dialDebugger(t, port, 1)
	if _, err := dbg.Request(ctx, jdwp.CmdSetVirtualMachine, jdwp.CmdVMSuspend, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := dbg.Request(ctx, jdwp.CmdSetEventRequest, jdwp.CmdEventRequestSet, breakpointSet(2)); err != nil {
		t.Fatal(err)
	}
	r.stop()
	if n, s := vm.state(); n != 0 || len(s) != 0 {
		t.Fatalf("after the proxy stopped: %d requests, suspended %v", n, s)
	}
	select {
	case <-dbg.Done():
	case <-time.After(5 * time.Second):
		t.Fatal("the debugger connection outlived the proxy")
	}
}

// A JVM started with suspend=y sends VM_START (suspend ALL) right after the
// monitor's handshake, before the proxy hears of the session: the event is
// still delivered to the first debugger, and when that debugger leaves
// without resuming, the cleanup resumes the VM.
func TestVMStartKeptForFirstDebugger(t *testing.T) {
	leakcheck.Check(t)
	vm := startFakeVMAt(t, "127.0.0.1:0", func(f *fakeVM) { f.startSuspended = true })
	r := startRig(t, onePort(vm.port()), Options{})
	key := localKey(vm.port())
	port := r.waitPort(key)
	if _, s := vm.state(); len(s) != 2 {
		t.Fatalf("VM not suspended by its start: %v", s)
	}
	dbg := dialDebugger(t, port, 1)
	select {
	case ev := <-dbg.Incoming():
		c, err := jdwpspy.DecodeComposite(ev.Data, fakeSizes, nil)
		if err != nil || c.SuspendPolicy != 2 || len(c.Events) != 1 || c.Events[0].Kind != jdwp.EventVMStart {
			t.Fatalf("first packet %v: %+v %v", ev, c, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("VM_START was not delivered")
	}
	rec := r.waitRecord("the kept VM_START", func(r jdwpspy.Record) bool { return r.Composite != nil })
	if !strings.Contains(rec.Note, "before the debugger attached") {
		t.Errorf("VM_START record note %q", rec.Note)
	}
	dbg.Close()
	left := r.waitRecord("leave record", summaryHas("left"))
	if !strings.Contains(left.Note, "resumed the VM 1 time(s)") {
		t.Errorf("leave note %q", left.Note)
	}
	waitFor(t, "the VM resumed", 5*time.Second, func() bool { _, s := vm.state(); return len(s) == 0 })
	// A later debugger gets no stale VM_START.
	dbg2 := dialDebugger(t, port, 1)
	if _, err := dbg2.Version(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-dbg2.Incoming():
		t.Fatalf("second debugger got %v", ev)
	case <-time.After(100 * time.Millisecond):
	}
}

// A debugger that stops reading is disconnected once more than QueueBytes
// wait for it; the VM connection is never stalled by it.
func TestSlowDebuggerDisconnected(t *testing.T) {
	here, there := net.Pipe()
	defer there.Close()
	a := &attachment{p: &Proxy{opts: Options{QueueBytes: 100}}, nc: here, forwarding: true,
		qsignal: make(chan struct{}, 1), drained: make(chan struct{}, 1)}
	pk := jdwp.NewCommand(1, jdwp.CmdSetEvent, jdwp.CmdEventComposite, make([]byte, 40))
	a.mu.Lock()
	a.enqueueLocked(pk) // 51 bytes
	if a.overflow || len(a.queue) != 1 {
		t.Fatal("first packet refused")
	}
	a.enqueueLocked(pk) // 102 > 100
	a.mu.Unlock()
	if !a.overflow || a.forwarding || a.queue != nil {
		t.Fatalf("after the overflow: overflow %v, forwarding %v, %d queued", a.overflow, a.forwarding, len(a.queue))
	}
	if _, err := there.Write([]byte{0}); err == nil {
		t.Fatal("the debugger's connection is still open")
	}
}
