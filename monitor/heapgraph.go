package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ddmtui/ddmtui/devshell"
)

// Java heap graphs through Perfetto (devshell.DumpHeapGraph): the heap of
// a profileable or debuggable app from Android 11, where `am dumpheap`
// (and DDM's HPROF) need a debuggable one.

// ErrHeapGraphNeedsDevice is returned for a VM that is not on an adb
// device: perfetto runs in the device's shell.
var ErrHeapGraphNeedsDevice = errors.New("heap graphs are taken with the device's perfetto: the VM is not on an adb device")

// HeapGraphTo takes the VM's Java heap as a Perfetto heap graph (a
// Perfetto trace of the android.java_hprof data source) and writes it to
// w as it is pulled from the device; progress is told the trace's size
// while perfetto writes it, then the bytes copied. It returns the bytes
// written. The app must be debuggable or profileable, the device Android
// 11 (API 30) or later: otherwise the error says which.
func (s *Session) HeapGraphTo(ctx context.Context, w io.Writer, progress func(received uint64)) (int64, error) {
	return s.dumps.graph(ctx, w, progress)
}

// HeapGraphPreferred reports whether a heap dump of vm should be a heap
// graph rather than HPROF: a process without JDWP (profileable, not
// debuggable) on Android 11 or later, where `am dumpheap` is refused. Such
// a process is known from track-app (Android 12+) alone, so one whose API
// level is not known yet is taken as recent enough.
func HeapGraphPreferred(vm VM) bool {
	return vm.ProcessOnly() && (vm.API == 0 || vm.API >= devshell.HeapGraphAPI)
}

func (d *heapDumper) graph(ctx context.Context, w io.Writer, progress func(uint64)) (int64, error) {
	if d.dev == nil || !devshell.HasSync(d.dev) {
		return 0, ErrHeapGraphNeedsDevice
	}
	vm, ok := d.entry.vm()
	if !ok || vm.PID <= 0 {
		return 0, errors.New("the VM's pid is not known")
	}
	if !vm.Debuggable && !vm.Profileable {
		return 0, fmt.Errorf("pid %d is neither debuggable nor profileable: perfetto dumps only such apps (on user builds)", vm.PID)
	}
	return devshell.DumpHeapGraph(ctx, d.dev, d.request(vm, progress), w)
}
