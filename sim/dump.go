package sim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"syscall"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/sim/adbd"
	"github.com/ddmtui/ddmtui/threaddump"
)

// The simulated device is what the simulated adbd serves.
var _ adbd.Device = (*Device)(nil)

// ANRPath is where a simulated device keeps its SIGQUIT dumps, one block
// appended per signal, as Android before 8 did (/data/anr/traces.txt).
const ANRPath = "/data/anr/traces.txt"

// artState and dalvikState name a THST status in each runtime's dump
// spelling (spec/anr-traces.md).
func (vm *VM) dumpState(t *thread) string {
	dalvik := vm.spec.Family == Dalvik
	switch t.status {
	case 1:
		if dalvik {
			return "RUNNABLE"
		}
		return "Runnable"
	case 2:
		if dalvik {
			return "TIMED_WAIT"
		}
		return "Sleeping"
	case 3:
		if dalvik {
			return "MONITOR"
		}
		return "Blocked"
	case 7:
		return "NATIVE"
	case 8:
		return "VMWAIT"
	case 0:
		if dalvik {
			return "ZOMBIE"
		}
		return "Terminated"
	}
	if dalvik {
		return "WAIT"
	}
	return "Waiting"
}

func dumpFrame(f ddm.StackFrame) threaddump.Frame {
	src := "Unknown Source"
	switch {
	case f.Line == ddm.LineNative:
		src = "Native method"
	case f.File != "" && f.Line >= 0:
		src = fmt.Sprintf("%s:%d", f.File, f.Line)
	case f.File != "":
		src = f.File
	}
	return threaddump.JavaFrame(f.Class, f.Method, src)
}

// ThreadDump returns what the VM writes on SIGQUIT: every thread with its
// state, CPU time and stack, and — when the spec asks for one — a
// two-thread monitor deadlock between its first two application threads.
func (vm *VM) ThreadDump(at time.Time) *threaddump.Process {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	style := threaddump.StyleART14
	kind := threaddump.VMART
	if vm.spec.Family == Dalvik {
		style, kind = threaddump.StyleDalvik, threaddump.VMDalvik
	}
	p := &threaddump.Process{PID: vm.spec.PID, Date: threaddump.FormatDate(at, style), CmdLine: vm.app, ABI: "arm64", VM: kind}
	ids := vm.sortedThreadIDs()
	var deadlocked []*threaddump.Thread
	for _, id := range ids {
		t := vm.threads[id]
		dt := &threaddump.Thread{
			Name: t.name, Daemon: t.daemon, Priority: 5, TID: int(t.id), State: vm.dumpState(t), Group: "main",
			Obj: fmt.Sprintf("0x%08x", 0x12c00000+uint32(t.id)*0x40), Self: fmt.Sprintf("0x7f%08x", uint32(t.id)*0x1000),
			SysTID: int(t.systid), Cgroup: "default", Sched: "0/0", Handle: fmt.Sprintf("0x7f%08x", uint32(t.id)*0x2000),
			KernelState: "S", SchedStat: fmt.Sprintf("%d %d %d", uint64(t.utime+t.stime)*10_000_000, 1000, t.utime+t.stime),
			Utime: int(t.utime), Stime: int(t.stime), HZ: 100, Stack: "0x7ff0000000-0x7ff0100000", StackSize: "1039KB",
		}
		if t.daemon {
			dt.Group = "system"
		}
		for _, f := range t.frames {
			dt.Frames = append(dt.Frames, dumpFrame(f))
		}
		if vm.spec.Deadlock && id > 8 && len(deadlocked) < 2 {
			deadlocked = append(deadlocked, dt)
		}
		p.Threads = append(p.Threads, dt)
	}
	if len(deadlocked) == 2 {
		a, b := deadlocked[0], deadlocked[1]
		lockA, lockB := "0x0b5e7a21", "0x03c1f8e6"
		blocked := "Blocked"
		if vm.spec.Family == Dalvik {
			blocked = "MONITOR"
		}
		for _, pair := range []struct {
			t            *threaddump.Thread
			holds, wants string
			owner        int
		}{{a, lockA, lockB, b.TID}, {b, lockB, lockA, a.TID}} {
			pair.t.State = blocked
			pair.t.Frames = append([]threaddump.Frame{threaddump.JavaFrame(vm.spec.Package+".data.Store", "transfer", "Store.java:88")}, pair.t.Frames...)
			pair.t.Locks = []threaddump.Lock{
				{Kind: threaddump.LockWaitingToLock, Object: pair.wants, Type: vm.spec.Package + ".data.Account", HeldBy: pair.owner, Frame: 0},
				{Kind: threaddump.LockHeld, Object: pair.holds, Type: vm.spec.Package + ".data.Account", Frame: 0},
			}
		}
	}
	return p
}

// Shell runs a device shell command for the simulated adbd: echo, getprop,
// cat (the ANR file and files VMs wrote), kill (-3/SIGQUIT makes the VM
// write its thread dump to ANRPath; kill -9 ends it), rm, and the modern
// commands of devicefiles.go: am dumpheap and debuggerd -j, and perfetto
// (perfetto.go).
func (d *Device) Shell(ctx context.Context, cmd string, out io.Writer) (int, error) {
	sh := adbd.BasicShell{Properties: d.Properties, ReadFile: d.readFile, Signal: d.signal, Remove: d.removeFile,
		Extra: func(words []string, out io.Writer) (int, bool) {
			if code, ok := d.perfettoCommand(words, out); ok {
				return code, true
			}
			return d.procAndDumpsys(words, out)
		},
		Commands: map[string]func(context.Context, []string, io.Writer) int{
			"am": d.amCommand, "debuggerd": d.debuggerdCommand,
		}}
	return sh.Run(ctx, cmd, out)
}

func (d *Device) readFile(path string) ([]byte, error) {
	if b, ok := d.deviceFile(path); ok {
		return b, nil
	}
	d.mu.Lock()
	if path == ANRPath && d.anr != nil {
		b := d.anr
		d.mu.Unlock()
		return b, nil
	}
	vms := make([]*VM, 0, len(d.vms))
	for _, vm := range d.vms {
		vms = append(vms, vm)
	}
	d.mu.Unlock()
	for _, vm := range vms {
		if b := vm.File(path); b != nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("%s: %w", path, fs.ErrNotExist)
}

func (d *Device) signal(pid int, sig syscall.Signal) error {
	if d.perfettoSignal(pid, sig) {
		return nil
	}
	vm := d.VM(pid)
	if vm == nil {
		return adbd.ErrNoProcess
	}
	switch sig {
	case syscall.SIGQUIT:
		var buf bytes.Buffer
		style := threaddump.StyleART14
		if vm.Spec().Family == Dalvik {
			style = threaddump.StyleDalvik
		}
		if err := threaddump.Format(&buf, vm.ThreadDump(time.Now()), style); err != nil {
			return err
		}
		// The runtime appends one block per signal (Android before 8).
		d.mu.Lock()
		d.anr = append(append([]byte(nil), d.anr...), buf.Bytes()...)
		d.mu.Unlock()
		return nil
	case syscall.SIGKILL, syscall.SIGTERM:
		d.Remove(pid)
		return nil
	}
	return errors.New("signal not simulated")
}
