package monitor

import (
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/record"
)

// vmEntry writes one VM's entry in the store: what the session learns of
// the VM (features, API level, model, track-app's word, the debugger),
// its last error, and the inputs of its capability decision with the
// decision itself. Every part of a session writes through it, and reads
// the VM back through it; changes that are inputs of their own are
// recorded by their callers, the capability inputs here.
type vmEntry struct {
	key   string
	pid   int // the endpoint's (adb's); 0 when not known before HELO
	store *Store
	rec   *Recorder // nil: not recording

	capsMu sync.Mutex // orders setCaps calls
	mu     sync.Mutex // guards caps
	caps   capInput
}

// vm is the VM as the store has it; false once it is gone.
func (e *vmEntry) vm() (VM, bool) { return e.store.VM(e.key) }

// currentPID is the VM's pid as the store knows it (adb's, or HELO's).
func (e *vmEntry) currentPID() int {
	if vm, ok := e.store.VM(e.key); ok && vm.PID > 0 {
		return vm.PID
	}
	return e.pid
}

// hasFeature reports whether the VM's FEAT reply listed name.
func (e *vmEntry) hasFeature(name string) bool {
	vm, ok := e.store.VM(e.key)
	if !ok {
		return false
	}
	for _, f := range vm.Features {
		if f == name {
			return true
		}
	}
	return false
}

// unserved returns a *NotServedError when f was decided to have no source.
func (e *vmEntry) unserved(f Feature) error {
	vm, ok := e.store.VM(e.key)
	if !ok {
		return nil
	}
	if c, ok := vm.Capabilities[f]; ok && c.Source == SourceNone {
		return &NotServedError{Feature: f, Reason: c.Reason}
	}
	return nil
}

// capsNow is a copy of the capability inputs (features shared: never
// written in place).
func (e *vmEntry) capsNow() capInput {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.caps
}

// setCaps changes the capability inputs and, if the decision changed,
// stores it on the VM.
func (e *vmEntry) setCaps(fn func(*capInput)) {
	// Decisions reach the store in the order their inputs changed.
	e.capsMu.Lock()
	defer e.capsMu.Unlock()
	e.mu.Lock()
	fn(&e.caps)
	in := e.caps
	in.features = append([]string(nil), in.features...)
	e.mu.Unlock()
	e.rec.json(time.Now(), record.KindState, e.key, stateRecord{Caps: capsToState(in)})
	caps := decideCapabilities(in)
	e.store.updateExisting(e.key, func(vm *VM) {
		if !capsEqual(vm.Capabilities, caps) {
			vm.Capabilities = caps
		}
	})
}

func capsEqual(a, b Capabilities) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// setErr records and sets the VM's last error.
func (e *vmEntry) setErr(msg string) {
	e.rec.json(time.Now(), record.KindState, e.key, stateRecord{Err: &msg})
	e.applyErr(msg)
}

func (e *vmEntry) applyErr(msg string) {
	e.store.UpdateVM(e.key, func(vm *VM) { vm.Err = msg })
}

// applyHello stores the identity HELO gave; family is the VM's, from it.
func (e *vmEntry) applyHello(h *ddm.Hello, family string) {
	e.store.UpdateVM(e.key, func(vm *VM) {
		vm.DDM = true
		if vm.PID == 0 || vm.PID == int(h.PID) {
			vm.PID = int(h.PID)
		}
		vm.App = h.AppName
		vm.VMIdent = h.VMIdent
		vm.Family = family
		if h.Extent >= ddm.HelloUserID {
			vm.UserID, vm.UserIDKnown = int(h.UserID), true
		}
		vm.ABI, vm.JVMFlags, vm.Package = h.ABI, h.JVMFlags, h.PackageName
	})
}

// applyFeatures stores the FEAT reply.
func (e *vmEntry) applyFeatures(f *ddm.Features) {
	e.store.UpdateVM(e.key, func(vm *VM) { vm.Features = f.Names })
}

func (e *vmEntry) applyModel(model string) {
	e.store.updateExisting(e.key, func(vm *VM) { vm.Model = model })
}

func (e *vmEntry) applyAPI(api int) {
	e.store.updateExisting(e.key, func(vm *VM) { vm.API = api })
	e.setCaps(func(in *capInput) { in.api = api })
}

// applyJDWPIdent stores what VirtualMachine.Version said of a VM that
// refused DDM.
func (e *vmEntry) applyJDWPIdent(id jdwpIdent) {
	e.store.UpdateVM(e.key, func(vm *VM) {
		vm.DDM = false
		vm.Family = id.Family
		vm.VMIdent = id.VMIdent
		if id.Err != "" {
			vm.Err = id.Err
		}
	})
}

// applyDebugger sets the debugger state (unless empty) and port (unless
// negative) shown for the VM.
func (e *vmEntry) applyDebugger(state DebuggerState, port int) {
	e.store.updateExisting(e.key, func(vm *VM) {
		if state != "" {
			vm.Debugger = state
		}
		if port >= 0 {
			vm.DebugPort = port
		}
	})
}

// applyProcess stores what track-app says about the process. Its name is
// the app's until HELO names it; waiting_for_debugger is DDM's WAIT.
func (e *vmEntry) applyProcess(r *processRecord) {
	e.store.updateExisting(e.key, func(vm *VM) {
		vm.Tracked = true
		vm.Debuggable, vm.Profileable, vm.Architecture = r.Debuggable, r.Profileable, r.Architecture
		if r.UserID != nil {
			vm.UserID, vm.UserIDKnown = int(*r.UserID), true
		}
		if r.UID != nil {
			vm.UID, vm.UIDKnown = int(*r.UID), true
		}
		if r.Name != "" && (vm.App == "" || !vm.DDM) {
			vm.App = r.Name
		}
		if vm.Package == "" && len(r.Packages) > 0 {
			vm.Package = r.Packages[0]
		}
		if r.Waiting != nil && vm.Debugger != DebuggerAttached {
			switch {
			case *r.Waiting:
				vm.Debugger = DebuggerWaiting
			case vm.Debugger == DebuggerWaiting:
				vm.Debugger = DebuggerNone
			}
		}
	})
}

// applyProcName names a process without DDM (from /proc/PID/cmdline).
func (e *vmEntry) applyProcName(name string) {
	e.store.updateExisting(e.key, func(vm *VM) {
		if !vm.DDM {
			vm.App = name
		}
	})
}
