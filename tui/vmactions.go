package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/mapping/apply"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
	"github.com/ddmtui/ddmtui/savefile"
	"github.com/ddmtui/ddmtui/threaddump"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/keymap"
)

// actionKeys are the VM list's actions on the selected VM; they work
// whichever pane has the focus.
func (p *vmPane) actionKeys() []keymap.Binding {
	const vm = "VM"
	b := keymap.Bind
	return []keymap.Binding{
		b(tcell.KeyRune, 'p', "p", "trace methods or sample the CPU; saved, then shown", vm, p.toggleProfiling).As("trace"),
		b(tcell.KeyRune, 'd', "d", "thread dump (debuggerd -j or kill -3 through adb), analysed", vm, p.threadDump).As("thread-dump").Also("dump"),
		b(tcell.KeyRune, 'a', "a", "allocation tracker (REAE/REAL)", vm, p.env.views.openAllocs).As("allocations"),
		b(tcell.KeyRune, 'V', "V", "views: windows, view tree, wireframe (layout inspector)", vm, p.env.views.openViews).As("views"),
		b(tcell.KeyRune, 'J', "J", "JDWP traffic of debuggers attached through ddmtui", vm, p.env.views.openSpy).As("jdwp-traffic"),
		b(tcell.KeyRune, 'H', "H", "HPROF heap dump: saved, then opened in the heap viewer", vm, p.heapDump).As("heap-dump").Also("hprof"),
		b(tcell.KeyRune, 'C', "C", "cancel the heap dump or trace being saved", vm, p.cancelSave).As("cancel-save"),
		b(tcell.KeyRune, 'X', "X", "make the selected VM exit (asks first)", vm, p.askExit).As("exit-vm"),
		b(tcell.KeyRune, 'm', "m", "switch the discovery mode (drops connections)", vm, p.nextScanMode).As("scan-mode"),
	}
}

// profiling is the VM being traced, if any.
type profiling struct{ key, app string }

func (p *vmPane) toggleProfiling() {
	e := p.env
	if e.cfg.Controller == nil {
		return
	}
	ctrl := e.cfg.Controller
	if prof := p.tracing; prof.key != "" {
		p.tracing = profiling{}
		e.flash(fmt.Sprintf("stopping the trace of %s…", prof.app))
		// Queued: a stop pressed while the start is still on its way
		// reaches the VM after it.
		path := savePath(e.cfg.TraceDir, prof.app, e.now(), ".trace")
		e.work.job("trace", jobQueue, 2*time.Minute, func(ctx context.Context) {
			var tr *trace.Profile
			_, err := savefile.Save(ctx, path, savefile.Trace(&tr), func(ctx context.Context, w *savefile.Writer) error {
				_, err := ctrl.VM(prof.key).StopProfilingTo(ctx, false, w)
				return err
			})
			if errors.Is(err, context.Canceled) && e.work.bg().Err() == nil {
				e.work.post(func() { e.flash("trace of " + prof.app + " cancelled; nothing saved") })
				return
			}
			e.work.post(func() {
				if err != nil {
					e.flash("trace failed: " + err.Error())
					return
				}
				e.flash("trace saved to " + path)
				apply.Profile(e.cfg.Mappings.forApp(prof.app), tr)
				e.views.showProfile(tr, path)
			})
		})
		e.work.markSaving("trace", "the trace of "+prof.app)
		return
	}
	if p.profileSelected() {
		return
	}
	vm, ok := e.selectedDDM("a method trace")
	if !ok || e.unable(vm, monitor.FeatMethodTrace, "method trace") {
		return
	}
	if err := savefile.Check(savePath(e.cfg.TraceDir, appLabel(vm), e.now(), ".trace")); err != nil {
		e.flash("cannot trace: " + err.Error())
		return
	}
	p.tracing = profiling{vm.Key, appLabel(vm)}
	e.flash(fmt.Sprintf("tracing %s — press p again to stop", appLabel(vm)))
	e.work.job("trace", jobQueue, 5*time.Second, func(ctx context.Context) {
		if err := ctrl.VM(vm.Key).StartProfiling(ctx, monitor.ProfileOptions{}); err != nil {
			e.work.post(func() {
				if p.tracing.key == vm.Key {
					p.tracing = profiling{}
				}
				e.flash("cannot trace: " + err.Error())
			})
		}
	})
}

func (p *vmPane) askExit() {
	e := p.env
	vm, ok := e.selectedDDM("EXIT")
	if !ok {
		return
	}
	e.flash(fmt.Sprintf("make %s (pid %d) exit? y: yes, any other key: no", appLabel(vm), vm.PID))
	ctrl := e.cfg.Controller
	e.nav.confirm(func() {
		started := e.work.job("exit:"+vm.Key, jobBusy, 3*time.Second, func(ctx context.Context) {
			if err := ctrl.VM(vm.Key).Exit(ctx, 1); err != nil && !e.work.cancelled(err) {
				e.work.post(func() { e.flash("EXIT failed: " + err.Error()) })
			}
		})
		if !started {
			e.flash(fmt.Sprintf("busy: EXIT is already on its way to %s", appLabel(vm)))
			return
		}
		e.flash(fmt.Sprintf("EXIT sent to %s", appLabel(vm)))
	})
}

func (p *vmPane) nextScanMode() {
	e := p.env
	if len(e.cfg.ScanModes) < 2 || e.cfg.SetScanMode == nil {
		e.flash("only one discovery mode: " + p.discovery)
		return
	}
	p.mode = (p.mode + 1) % len(e.cfg.ScanModes)
	p.discovery = e.cfg.ScanModes[p.mode]
	e.flash("discovery: " + p.discovery)
	set, i := e.cfg.SetScanMode, p.mode
	e.work.job("scan-mode", jobQueue, time.Minute, func(context.Context) { set(i) })
}

func (p *vmPane) threadDump() {
	e := p.env
	vm, ok := e.m.selected()
	if !ok || e.cfg.Controller == nil {
		return
	}
	// A simulated VM without a device shell: its simulator writes the dump
	// (the demo's Dalvik VM shows its deadlock this way).
	fromSim := e.cfg.SimDump != nil && vm.Capabilities.Source(monitor.FeatThreadDump) == monitor.SourceNone
	if !fromSim && e.unable(vm, monitor.FeatThreadDump, "thread dump") {
		return
	}
	ctrl := e.cfg.Controller
	names := e.cfg.Mappings.forApp(vm.App) // read here: the key changes it on the UI goroutine
	started := e.work.job("thread-dump:"+vm.Key, jobBusy, 20*time.Second, func(ctx context.Context) {
		var raw []byte
		var err error
		ok := false
		if fromSim {
			raw, ok, err = e.cfg.SimDump(ctx, vm)
		}
		if !ok {
			raw, err = ctrl.VM(vm.Key).ThreadDump(ctx)
		}
		if e.work.cancelled(err) {
			return
		}
		var dump *threaddump.Dump
		if err == nil {
			r, stats := apply.Reader(names, bytes.NewReader(raw))
			dump, err = threaddump.Parse(r)
			stats()
		}
		e.work.post(func() {
			if err != nil {
				e.flash("thread dump: " + err.Error())
				return
			}
			dump.KeepNewest(vm.PID)
			e.views.showDump(dump)
		})
	})
	if !started {
		e.flash(fmt.Sprintf("busy: a thread dump of %s is under way", appLabel(vm)))
		return
	}
	if fromSim {
		e.flash(fmt.Sprintf("thread dump of %s from its simulator (no device shell to ask)…", appLabel(vm)))
		return
	}
	e.flash(fmt.Sprintf("asking %s for a thread dump…", appLabel(vm)))
}

// heapDumpTimeout bounds a heap dump from the key to the saved file.
const heapDumpTimeout = 5 * time.Minute

// heapDump saves an HPROF dump of the selected VM next to the traces, as
// the VM wrote it, through the save path the `hprof` command uses
// (savefile, and the session's fallback to `am dumpheap` on recent
// Android): streamed to a temporary file, validated, renamed. Android's
// HPROF is kept, not converted: the viewer analyses the file, and
// conversion would lose the heaps and make ROOT UNREACHABLE objects roots
// (false leaks; spec/hprof-analysis.md D5, D15). The status line says
// how to convert it for desktop tools.
// Progress replaces itself on the status line (at most a few times a
// second, kept out of the message history); the cancel-save key or the
// timeout end it, leaving nothing behind.
func (p *vmPane) heapDump() {
	e := p.env
	// A profileable app that is not debuggable (no JDWP) on Android 11+:
	// its heap comes as a Perfetto heap graph, through the same save path.
	if vm, ok := e.m.selected(); ok && monitor.HeapGraphPreferred(vm) {
		p.heapGraph(vm)
		return
	}
	vm, ok := e.selectedDDM("a heap dump")
	if !ok || e.unable(vm, monitor.FeatHPROF, "heap dump") {
		return
	}
	ctrl, app, name := e.cfg.Controller, appLabel(vm), "heap-dump:"+vm.Key
	if e.work.busy(name) {
		e.flash(fmt.Sprintf("busy: a heap dump of %s is under way", app))
		return
	}
	path := savePath(e.cfg.TraceDir, app, e.now(), ".hprof")
	if err := savefile.Check(path); err != nil {
		e.flash("heap dump: " + err.Error())
		return
	}
	e.flash(fmt.Sprintf("dumping the heap of %s… (%s: cancel)", app, e.keyHint("cancel-save")))
	e.work.job(name, jobBusy, heapDumpTimeout+time.Minute, func(ctx context.Context) {
		var sum *hprof.Summary
		opts := savefile.HPROF(true, 0, &sum)
		opts.Timeout = heapDumpTimeout
		opts.Progress = p.heapProgress(app)
		res, err := savefile.Save(ctx, path, opts, func(ctx context.Context, w *savefile.Writer) error {
			_, err := ctrl.VM(vm.Key).HeapDumpTo(ctx, w, w.Progress)
			return err
		})
		p.heapDone(app, path, err, func() string { return heapSavedLine(path, res.Size, sum) })
	})
	e.work.markSaving(name, "the heap dump of "+app)
}

// heapGraph takes vm's Java heap as a Perfetto heap graph (monitor's
// HeapGraphTo: the device's perfetto), saves it as a .pftrace and opens
// it in the heap viewer; a second one opens the diff with the first.
func (p *vmPane) heapGraph(vm monitor.VM) {
	e := p.env
	if e.cfg.Controller == nil {
		return
	}
	if e.m.isGone(vm.Key) {
		e.flash("a heap dump: the VM's session ended; waiting for it to return")
		return
	}
	if e.unable(vm, monitor.FeatHPROF, "heap dump") {
		return
	}
	ctrl, app, name := e.cfg.Controller, appLabel(vm), "heap-dump:"+vm.Key
	if e.work.busy(name) {
		e.flash(fmt.Sprintf("busy: a heap dump of %s is under way", app))
		return
	}
	path := savePath(e.cfg.TraceDir, app, e.now(), ".pftrace")
	if err := savefile.Check(path); err != nil {
		e.flash("heap dump: " + err.Error())
		return
	}
	e.flash(fmt.Sprintf("taking a Java heap graph of %s with perfetto… (%s: cancel)", app, e.keyHint("cancel-save")))
	e.work.job(name, jobBusy, heapDumpTimeout+time.Minute, func(ctx context.Context) {
		var g *heapgraph.Graph
		opts := savefile.HeapGraph(int32(vm.PID), &g)
		opts.Timeout = heapDumpTimeout
		opts.Progress = p.heapProgress(app)
		res, err := savefile.Save(ctx, path, opts, func(ctx context.Context, w *savefile.Writer) error {
			_, err := ctrl.VM(vm.Key).HeapGraphTo(ctx, w, w.Progress)
			return err
		})
		p.heapDone(app, path, err, func() string {
			return fmt.Sprintf("heap graph saved to %s (%s, Perfetto trace: references only, no values)", path, savefile.Size(uint64(res.Size)))
		})
	})
	e.work.markSaving(name, "the heap dump of "+app)
}

// heapProgress reports a heap dump's bytes on the status line.
func (p *vmPane) heapProgress(app string) func(uint64) {
	e := p.env
	return func(n uint64) {
		msg := fmt.Sprintf("heap dump of %s: %s received…", app, savefile.Size(n))
		if n == 0 {
			msg = fmt.Sprintf("heap dump of %s: waiting for the VM…", app)
		}
		e.work.post(func() { e.status.show(msg) })
	}
}

// heapDone ends a heap dump: cancelled, failed, or saved and opened in the
// viewer (against the previous dump of the app, when there is one).
func (p *vmPane) heapDone(app, path string, err error, saved func() string) {
	e := p.env
	if e.work.bg().Err() != nil {
		return // quitting
	}
	e.work.post(func() {
		switch {
		case errors.Is(err, context.Canceled):
			e.flash(fmt.Sprintf("heap dump of %s cancelled; nothing saved", app))
		case err != nil:
			e.flash("heap dump of " + app + ": " + err.Error())
		default:
			e.flash(saved())
			e.views.heapSaved(app, path)
		}
	})
}

// heapSavedLine is the status line for a saved dump: an Android one says
// how to get the standard HPROF that desktop tools such as MAT read.
func heapSavedLine(path string, size int64, sum *hprof.Summary) string {
	if sum != nil && sum.Header.Android() {
		return fmt.Sprintf("heap dump saved to %s (%s, Android HPROF; for MAT: ddmtui hprof convert FILE OUT)", path, savefile.Size(uint64(size)))
	}
	return fmt.Sprintf("heap dump saved to %s (%s)", path, savefile.Size(uint64(size)))
}

// cancelSave ends the heap dumps and the trace being saved.
func (p *vmPane) cancelSave() {
	what := p.env.work.cancelSaves()
	if len(what) == 0 {
		p.env.flash("nothing is being saved")
		return
	}
	p.env.flash("cancelling " + strings.Join(what, ", ") + "…")
}

// savePath names a saved file after the app and the time, in dir (default
// the current directory).
func savePath(dir, app string, now time.Time, ext string) string {
	if dir == "" {
		dir = "."
	}
	return filepath.Join(dir, fileSafe(app)+"-"+now.Format("20060102-150405")+ext)
}

// fileSafe makes an app name usable as a file name on every system: path
// separators, ':' (process names such as com.example:remote; Windows and
// some tools refuse it), control characters (C0, C1 such as U+009B, and the
// bidirectional controls such as U+202E, which make a name read otherwise
// than it is: safetext.IsControl) and other reserved characters become '_'.
func fileSafe(app string) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case safetext.IsControl(r), r == utf8.RuneError:
			return '_'
		case strings.ContainsRune(`/\:*?"<>|`, r):
			return '_'
		}
		return r
	}, app)
	if name == "" || name == "." || name == ".." {
		name = "vm"
	}
	return name
}
