package monitor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/devshell"
)

// heapDumper takes a VM's HPROF heap dump (spec/ddm-chunks.md §7.6):
// streamed over DDM (HPDS), written by the VM to a device file (HPDU) and
// pulled, or, when the VM does not answer within HeapDumpWait (recent
// Android never does) or has no DDM heap dump, with the device's `am
// dumpheap` (devshell.DumpHeapAm).
type heapDumper struct {
	conn  *vmConn
	xfer  *transfers
	entry *vmEntry
	dev   devshell.Shell // nil: the VM is not on a device
	// wait is SessionOptions.HeapDumpWait, maxFile MaxDeviceFile.
	wait    time.Duration
	maxFile int64
	log     *slog.Logger
}

// errVMSilent: the VM sent nothing for a heap dump within HeapDumpWait.
var errVMSilent = errors.New("the VM did not answer the heap dump request")

// Rewinder is a heap dump destination that can start over (see
// devshell.Rewinder).
type Rewinder = devshell.Rewinder

// onDevice reports whether the VM's device can be used for dumps (its
// shell and its files through sync:).
func (d *heapDumper) onDevice() bool { return d.dev != nil && devshell.HasSync(d.dev) }

// dump is Session.HeapDumpTo: DDM first (HPDS streamed, or HPDU to a
// device file), and the device's `am dumpheap` when the VM does not answer
// within HeapDumpWait or cannot dump through DDM at all.
//
// The dump goes to w as it arrives: an HPDS dump from the connection when
// it comes as one large packet (hpdsstream.go), a device file from sync:
// RECV. It returns the bytes written.
func (d *heapDumper) dump(ctx context.Context, w io.Writer, progress func(received uint64)) (int64, error) {
	if err := d.conn.waitReady(ctx); err != nil {
		return 0, err
	}
	var (
		n   int64
		err error
	)
	switch {
	case d.amAtOnce():
		d.log.Info("heap dump with am dumpheap at once: the device's API level says the VM has no DDM heap handler")
		return d.am(ctx, w, progress)
	case !d.conn.isDDM:
		err = ErrNotDDM
	case d.entry.hasFeature("hprof-heap-dump-streaming") && !d.onDevice():
		// No other way: wait for as long as ctx allows.
		return d.xfer.collect(ctx, ddm.TypeHPDS, &ddm.HeapDumpStreamRequest{}, "heap dump", w, progress)
	case d.entry.hasFeature("hprof-heap-dump-streaming"):
		n, err = d.collectUnlessSilent(ctx, w, progress)
	case d.entry.hasFeature("hprof-heap-dump") && d.dev != nil:
		n, err = d.toFile(ctx, w, progress)
	case d.entry.hasFeature("hprof-heap-dump"):
		err = errors.New("the VM can only dump its heap to a device file, and it is not on an adb device")
	default:
		err = errors.New("the VM cannot dump its heap (no hprof-heap-dump feature)")
	}
	if err == nil {
		return n, nil
	}
	if ctx.Err() != nil || n > 0 {
		return n, err // a dump that failed midway is not tried again
	}
	var fe *ddm.FailError
	if errors.As(err, &fe) || !d.onDevice() {
		if errors.Is(err, errVMSilent) {
			return 0, fmt.Errorf("%w within %s (VMs on recent Android never do), and it is not on an adb device for `am dumpheap`", err, d.wait)
		}
		return 0, err
	}
	d.log.Info("heap dump through DDM unavailable; using am dumpheap", "reason", err)
	n, aerr := d.am(ctx, w, progress)
	if aerr != nil {
		return n, fmt.Errorf("%v; am dumpheap: %w", err, aerr)
	}
	return n, nil
}

// amAtOnce reports whether the heap dump goes to `am dumpheap` without
// asking the VM first: the capability decision made it the source (a DDM
// VM on a device whose API level lacks DdmHandleHeap, ddmThreadsGoneAPI on,
// that has not answered HPIF), so waiting HeapDumpWait for an HPDS answer
// would only delay it (issue 38 #9: 5 s on every `H` on Android 14).
func (d *heapDumper) amAtOnce() bool {
	if !d.onDevice() {
		return false
	}
	vm, ok := d.entry.vm()
	return ok && vm.Capabilities.Source(FeatHPROF) == SourceAm
}

// silentBytes is how much the VM may send within HeapDumpWait while still
// counting as silent: replies to the session's polls (THST, HPIF) keep
// arriving meanwhile, a dump in transit is far more.
const silentBytes = 64 << 10

// collectUnlessSilent runs the HPDS exchange, giving up with errVMSilent
// when less than silentBytes arrive from the VM within HeapDumpWait.
func (d *heapDumper) collectUnlessSilent(ctx context.Context, w io.Writer, progress func(uint64)) (int64, error) {
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var got atomic.Uint64
	t := time.AfterFunc(d.wait, func() {
		if got.Load() < silentBytes {
			cancel(errVMSilent)
		}
	})
	defer t.Stop()
	n, err := d.xfer.collect(cctx, ddm.TypeHPDS, &ddm.HeapDumpStreamRequest{}, "heap dump", w, func(n uint64) {
		got.Store(n)
		if progress != nil {
			progress(n)
		}
	})
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(cctx), errVMSilent) {
		return n, errVMSilent
	}
	return n, err
}

// toFile makes the VM write its dump to the device (HPDU) where ddmlib has
// it written, /sdcard/<app up to ':'>.hprof, and copies it to w. A VM that
// neither answers nor writes the file is errVMSilent.
func (d *heapDumper) toFile(ctx context.Context, w io.Writer, progress func(uint64)) (int64, error) {
	vm, _ := d.entry.vm()
	path := devshell.HprofPath(vm.App)
	rctx, cancel := context.WithTimeout(ctx, d.wait)
	m, err := d.conn.request(rctx, &ddm.HeapDumpRequest{FileName: path})
	cancel()
	silent := err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil
	if err != nil && !silent {
		return 0, err
	}
	if r, ok := m.(*ddm.HeapDumpResult); ok && !r.OK() {
		return 0, fmt.Errorf("the VM could not write %s", path)
	}
	if !silent || !devshell.HasSync(d.dev) {
		n, err := d.dev.PullTo(ctx, path, devshell.ProgressWriter(w, progress), d.maxFile)
		if silent && n == 0 && errors.Is(err, fs.ErrNotExist) {
			return 0, errVMSilent
		}
		return n, err
	}
	// No reply (yet): a VM still writing a large dump replies when done,
	// so a file that exists is followed until it is complete.
	if _, err := d.dev.Stat(ctx, path); errors.Is(err, fs.ErrNotExist) {
		return 0, errVMSilent
	}
	return devshell.PullCompleteDump(ctx, d.dev, path, false, d.request(vm, progress), w)
}

// am dumps the heap with the device's `am dumpheap` (devshell.DumpHeapAm).
func (d *heapDumper) am(ctx context.Context, w io.Writer, progress func(uint64)) (int64, error) {
	vm, ok := d.entry.vm()
	if !ok || vm.PID <= 0 {
		return 0, errors.New("the VM's pid is not known")
	}
	return devshell.DumpHeapAm(ctx, d.dev, d.request(vm, progress), w)
}

func (d *heapDumper) request(vm VM, progress func(uint64)) devshell.HeapDump {
	return devshell.HeapDump{PID: vm.PID, API: vm.API, Limit: d.maxFile, Progress: progress, Log: d.log}
}
