package proxy

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/scan"
)

// fakeVM is a standard-JDWP VM (it refuses DDM like HotSpot) that keeps the
// state a debugger can leave behind — event requests and per-thread suspend
// counts, counted the way HotSpot's agent counts them — so tests can check
// the proxy's cleanup by the VM's state rather than by its packets.
type fakeVM struct {
	t  testing.TB
	ln net.Listener

	mu       sync.Mutex
	jc       *jdwp.Conn
	conns    int
	cmds     []fakeCmd // every non-DDM command received
	nextReq  int32
	requests map[int32]uint8
	suspend  map[uint64]int
	done     sync.WaitGroup
	// delay holds every reply back, as a VM behind adb does.
	delay time.Duration
	// startSuspended makes the VM send VM_START with suspend policy ALL
	// right after the handshake, as a JVM started with suspend=y does.
	startSuspended bool
}

type fakeCmd struct {
	id       uint32
	set, cmd uint8
}

var fakeThreads = []uint64{0x100, 0x101}

var fakeSizes = jdwp.IDSizes{FieldID: 8, MethodID: 8, ObjectID: 8, ReferenceTypeID: 8, FrameID: 8}

func startFakeVM(t testing.TB) *fakeVM {
	t.Helper()
	return startFakeVMAt(t, "127.0.0.1:0")
}

// startFakeVMs starts n fake VMs on consecutive ports, so that a scan of
// their range finds nothing else.
func startFakeVMs(t testing.TB, n int) ([]*fakeVM, scan.PortRange) {
	t.Helper()
	base := freeRange(t, n)
	var vms []*fakeVM
	for i := 0; i < n; i++ {
		vms = append(vms, startFakeVMAt(t, fmt.Sprintf("127.0.0.1:%d", base+i)))
	}
	return vms, scan.PortRange{First: base, Last: base + n - 1}
}

func startFakeVMAt(t testing.TB, addr string, opts ...func(*fakeVM)) *fakeVM {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeVM{t: t, ln: ln, nextReq: 0x20000000, requests: map[int32]uint8{}, suspend: map[uint64]int{}}
	for _, o := range opts {
		o(f)
	}
	f.done.Add(1)
	go f.accept()
	t.Cleanup(f.close)
	return f
}

func (f *fakeVM) port() int { return f.ln.Addr().(*net.TCPAddr).Port }

func (f *fakeVM) close() {
	f.ln.Close()
	f.mu.Lock()
	jc := f.jc
	f.mu.Unlock()
	if jc != nil {
		jc.Close()
	}
	f.done.Wait()
}

func (f *fakeVM) accept() {
	defer f.done.Done()
	for {
		nc, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		busy := f.jc != nil
		f.mu.Unlock()
		if busy {
			nc.Close() // one JDWP connection at a time
			continue
		}
		if err := jdwp.ServerHandshake(nc, 0); err != nil {
			nc.Close()
			continue
		}
		jc := jdwp.NewConn(nc, jdwp.Options{IDBase: 0x10000000})
		f.mu.Lock()
		f.jc = jc
		f.conns++
		start := f.startSuspended
		f.mu.Unlock()
		if start {
			_ = f.emit(2, jdwp.EventVMStart, 0, 0x100)
		}
		f.serve(jc)
		jc.Close()
		f.mu.Lock()
		f.jc = nil
		// A JDWP agent resets when its connection closes.
		clear(f.requests)
		clear(f.suspend)
		f.mu.Unlock()
	}
}

func (f *fakeVM) serve(jc *jdwp.Conn) {
	for p := range jc.Incoming() {
		if p.IsReply() {
			f.t.Errorf("fake VM received a reply packet (id %#x): a JVM would close the connection", p.ID)
			return
		}
		if p.IsDDM() {
			_ = jc.WritePacket(jdwp.NewReply(p.ID, jdwp.ErrNotImplemented, nil))
			continue
		}
		f.mu.Lock()
		f.cmds = append(f.cmds, fakeCmd{p.ID, p.CommandSet, p.Command})
		code, data := f.handleLocked(p)
		delay := f.delay
		f.mu.Unlock()
		if delay > 0 {
			time.Sleep(delay)
		}
		_ = jc.WritePacket(jdwp.NewReply(p.ID, code, data))
	}
}

func (f *fakeVM) handleLocked(p *jdwp.Packet) (jdwp.ErrorCode, []byte) {
	thread := func() (uint64, bool) {
		id, err := jdwp.DecodeID(p.Data, 8)
		if err != nil {
			return 0, false
		}
		for _, t := range fakeThreads {
			if t == id {
				return id, true
			}
		}
		return 0, false
	}
	switch [2]uint8{p.CommandSet, p.Command} {
	case [2]uint8{1, jdwp.CmdVMVersion}:
		return 0, jdwp.AppendVersion(nil, jdwp.Version{Description: "fake JVM", JDWPMajor: 17, VMVersion: "17", VMName: "FakeVM"})
	case [2]uint8{1, jdwp.CmdVMIDSizes}:
		return 0, jdwp.AppendIDSizes(nil, fakeSizes)
	case [2]uint8{1, jdwp.CmdVMAllThreads}:
		return 0, jdwp.AppendIDList(nil, 8, fakeThreads)
	case [2]uint8{1, jdwp.CmdVMSuspend}:
		for _, t := range fakeThreads {
			f.suspend[t]++
		}
		return 0, nil
	case [2]uint8{1, jdwp.CmdVMResume}:
		for _, t := range fakeThreads {
			if f.suspend[t] > 0 {
				f.suspend[t]--
			}
		}
		return 0, nil
	case [2]uint8{1, cmdVMDispose}:
		return 0, nil
	case [2]uint8{11, jdwp.CmdThreadName}:
		if t, ok := thread(); ok {
			return 0, jdwp.AppendString(nil, map[uint64]string{0x100: "main", 0x101: "worker"}[t])
		}
		return jdwp.ErrInvalidThread, nil
	case [2]uint8{11, jdwp.CmdThreadStatus}:
		if t, ok := thread(); ok {
			s := int32(0)
			if f.suspend[t] > 0 {
				s = 1
			}
			return 0, jdwp.AppendThreadStatus(nil, jdwp.ThreadStatusReply{Status: jdwp.ThreadRunning, SuspendStatus: s})
		}
		return jdwp.ErrInvalidThread, nil
	case [2]uint8{11, jdwp.CmdThreadSuspend}:
		if t, ok := thread(); ok {
			f.suspend[t]++
			return 0, nil
		}
		return jdwp.ErrInvalidThread, nil
	case [2]uint8{11, jdwp.CmdThreadResume}:
		if t, ok := thread(); ok {
			if f.suspend[t] > 0 {
				f.suspend[t]--
			}
			return 0, nil
		}
		return jdwp.ErrInvalidThread, nil
	case [2]uint8{11, jdwp.CmdThreadSuspendCnt}:
		if t, ok := thread(); ok {
			return 0, binary.BigEndian.AppendUint32(nil, uint32(f.suspend[t]))
		}
		return jdwp.ErrInvalidThread, nil
	case [2]uint8{15, jdwp.CmdEventRequestSet}:
		if len(p.Data) < 6 {
			return jdwp.ErrIllegalArgument, nil
		}
		f.nextReq++
		f.requests[f.nextReq] = p.Data[0]
		return 0, binary.BigEndian.AppendUint32(nil, uint32(f.nextReq))
	case [2]uint8{15, jdwp.CmdEventRequestClear}:
		if len(p.Data) != 5 {
			return jdwp.ErrIllegalArgument, nil
		}
		delete(f.requests, int32(binary.BigEndian.Uint32(p.Data[1:])))
		return 0, nil
	case [2]uint8{15, jdwp.CmdEventRequestClearAllBreakpoints}:
		for id, k := range f.requests {
			if k == jdwp.EventBreakpoint {
				delete(f.requests, id)
			}
		}
		return 0, nil
	}
	return jdwp.ErrNotImplemented, nil
}

// emit sends an Event.Composite with one event of kind for request reqID on
// thread, applying the suspend policy as a VM does.
func (f *fakeVM) emit(policy, kind uint8, reqID int32, thread uint64) error {
	f.mu.Lock()
	jc := f.jc
	switch policy {
	case 1:
		f.suspend[thread]++
	case 2:
		for _, t := range fakeThreads {
			f.suspend[t]++
		}
	}
	f.mu.Unlock()
	if jc == nil {
		return errors.New("fake VM: nobody connected")
	}
	data := []byte{policy, 0, 0, 0, 1, kind}
	data = binary.BigEndian.AppendUint32(data, uint32(reqID))
	data = binary.BigEndian.AppendUint64(data, thread)
	if kind == jdwp.EventBreakpoint {
		data = append(data, 1)
		data = binary.BigEndian.AppendUint64(data, 0x1a2b)
		data = binary.BigEndian.AppendUint64(data, 0x70c0ffee)
		data = binary.BigEndian.AppendUint64(data, 0x10)
	}
	_, err := jc.Post(jdwp.CmdSetEvent, jdwp.CmdEventComposite, data)
	return err
}

// state returns the live requests and the suspend counts.
func (f *fakeVM) state() (requests int, suspended map[uint64]int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	suspended = map[uint64]int{}
	for t, n := range f.suspend {
		if n > 0 {
			suspended[t] = n
		}
	}
	return len(f.requests), suspended
}

func (f *fakeVM) commands() []fakeCmd {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCmd(nil), f.cmds...)
}

func (f *fakeVM) connections() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.conns
}
