package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/monitor"
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
		b(tcell.KeyRune, 'p', "p", "start / stop a method trace (saved, then shown)", vm, p.toggleProfiling).As("trace"),
		b(tcell.KeyRune, 'd', "d", "thread dump (debuggerd -j or kill -3 through adb), analysed", vm, p.threadDump).As("thread-dump").Also("dump"),
		b(tcell.KeyRune, 'a', "a", "allocation tracker (REAE/REAL)", vm, p.d.ov.openAllocs).As("allocations"),
		b(tcell.KeyRune, 'V', "V", "views: windows, view tree, wireframe (layout inspector)", vm, p.d.ov.openViews).As("views"),
		b(tcell.KeyRune, 'J', "J", "JDWP traffic of debuggers attached through ddmtui", vm, p.d.ov.openSpy).As("jdwp-traffic"),
		b(tcell.KeyRune, 'H', "H", "HPROF heap dump: saved, then opened in the heap viewer", vm, p.heapDump).As("heap-dump").Also("hprof"),
		b(tcell.KeyRune, 'C', "C", "cancel the heap dump or trace being saved", vm, p.cancelSave).As("cancel-save"),
		b(tcell.KeyRune, 'X', "X", "make the selected VM exit (asks first)", vm, p.askExit).As("exit-vm"),
		b(tcell.KeyRune, 'm', "m", "switch the discovery mode (drops connections)", vm, p.nextScanMode).As("scan-mode"),
	}
}

// profiling is the VM being traced, if any.
type profiling struct{ key, app string }

func (p *vmPane) toggleProfiling() {
	d := p.d
	if d.cfg.Controller == nil {
		return
	}
	ctrl := d.cfg.Controller
	if prof := d.statusP.tracing; prof.key != "" {
		d.statusP.tracing = profiling{}
		d.flash(fmt.Sprintf("stopping the trace of %s…", prof.app))
		// Queued: a stop pressed while the start is still on its way
		// reaches the VM after it.
		path := savePath(d.cfg.TraceDir, prof.app, d.now(), ".trace")
		d.job("trace", jobQueue, 2*time.Minute, func(ctx context.Context) {
			var tr *trace.Profile
			_, err := savefile.Save(ctx, path, savefile.Trace(&tr), func(ctx context.Context, w *savefile.Writer) error {
				_, err := ctrl.VM(prof.key).StopProfilingTo(ctx, false, w)
				return err
			})
			if errors.Is(err, context.Canceled) && d.bg().Err() == nil {
				d.post(func() { d.flash("trace of " + prof.app + " cancelled; nothing saved") })
				return
			}
			d.post(func() {
				if err != nil {
					d.flash("trace failed: " + err.Error())
					return
				}
				d.flash("trace saved to " + path)
				d.ov.showProfile(tr, path)
			})
		})
		d.markSaving("trace", "the trace of "+prof.app)
		return
	}
	vm, ok := d.selectedDDM("a method trace")
	if !ok || d.unable(vm, monitor.FeatMethodTrace, "method trace") {
		return
	}
	if err := savefile.Check(savePath(d.cfg.TraceDir, appLabel(vm), d.now(), ".trace")); err != nil {
		d.flash("cannot trace: " + err.Error())
		return
	}
	d.statusP.tracing = profiling{vm.Key, appLabel(vm)}
	d.flash(fmt.Sprintf("tracing %s — press p again to stop", appLabel(vm)))
	d.job("trace", jobQueue, 5*time.Second, func(ctx context.Context) {
		if err := ctrl.VM(vm.Key).StartProfiling(ctx, monitor.ProfileOptions{}); err != nil {
			d.post(func() {
				if d.statusP.tracing.key == vm.Key {
					d.statusP.tracing = profiling{}
				}
				d.flash("cannot trace: " + err.Error())
			})
		}
	})
}

func (p *vmPane) askExit() {
	d := p.d
	vm, ok := d.selectedDDM("EXIT")
	if !ok {
		return
	}
	d.flash(fmt.Sprintf("make %s (pid %d) exit? y: yes, any other key: no", appLabel(vm), vm.PID))
	ctrl := d.cfg.Controller
	d.confirm = func() {
		started := d.job("exit:"+vm.Key, jobBusy, 3*time.Second, func(ctx context.Context) {
			if err := ctrl.VM(vm.Key).Exit(ctx, 1); err != nil && !d.cancelled(err) {
				d.post(func() { d.flash("EXIT failed: " + err.Error()) })
			}
		})
		if !started {
			d.flash(fmt.Sprintf("busy: EXIT is already on its way to %s", appLabel(vm)))
			return
		}
		d.flash(fmt.Sprintf("EXIT sent to %s", appLabel(vm)))
	}
}

func (p *vmPane) nextScanMode() {
	d := p.d
	if len(d.cfg.ScanModes) < 2 || d.cfg.SetScanMode == nil {
		d.flash("only one discovery mode: " + d.cfg.Discovery)
		return
	}
	d.statusP.mode = (d.statusP.mode + 1) % len(d.cfg.ScanModes)
	d.cfg.Discovery = d.cfg.ScanModes[d.statusP.mode]
	d.flash("discovery: " + d.cfg.Discovery)
	set, i := d.cfg.SetScanMode, d.statusP.mode
	d.job("scan-mode", jobQueue, time.Minute, func(context.Context) { set(i) })
}

func (p *vmPane) threadDump() {
	d := p.d
	vm, ok := d.m.selected()
	if !ok || d.cfg.Controller == nil {
		return
	}
	// A simulated VM without a device shell: its simulator writes the dump
	// (the demo's Dalvik VM shows its deadlock this way).
	fromSim := d.cfg.SimDump != nil && vm.Capabilities.Source(monitor.FeatThreadDump) == monitor.SourceNone
	if !fromSim && d.unable(vm, monitor.FeatThreadDump, "thread dump") {
		return
	}
	ctrl := d.cfg.Controller
	started := d.job("thread-dump:"+vm.Key, jobBusy, 20*time.Second, func(ctx context.Context) {
		var raw []byte
		var err error
		ok := false
		if fromSim {
			raw, ok, err = d.cfg.SimDump(ctx, vm)
		}
		if !ok {
			raw, err = ctrl.VM(vm.Key).ThreadDump(ctx)
		}
		if d.cancelled(err) {
			return
		}
		var dump *threaddump.Dump
		if err == nil {
			dump, err = threaddump.Parse(bytes.NewReader(raw))
		}
		d.post(func() {
			if err != nil {
				d.flash("thread dump: " + err.Error())
				return
			}
			dump.KeepNewest(vm.PID)
			d.ov.showDump(dump)
		})
	})
	if !started {
		d.flash(fmt.Sprintf("busy: a thread dump of %s is under way", appLabel(vm)))
		return
	}
	if fromSim {
		d.flash(fmt.Sprintf("thread dump of %s from its simulator (no device shell to ask)…", appLabel(vm)))
		return
	}
	d.flash(fmt.Sprintf("asking %s for a thread dump…", appLabel(vm)))
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
	d := p.d
	vm, ok := d.selectedDDM("a heap dump")
	if !ok || d.unable(vm, monitor.FeatHPROF, "heap dump") {
		return
	}
	ctrl, app, name := d.cfg.Controller, appLabel(vm), "heap-dump:"+vm.Key
	if d.jobBusyWith(name) {
		d.flash(fmt.Sprintf("busy: a heap dump of %s is under way", app))
		return
	}
	path := savePath(d.cfg.TraceDir, app, d.now(), ".hprof")
	if err := savefile.Check(path); err != nil {
		d.flash("heap dump: " + err.Error())
		return
	}
	d.flash(fmt.Sprintf("dumping the heap of %s… (%s: cancel)", app, keyHint(d.keys, "cancel-save")))
	d.job(name, jobBusy, heapDumpTimeout+time.Minute, func(ctx context.Context) {
		var sum *hprof.Summary
		opts := savefile.HPROF(true, 0, &sum)
		opts.Timeout = heapDumpTimeout
		opts.Progress = func(n uint64) {
			msg := fmt.Sprintf("heap dump of %s: %s received…", app, savefile.Size(n))
			if n == 0 {
				msg = fmt.Sprintf("heap dump of %s: waiting for the VM…", app)
			}
			d.post(func() { d.statusP.show(msg) })
		}
		res, err := savefile.Save(ctx, path, opts, func(ctx context.Context, w *savefile.Writer) error {
			_, err := ctrl.VM(vm.Key).HeapDumpTo(ctx, w, w.Progress)
			return err
		})
		if d.bg().Err() != nil {
			return // quitting
		}
		d.post(func() {
			switch {
			case errors.Is(err, context.Canceled):
				d.flash(fmt.Sprintf("heap dump of %s cancelled; nothing saved", app))
			case err != nil:
				d.flash("heap dump of " + app + ": " + err.Error())
			default:
				d.flash(heapSavedLine(path, res.Size, sum))
				d.heapSaved(app, path)
			}
		})
	})
	d.markSaving(name, "the heap dump of "+app)
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
	what := p.d.cancelSaves()
	if len(what) == 0 {
		p.d.flash("nothing is being saved")
		return
	}
	p.d.flash("cancelling " + strings.Join(what, ", ") + "…")
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
// some tools refuse it), control characters and other reserved characters
// become '_'.
func fileSafe(app string) string {
	name := strings.Map(func(r rune) rune {
		switch {
		case r < 0x20 || r == 0x7f:
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
