package sim

import (
	"errors"
	"fmt"
	"net"
	"sync/atomic"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
)

// ErrBusy is returned by ServeConn when a monitor is already connected: a VM
// accepts one JDWP connection at a time.
var ErrBusy = errors.New("sim: VM already has a JDWP connection")

// ErrExited is returned by ServeConn after the VM was told to exit.
var ErrExited = errors.New("sim: VM has exited")

// vmConn is the state one monitor connection has with a VM; DDM settings
// such as thread notifications end with the connection (spec/ddm-chunks.md
// §6.1).
type vmConn struct {
	vm           *VM
	jc           *jdwp.Conn
	threadNotify bool
	hpifWhen     uint8
	hpsgWhen     uint8
	hpsgWhat     uint8
	nhsgWhen     uint8
}

// Stats count what a VM saw; tests use them to prove the monitor's manners.
type Stats struct {
	// NonDDMPackets counts JDWP commands outside the DDM set. On a real
	// Android VM each of these would make it believe a debugger attached.
	NonDDMPackets atomic.Int64
	DDMRequests   atomic.Int64
	Connections   atomic.Int64
}

// Stats returns the VM's counters.
func (vm *VM) Stats() *Stats {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	if vm.stats == nil {
		vm.stats = &Stats{}
	}
	return vm.stats
}

func (vm *VM) idBase() uint32 {
	if vm.spec.Modern {
		return 0x80000001 // ART 9+ adbconnection: counter | 0x80000000
	}
	return 0x10000000 // Dalvik, ART-2016
}

// ServeConn runs the VM side of one JDWP connection on nc (JDWP handshake
// first) until the peer leaves, the VM exits, or the connection breaks. It
// closes nc.
func (vm *VM) ServeConn(nc net.Conn) error {
	defer nc.Close()
	vm.mu.Lock()
	switch {
	case vm.exited:
		vm.mu.Unlock()
		return ErrExited
	case vm.conn != nil:
		vm.mu.Unlock()
		return ErrBusy
	}
	c := &vmConn{vm: vm}
	vm.conn = c // reserve before the handshake: one connection at a time
	st := vm.statsLocked()
	vm.mu.Unlock()
	st.Connections.Add(1)

	defer func() {
		vm.mu.Lock()
		if vm.conn == c {
			vm.conn = nil
		}
		vm.mu.Unlock()
	}()
	if err := jdwp.ServerHandshake(nc, 0); err != nil {
		return err
	}
	jc := jdwp.NewConn(nc, jdwp.Options{IDBase: vm.idBase()})
	vm.mu.Lock() // disconnect and the stepping goroutine read c.jc under vm.mu
	c.jc = jc
	vm.mu.Unlock()
	defer jc.Close()
	for p := range c.jc.Incoming() {
		if p.IsReply() {
			continue // the monitor never replies; a debugger's stray replies are ignored
		}
		if p.IsDDM() {
			st.DDMRequests.Add(1)
			if vm.spec.Family == JVM {
				c.reply(p, jdwp.ErrNotImplemented, nil)
				continue
			}
			if stop := c.handleDDM(p); stop {
				return nil
			}
			continue
		}
		st.NonDDMPackets.Add(1)
		c.handleJDWP(p)
	}
	return c.jc.Err()
}

func (vm *VM) statsLocked() *Stats {
	if vm.stats == nil {
		vm.stats = &Stats{}
	}
	return vm.stats
}

func (c *vmConn) reply(p *jdwp.Packet, code jdwp.ErrorCode, data []byte) {
	_ = c.jc.WritePacket(jdwp.NewReply(p.ID, code, data))
}

func (c *vmConn) replyChunk(p *jdwp.Packet, m ddm.Message) {
	c.reply(p, jdwp.ErrNone, ddm.AppendMessage(nil, m))
}

// replyEmpty answers a request whose handler has nothing to say: an empty
// reply on Dalvik and ART-2016, no reply at all on modern ART.
func (c *vmConn) replyEmpty(p *jdwp.Packet) {
	if c.vm.spec.Modern {
		return
	}
	c.reply(p, jdwp.ErrNone, nil)
}

// sendLocked sends an unsolicited chunk (a VM-issued command that nothing
// answers). Called with vm.mu held.
func (c *vmConn) sendLocked(m ddm.Message) {
	if c.jc == nil {
		return
	}
	_, _ = c.jc.Post(jdwp.CmdSetDDM, jdwp.CmdDDMChunk, ddm.AppendMessage(nil, m))
}

func (vm *VM) hello() *ddm.Hello {
	h := &ddm.Hello{ClientVersion: 1, PID: uint32(vm.spec.PID), AppName: vm.app}
	switch vm.spec.Family {
	case Dalvik:
		h.VMIdent = "Dalvik v1.6.0"
		h.Extent = ddm.HelloUserID
	default:
		h.VMIdent = "Dalvik v2.1.0"
		h.Extent = ddm.HelloNativeDebuggable
		h.ABI = "64-bit (" + Architecture + ")" // as track-app says of the same process
		h.JVMFlags = "CheckJNI=false"
		if vm.spec.Modern {
			h.Extent = ddm.HelloPackageName
			h.PackageName = vm.spec.Package
		}
	}
	return h
}

func (vm *VM) features() []string {
	f := []string{"method-trace-profiling", "method-trace-profiling-streaming", "method-sample-profiling",
		"hprof-heap-dump", "hprof-heap-dump-streaming"}
	if vm.spec.Family == Dalvik {
		// An early Dalvik: heap dumps to a device file only (HPDU), no
		// sampling profiler.
		f = []string{"method-trace-profiling", "method-trace-profiling-streaming", "hprof-heap-dump"}
	}
	if vm.spec.FileTracesOnly {
		f = f[:1]
	}
	return append(f, "view-hierarchy")
}

// handleDDM answers one DDM request. It reports whether the connection must
// end (EXIT).
func (c *vmConn) handleDDM(p *jdwp.Packet) (stop bool) {
	vm := c.vm
	chunks, err := ddm.ParseChunks(p.Data, len(p.Data))
	if err != nil || len(chunks) == 0 {
		// Dalvik logs "bad chunk found" and sends an empty reply.
		c.replyEmpty(p)
		return false
	}
	msg, err := ddm.DecodeFromMonitor(chunks[0])
	if chunks[0].Type == ddm.TypeVUOP && vm.legacyViews() {
		msg, err = ddm.DecodeLegacyViewOpRequest(chunks[0].Data)
	}
	if err != nil {
		c.replyEmpty(p)
		return false
	}
	vm.mu.Lock()
	defer vm.mu.Unlock()
	if !vm.registeredLocked(msg) {
		return false // no handler on recent frameworks: adbconnection sends nothing
	}
	switch m := msg.(type) {
	case *ddm.HelloRequest:
		c.replyChunk(p, vm.hello())
		if vm.spec.WaitingForDebugger {
			c.sendLocked(&ddm.Wait{Reason: 0})
		}
	case *ddm.FeaturesRequest:
		c.replyChunk(p, &ddm.Features{Names: vm.features()})
	case *ddm.ThreadNotifyRequest:
		c.threadNotify = m.Enable
		if m.Enable {
			// THCR for every thread arrives before the THEN reply.
			for _, id := range vm.sortedThreadIDs() {
				t := vm.threads[id]
				c.sendLocked(&ddm.ThreadCreated{ID: t.id, Name: t.name})
			}
		}
		c.replyEmpty(p)
	case *ddm.ThreadStatusRequest:
		tab := &ddm.ThreadStatusTable{}
		for _, id := range vm.sortedThreadIDs() {
			t := vm.threads[id]
			tab.Threads = append(tab.Threads, ddm.ThreadStatus{ID: t.id, Status: t.status, SysTID: t.systid,
				UTime: t.utime, STime: t.stime, Daemon: t.daemon})
		}
		c.replyChunk(p, tab)
	case *ddm.StackTraceRequest:
		t, ok := vm.threads[m.ThreadID]
		if !ok {
			c.replyChunk(p, &ddm.FailError{Code: 1, Message: "Stack trace unavailable"})
			break
		}
		c.replyChunk(p, &ddm.StackTrace{ThreadID: t.id, Frames: t.frames})
	case *ddm.HeapInfoRequest:
		if m.When > ddm.HeapInfoEveryGC {
			c.replyChunk(p, &ddm.FailError{Code: 1, Message: "Unsupported HPIF what"})
			break
		}
		if m.When == ddm.HeapInfoNow {
			c.sendLocked(vm.heapInfoLocked(ddm.HeapInfoNow))
		} else {
			c.hpifWhen = m.When
		}
		c.replyEmpty(p)
	case *ddm.GCRequest:
		vm.gcLocked(ddm.HeapInfoEveryGC)
		c.replyEmpty(p)
	case *ddm.SegmentRequest:
		if m.When > 1 || m.What > 1 {
			c.replyChunk(p, &ddm.FailError{Code: 1, Message: "Unsupported HPSG what/when"})
			break
		}
		if m.Type == ddm.TypeNHSG {
			c.nhsgWhen = m.When
		} else {
			c.hpsgWhen, c.hpsgWhat = m.When, m.What
		}
		c.replyEmpty(p)
	case *ddm.ExitRequest:
		vm.exited = true
		vm.exitCode = int32(m.Status)
		if vm.onExit != nil {
			go vm.onExit()
		}
		return true // Runtime.halt: no reply, the connection just closes
	default:
		if !vm.handleMoreDDMLocked(c, p, msg) {
			c.replyEmpty(p)
		}
	}
	return false
}

// jdwpStatus maps a THST status to JDWP ThreadReference.Status
// (spec/jdwp.md §6: Dalvik's TIMED_WAIT→SLEEPING, NATIVE/SUSPENDED→RUNNING,
// VMWAIT→WAIT, INITIALIZING/STARTING→ZOMBIE).
func (vm *VM) jdwpStatus(s int8) int32 {
	if vm.spec.Family != Dalvik {
		return int32(s)
	}
	switch s {
	case 0, 5, 6:
		return jdwp.ThreadZombie
	case 1, 7, 9:
		return jdwp.ThreadRunning
	case 2:
		return jdwp.ThreadSleeping
	case 3:
		return jdwp.ThreadMonitor
	}
	return jdwp.ThreadWait
}

func (vm *VM) idSizes() jdwp.IDSizes {
	if vm.spec.Family == Dalvik {
		return jdwp.IDSizes{FieldID: 4, MethodID: 4, ObjectID: 8, ReferenceTypeID: 8, FrameID: 8}
	}
	return jdwp.IDSizes{FieldID: 8, MethodID: 8, ObjectID: 8, ReferenceTypeID: 8, FrameID: 8}
}

// Thread objects and the one thread group get object ids in a fixed space.
const (
	threadObjectBase = 0x7000_0000
	threadGroupID    = 0x6000_0001
)

func (vm *VM) version() jdwp.Version {
	switch vm.spec.Family {
	case Dalvik:
		return jdwp.Version{Description: "Android DalvikVM 1.6.0", JDWPMajor: 1, JDWPMinor: 5, VMVersion: "1.5.0", VMName: "DalvikVM"}
	case JVM:
		return jdwp.Version{
			Description: "Java Debug Wire Protocol (Reference Implementation) version 17.0\nJVM Debug Interface version 17.0\nJVM version 17.0.15 (OpenJDK 64-Bit Server VM, mixed mode) [simulated]",
			JDWPMajor:   17, JDWPMinor: 0, VMVersion: "17.0.15", VMName: "OpenJDK 64-Bit Server VM"}
	}
	return jdwp.Version{Description: "Android Runtime 2.1.0", JDWPMajor: 1, JDWPMinor: 6, VMVersion: "1.6.0", VMName: "Dalvik"}
}

// handleJDWP answers the few standard commands a monitor uses for VMs that
// do not speak DDM (spec/jdwp.md §6); anything else is NOT_IMPLEMENTED.
func (c *vmConn) handleJDWP(p *jdwp.Packet) {
	vm := c.vm
	vm.mu.Lock()
	defer vm.mu.Unlock()
	sz := vm.idSizes()
	thread := func() (*thread, bool) {
		id, err := jdwp.DecodeID(p.Data, sz.ObjectID)
		if err != nil || id < threadObjectBase {
			return nil, false
		}
		t, ok := vm.threads[uint32(id-threadObjectBase)]
		return t, ok
	}
	switch [2]uint8{p.CommandSet, p.Command} {
	case [2]uint8{jdwp.CmdSetVirtualMachine, jdwp.CmdVMVersion}:
		c.reply(p, jdwp.ErrNone, jdwp.AppendVersion(nil, vm.version()))
	case [2]uint8{jdwp.CmdSetVirtualMachine, jdwp.CmdVMIDSizes}:
		c.reply(p, jdwp.ErrNone, jdwp.AppendIDSizes(nil, sz))
	case [2]uint8{jdwp.CmdSetVirtualMachine, jdwp.CmdVMAllThreads}:
		var ids []uint64
		for _, id := range vm.sortedThreadIDs() {
			ids = append(ids, threadObjectBase+uint64(id))
		}
		c.reply(p, jdwp.ErrNone, jdwp.AppendIDList(nil, sz.ObjectID, ids))
	case [2]uint8{jdwp.CmdSetVirtualMachine, jdwp.CmdVMTopLevelThreadGroups}:
		c.reply(p, jdwp.ErrNone, jdwp.AppendIDList(nil, sz.ObjectID, []uint64{threadGroupID}))
	case [2]uint8{jdwp.CmdSetThreadReference, jdwp.CmdThreadName}:
		if t, ok := thread(); ok {
			c.reply(p, jdwp.ErrNone, jdwp.AppendString(nil, t.name))
		} else {
			c.reply(p, jdwp.ErrInvalidThread, nil)
		}
	case [2]uint8{jdwp.CmdSetThreadReference, jdwp.CmdThreadStatus}:
		if t, ok := thread(); ok {
			st := jdwp.ThreadStatusReply{Status: vm.jdwpStatus(t.status)}
			if t.suspends > 0 {
				st.SuspendStatus = 1
			}
			c.reply(p, jdwp.ErrNone, jdwp.AppendThreadStatus(nil, st))
		} else {
			c.reply(p, jdwp.ErrInvalidThread, nil)
		}
	case [2]uint8{jdwp.CmdSetThreadReference, jdwp.CmdThreadSuspend}, [2]uint8{jdwp.CmdSetThreadReference, jdwp.CmdThreadResume}:
		// A debugger's suspension, counted as the JDWP spec says; the
		// simulated thread keeps its state, but Status reports it.
		if t, ok := thread(); ok {
			if p.Command == jdwp.CmdThreadSuspend {
				t.suspends++
			} else if t.suspends > 0 {
				t.suspends--
			}
			c.reply(p, jdwp.ErrNone, nil)
		} else {
			c.reply(p, jdwp.ErrInvalidThread, nil)
		}
	case [2]uint8{jdwp.CmdSetThreadReference, jdwp.CmdThreadThreadGroup}:
		if _, ok := thread(); ok {
			c.reply(p, jdwp.ErrNone, jdwp.AppendID(nil, sz.ObjectID, threadGroupID))
		} else {
			c.reply(p, jdwp.ErrInvalidThread, nil)
		}
	case [2]uint8{jdwp.CmdSetThreadGroupReference, jdwp.CmdThreadGroupName}:
		c.reply(p, jdwp.ErrNone, jdwp.AppendString(nil, "main"))
	default:
		c.reply(p, jdwp.ErrNotImplemented, nil)
	}
}

func (vm *VM) String() string {
	return fmt.Sprintf("sim VM pid %d (%s, %s)", vm.spec.PID, vm.app, vm.spec.Family)
}
