package monitor

import (
	"context"
	"errors"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/record"
	"github.com/ddmtui/ddmtui/scan"
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
	s.conn.hsErr = ErrNoJDWP
	close(s.conn.ready)
	s.input(s.begin)
	defer s.input(func(now time.Time) { s.end(now, s.endReason("process gone"), false) })
	s.entry.setCaps(func(in *capInput) { in.kind = "process" })
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		s.wg.Wait()
	}()
	s.startWatchProcess(ctx)
	s.wg.Add(3)
	go func() {
		defer s.wg.Done()
		s.src.readAPI(ctx)
	}()
	go func() {
		defer s.wg.Done()
		s.src.runMeminfo(ctx)
	}()
	go func() {
		defer s.wg.Done()
		s.src.nameFromShell(ctx)
	}()
	s.src.startProcThreads(ctx)
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
		watchProcess(ctx, s.process, s.entry, s.input)
	}()
}

// watchProcess records and applies p's entry to the VM's, now and at
// every change, until ctx ends.
func watchProcess(ctx context.Context, p *scan.Process, entry *vmEntry, input func(func(time.Time))) {
	for {
		ap, changed := p.Get()
		rec := newProcessRecord(ap)
		input(func(now time.Time) {
			entry.rec.json(now, record.KindState, entry.key, stateRecord{Process: rec})
			entry.applyProcess(rec)
		})
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}
