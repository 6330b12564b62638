package monitor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/record"
)

// Processes found through track-app (spec/adb-track-app.md): a debuggable
// VM's entry adds its flags, architecture, user and (Android 15) its name
// and wait to the VM's model; a profileable process without JDWP is an
// entry of its own, fed only by the device shell — threads and CPU from
// /proc, memory from dumpsys meminfo, its log lines — and named by
// track-app (Android 15+) or by its /proc/PID/cmdline.

// NoJDWPReason is the one line a profileable-only process shows for what it
// cannot give.
const NoJDWPReason = "a profileable process has no JDWP: no stacks, no heap map, no debugger port"

// ErrNoJDWP is returned for requests that need JDWP from a process that has
// none (profileable only).
var ErrNoJDWP = errors.New(NoJDWPReason)

// maxProcName bounds a process name read from the device.
const maxProcName = 256

// processRecord is a track-app entry in a KindState record (JSON); the
// optional fields are nil when the device did not send them.
type processRecord struct {
	Debuggable   bool     `json:"debuggable,omitempty"`
	Profileable  bool     `json:"profileable,omitempty"`
	Architecture string   `json:"architecture,omitempty"`
	UserID       *int64   `json:"user_id,omitempty"`
	Name         string   `json:"process_name,omitempty"`
	Packages     []string `json:"package_names,omitempty"`
	Waiting      *bool    `json:"waiting_for_debugger,omitempty"`
	UID          *int64   `json:"uid,omitempty"`
}

func newProcessRecord(p adb.AppProcess) *processRecord {
	r := &processRecord{Debuggable: p.Debuggable, Profileable: p.Profileable, Architecture: p.Architecture,
		Name: p.ProcessName, Packages: p.PackageNames}
	if p.HasUserID {
		r.UserID = &p.UserID
	}
	if p.HasWaiting {
		r.Waiting = &p.WaitingForDebugger
	}
	if p.HasUID {
		r.UID = &p.UID
	}
	return r
}

// runProcess runs the session of a process without JDWP until ctx ends.
func (s *Session) runProcess(ctx context.Context) {
	if !s.noJDWP { // NewSession decides it from the endpoint
		s.noJDWP = true
	}
	s.hsErr = ErrNoJDWP
	close(s.ready)
	s.input(s.begin)
	defer s.input(func(now time.Time) { s.end(now, s.endReason("process gone"), false) })
	s.setCaps(func(in *capInput) { in.kind = "process" })
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		s.wg.Wait()
	}()
	s.startWatchProcess(ctx)
	s.wg.Add(3)
	go func() {
		defer s.wg.Done()
		s.readAPI(ctx)
	}()
	go func() {
		defer s.wg.Done()
		s.runMeminfo(ctx)
	}()
	go func() {
		defer s.wg.Done()
		s.nameFromShell(ctx)
	}()
	s.startProcThreads(ctx)
	<-ctx.Done()
}

// HasJDWP reports whether the session's endpoint has a JDWP stream: false
// for a profileable process without JDWP, which gets no debugger port.
func (s *Session) HasJDWP() bool { return !s.noJDWP }

// startWatchProcess applies the process's track-app entry now and
// whenever it changes, on a source goroutine, until ctx ends. It is called
// after begin, so the entry follows the endpoint in a recording.
func (s *Session) startWatchProcess(ctx context.Context) {
	if s.process == nil {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.watchProcess(ctx)
	}()
}

func (s *Session) watchProcess(ctx context.Context) {
	for {
		p, changed := s.process.Get()
		rec := newProcessRecord(p)
		s.input(func(now time.Time) {
			s.rec.json(now, record.KindState, s.key, stateRecord{Process: rec})
			s.applyProcess(rec)
		})
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

// applyProcess stores what track-app says about the process. Its name is
// the app's until HELO names it; waiting_for_debugger is DDM's WAIT.
func (s *Session) applyProcess(r *processRecord) {
	s.store.updateExisting(s.key, func(vm *VM) {
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

// nameFromShell names a process that track-app did not name (before
// Android 15) from its /proc/PID/cmdline, once; a process still called
// "<pre-initialized>" (forked, not yet specialised) is asked again.
func (s *Session) nameFromShell(ctx context.Context) {
	for wait := time.Duration(0); ; wait = time.Second {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if vm, ok := s.store.VM(s.key); ok && vm.App != "" && vm.App != "<pre-initialized>" {
			return
		}
		rctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
		out, err := s.deviceRun(rctx, fmt.Sprintf("cat /proc/%d/cmdline", s.pid))
		cancel()
		if ctx.Err() != nil {
			return
		}
		name, ok := parseCmdline(out)
		if err != nil || !ok {
			s.log.Info("naming the process from /proc/PID/cmdline failed", "error", err, "output", firstLine(out))
			return
		}
		s.input(func(now time.Time) {
			s.rec.json(now, record.KindState, s.key, stateRecord{ProcName: &name})
			s.applyProcName(name)
		})
		if name != "<pre-initialized>" {
			return
		}
	}
}

// parseCmdline takes the program name from /proc/PID/cmdline: up to the
// first NUL, bounded; false when it is empty or an error message of cat.
func parseCmdline(b []byte) (string, bool) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	} else if bytes.HasPrefix(b, []byte("cat:")) || bytes.Contains(b, []byte("No such file")) {
		return "", false
	}
	name := strings.TrimSpace(string(b))
	if len(name) > maxProcName {
		name = name[:maxProcName]
	}
	return name, name != ""
}

func (s *Session) applyProcName(name string) {
	s.store.updateExisting(s.key, func(vm *VM) {
		if !vm.DDM {
			vm.App = name
		}
	})
}
