package tui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/monitor"
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
		b(tcell.KeyRune, 'd', "d", "thread dump (debuggerd -j or kill -3 through adb), analysed", vm, p.threadDump).As("thread-dump"),
		b(tcell.KeyRune, 'a', "a", "allocation tracker (REAE/REAL)", vm, p.d.ov.openAllocs).As("allocations"),
		b(tcell.KeyRune, 'V', "V", "views: windows, view tree, wireframe (layout inspector)", vm, p.d.ov.openViews).As("views"),
		b(tcell.KeyRune, 'J', "J", "JDWP traffic of debuggers attached through ddmtui", vm, p.d.ov.openSpy).As("jdwp-traffic"),
		b(tcell.KeyRune, 'H', "H", "HPROF heap dump, saved as standard HPROF", vm, p.heapDump).As("heap-dump"),
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
		d.job("trace", jobQueue, 2*time.Minute, func(ctx context.Context) {
			data, err := ctrl.StopProfiling(ctx, prof.key, false)
			if err != nil {
				d.post(func() { d.flash("trace failed: " + err.Error()) })
				return
			}
			path, tr, err := saveTrace(d.cfg.TraceDir, prof.app, data, d.now())
			d.post(func() {
				if err != nil {
					d.flash(err.Error())
					return
				}
				d.flash("trace saved to " + path)
				d.ov.showProfile(tr, path)
			})
		})
		return
	}
	vm, ok := d.selectedDDM("a method trace")
	if !ok {
		return
	}
	d.statusP.tracing = profiling{vm.Key, appLabel(vm)}
	d.flash(fmt.Sprintf("tracing %s — press p again to stop", appLabel(vm)))
	d.job("trace", jobQueue, 5*time.Second, func(ctx context.Context) {
		if err := ctrl.StartProfiling(ctx, vm.Key, monitor.ProfileOptions{}); err != nil {
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
			if err := ctrl.Exit(ctx, vm.Key, 1); err != nil && !d.cancelled(err) {
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
	ctrl := d.cfg.Controller
	started := d.job("thread-dump:"+vm.Key, jobBusy, 20*time.Second, func(ctx context.Context) {
		raw, err := ctrl.ThreadDump(ctx, vm.Key)
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
	d.flash(fmt.Sprintf("asking %s for a thread dump…", appLabel(vm)))
}

// heapDump saves an HPROF dump of the selected VM, converted to standard
// HPROF, next to the traces; progress shows in the status line.
func (p *vmPane) heapDump() {
	d := p.d
	vm, ok := d.selectedDDM("a heap dump")
	if !ok {
		return
	}
	ctrl, app := d.cfg.Controller, appLabel(vm)
	if d.jobBusyWith("heap-dump:" + vm.Key) {
		d.flash(fmt.Sprintf("busy: a heap dump of %s is under way", app))
		return
	}
	d.flash(fmt.Sprintf("dumping the heap of %s…", app))
	d.job("heap-dump:"+vm.Key, jobBusy, 5*time.Minute, func(ctx context.Context) {
		progress := func(n uint64) {
			d.post(func() { d.flash(fmt.Sprintf("heap dump of %s: %s received…", app, humanBytes(n))) })
		}
		data, err := ctrl.HeapDump(ctx, vm.Key, progress)
		if d.cancelled(err) {
			return
		}
		var path string
		if err == nil {
			path, err = saveHPROF(d.cfg.TraceDir, app, data, d.now())
		}
		d.post(func() {
			if err != nil {
				d.flash("heap dump: " + err.Error())
				return
			}
			d.flash("heap dump saved to " + path)
		})
	})
}

// saveHPROF converts Android's HPROF to standard HPROF and writes it.
func saveHPROF(dir, app string, data []byte, now time.Time) (string, error) {
	std, err := hprof.ToStandard(data)
	if err != nil {
		return "", fmt.Errorf("converting the dump: %w", err)
	}
	path := savePath(dir, app, now, ".hprof")
	if err := os.WriteFile(path, std, 0o644); err != nil {
		return "", fmt.Errorf("saving the dump: %w", err)
	}
	return path, nil
}

// saveTrace writes a trace file named after the app and the time, and
// parses it for the profile view.
func saveTrace(dir, app string, data []byte, now time.Time) (string, *trace.Profile, error) {
	path := savePath(dir, app, now, ".trace")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", nil, fmt.Errorf("saving the trace: %w", err)
	}
	prof, err := trace.ReadProfile(bytes.NewReader(data), trace.BuildOptions{})
	if err != nil {
		return path, nil, fmt.Errorf("saved %s, but it does not parse: %w", path, err)
	}
	return path, prof, nil
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
