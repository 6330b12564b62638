package monitor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/ddm"
)

// The device as a source for what DDM cannot (or, on modern Android, no
// longer does) carry: files on the device read with adb's sync: service,
// heap dumps with `am dumpheap`, thread dumps with `debuggerd -j` or
// SIGQUIT. Everything here needs the VM's adb device (Endpoint.Shell,
// Exec, Files).

// readDeviceFileTo copies a file on the VM's device to w as it arrives,
// at most limit bytes, and returns the bytes written: with sync: RECV,
// which carries any byte unchanged; or, only where the endpoint has no
// sync access or the device refuses the service itself
// (adb.ErrSyncUnavailable), with `cat` through the shell (a shell with a
// pty turns "\n" into "\r\n", so binary files may arrive damaged that
// way, and the output is held by the shell client, bounded by
// adb.MaxShellOutput). A path sync refuses, or one that fails
// checkDevicePath, is never handed to the shell. A missing file is an error
// matching fs.ErrNotExist.
func (s *Session) readDeviceFileTo(ctx context.Context, path string, w io.Writer, limit int64) (int64, error) {
	if err := checkDevicePath(path); err != nil {
		return 0, err
	}
	if s.files != nil {
		n, err := s.files.PullTo(ctx, path, w, limit)
		switch {
		case err == nil:
			return n, nil
		case n > 0 || ctx.Err() != nil || !errors.Is(err, adb.ErrSyncUnavailable):
			return n, fmt.Errorf("reading %s from the device: %w", path, err)
		}
		s.log.Info("sync: refused by the device, reading the file with cat", "path", path, "err", err)
	}
	if s.shell == nil {
		return 0, ErrNoDevice
	}
	data, err := s.shell(ctx, adb.ShellCommand("cat", path))
	if err != nil {
		return 0, fmt.Errorf("reading %s from the device: %w", path, err)
	}
	if msg, ok := bytes.CutPrefix(data, []byte("cat: ")); ok {
		err := errors.New(strings.TrimSpace(string(msg)))
		if bytes.Contains(msg, []byte("No such file")) {
			err = fmt.Errorf("%s: %w", strings.TrimSpace(string(msg)), fs.ErrNotExist)
		}
		return 0, fmt.Errorf("reading %s from the device: %w", path, err)
	}
	if len(data) == 0 {
		return 0, fmt.Errorf("reading %s from the device: empty file", path)
	}
	if limit > 0 && int64(len(data)) > limit {
		return 0, fmt.Errorf("reading %s from the device: file exceeds %d bytes", path, limit)
	}
	n, err := w.Write(data)
	return int64(n), err
}

// readDeviceFile reads a small file on the VM's device whole (a trace, the
// ANR file), at most maxHeldDeviceFile bytes; see readDeviceFileTo.
func (s *Session) readDeviceFile(ctx context.Context, path string) ([]byte, error) {
	var b bytes.Buffer
	if _, err := s.readDeviceFileTo(ctx, path, &b, min(s.opts.MaxDeviceFile, maxHeldDeviceFile)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// removeDeviceFile deletes a file ddmtui had written on the device; a
// failure is only logged.
func (s *Session) removeDeviceFile(path string) {
	if checkDevicePath(path) != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if out, err := s.deviceRun(ctx, adb.ShellCommand("rm", "-f", path)); err != nil || len(bytes.TrimSpace(out)) > 0 {
		s.log.Warn("could not remove a device file", "path", path, "err", err, "output", string(bytes.TrimSpace(out)))
	}
}

// onDevice reports whether the session can use the device for dumps.
func (s *Session) onDevice() bool { return s.shell != nil && s.files != nil }

// errVMSilent: the VM sent nothing for a heap dump within HeapDumpWait.
var errVMSilent = errors.New("the VM did not answer the heap dump request")

// Rewinder is a heap dump destination that can start over: a device file
// pulled before its writer had finished (older Android, whose `am
// dumpheap` returns at once) is pulled again from the start into it. A
// destination without it gets an error in that case instead.
type Rewinder interface {
	Rewind() error
}

// heapDump is HeapDump: DDM first (HPDS streamed, or HPDU to a device
// file), and the device's `am dumpheap` when the VM does not answer
// within HeapDumpWait or cannot dump through DDM at all.
//
// The dump goes to w as it arrives: an HPDS dump from the connection when
// it comes as one large packet (hpdsstream.go), a device file from sync:
// RECV. It returns the bytes written.
func (s *Session) heapDump(ctx context.Context, w io.Writer, progress func(received uint64)) (int64, error) {
	if err := s.waitReady(ctx); err != nil {
		return 0, err
	}
	var (
		n   int64
		err error
	)
	switch {
	case !s.isDDM:
		err = ErrNotDDM
	case s.hasFeature("hprof-heap-dump-streaming") && !s.onDevice():
		// No other way: wait for as long as ctx allows.
		return s.collectStreamedTo(ctx, ddm.TypeHPDS, &ddm.HeapDumpStreamRequest{}, "heap dump", w, progress)
	case s.hasFeature("hprof-heap-dump-streaming"):
		n, err = s.collectUnlessSilent(ctx, w, progress)
	case s.hasFeature("hprof-heap-dump") && s.shell != nil:
		n, err = s.heapDumpToFile(ctx, w, progress)
	case s.hasFeature("hprof-heap-dump"):
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
	if errors.As(err, &fe) || !s.onDevice() {
		if errors.Is(err, errVMSilent) {
			return 0, fmt.Errorf("%w within %s (VMs on recent Android never do), and it is not on an adb device for `am dumpheap`", err, s.opts.HeapDumpWait)
		}
		return 0, err
	}
	s.log.Info("heap dump through DDM unavailable; using am dumpheap", "reason", err)
	n, aerr := s.heapDumpAm(ctx, w, progress)
	if aerr != nil {
		return n, fmt.Errorf("%v; am dumpheap: %w", err, aerr)
	}
	return n, nil
}

// silentBytes is how much the VM may send within HeapDumpWait while still
// counting as silent: replies to the session's polls (THST, HPIF) keep
// arriving meanwhile, a dump in transit is far more.
const silentBytes = 64 << 10

// collectUnlessSilent runs the HPDS exchange, giving up with errVMSilent
// when less than silentBytes arrive from the VM within HeapDumpWait.
func (s *Session) collectUnlessSilent(ctx context.Context, w io.Writer, progress func(uint64)) (int64, error) {
	cctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var got atomic.Uint64
	t := time.AfterFunc(s.opts.HeapDumpWait, func() {
		if got.Load() < silentBytes {
			cancel(errVMSilent)
		}
	})
	defer t.Stop()
	n, err := s.collectStreamedTo(cctx, ddm.TypeHPDS, &ddm.HeapDumpStreamRequest{}, "heap dump", w, func(n uint64) {
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

// heapDumpToFile makes the VM write its dump to the device (HPDU) where
// ddmlib has it written, /sdcard/<app up to ':'>.hprof, and copies it to w.
// A VM that neither answers nor writes the file is errVMSilent.
func (s *Session) heapDumpToFile(ctx context.Context, w io.Writer, progress func(uint64)) (int64, error) {
	path := strings.TrimSuffix(s.deviceTracePath(), ".trace") + ".hprof"
	rctx, cancel := context.WithTimeout(ctx, s.opts.HeapDumpWait)
	m, err := s.request(rctx, &ddm.HeapDumpRequest{FileName: path})
	cancel()
	silent := err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil
	if err != nil && !silent {
		return 0, err
	}
	if r, ok := m.(*ddm.HeapDumpResult); ok && !r.OK() {
		return 0, fmt.Errorf("the VM could not write %s", path)
	}
	if !silent || s.files == nil {
		n, err := s.readDeviceFileTo(ctx, path, progressWriter(w, progress), s.opts.MaxDeviceFile)
		if silent && n == 0 && errors.Is(err, fs.ErrNotExist) {
			return 0, errVMSilent
		}
		return n, err
	}
	// No reply (yet): a VM still writing a large dump replies when done,
	// so a file that exists is followed until it is complete.
	if _, err := s.files.Stat(ctx, path); errors.Is(err, fs.ErrNotExist) {
		return 0, errVMSilent
	}
	return s.pullCompleteDump(ctx, path, false, w, progress)
}

// amOutputError recognises `am` reporting a failure on its output (its
// exit status does not reach us through the legacy shell).
var amOutputError = regexp.MustCompile(`(?m)^(Error|Exception|java\.lang\.\w+|HEAP DUMP FAILED|Security exception).*`)

// amUnknownOption recognises an `am` that does not know an option (one
// older than the option): the dump is asked for again without it.
var amUnknownOption = regexp.MustCompile(`(?i)unknown option|unrecognized option|invalid option`)

// BitmapDumpAPI is the first API level whose `am dumpheap` takes `-b
// FORMAT`, writing each Bitmap's pixels into the dump (compressed as PNG,
// JPEG or WebP): Android 15.
const BitmapDumpAPI = 35

// dumpheapPollInterval is how often the dump file's size is checked.
const dumpheapPollInterval = 250 * time.Millisecond

// dumpheapStableTicks is how many polls in a row must see the same size
// before a dump whose completion am did not signal is taken as complete.
const dumpheapStableTicks = 4

// dumpheapTimeout bounds the wait for the dump file.
const dumpheapTimeout = 3 * time.Minute

// dumpheapCommand is the `am dumpheap` command line for pid into path: with
// `-b png` (bitmaps with their pixels) when bitmaps is set.
func dumpheapCommand(pid int, path string, bitmaps bool) string {
	args := []string{"dumpheap"}
	if bitmaps {
		args = append(args, "-b", "png")
	}
	return adb.ShellCommand("am", append(args, strconv.Itoa(pid), path)...)
}

// heapDumpAm dumps the heap with the device's activity manager: `am
// dumpheap PID /data/local/tmp/ddmtui-PID-N.hprof` (from BitmapDumpAPI
// with `-b png`, and again without it where am does not know the option),
// waits until the file is complete, copies it to w with sync RECV and
// deletes it. Android 10 and later print "Waiting for dump to finish..."
// and return once the app has written the file; older releases return as
// soon as the request is sent, so the file's size (sync STAT) is polled
// until it stops growing. progress is told the file's size meanwhile, then
// the bytes copied. The app must be debuggable, or the device a
// userdebug/eng build (am refuses otherwise, and says so).
func (s *Session) heapDumpAm(ctx context.Context, w io.Writer, progress func(uint64)) (int64, error) {
	vm, ok := s.store.VM(s.key)
	if !ok || vm.PID <= 0 {
		return 0, errors.New("the VM's pid is not known")
	}
	path := fmt.Sprintf("/data/local/tmp/ddmtui-%d-%d.hprof", vm.PID, time.Now().UnixNano())
	defer s.removeDeviceFile(path)
	bitmaps := vm.API >= BitmapDumpAPI
	out, err := s.deviceRun(ctx, dumpheapCommand(vm.PID, path, bitmaps))
	if err == nil && bitmaps && amUnknownOption.Match(out) {
		s.log.Info("am dumpheap refuses -b; dumping without bitmap pixels", "output", firstLine(out))
		out, err = s.deviceRun(ctx, dumpheapCommand(vm.PID, path, false))
	}
	if err != nil {
		return 0, err
	}
	if amOutputError.Match(out) {
		msg := strings.Join(strings.Fields(string(out)), " ")
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return 0, errors.New(msg)
	}
	waited := bytes.Contains(out, []byte("Waiting for dump to finish"))
	return s.pullCompleteDump(ctx, path, waited, w, progress)
}

// pullCompleteDump waits until the HPROF file at path is complete and
// copies it to w: when waited (its writer is known to have finished) as
// soon as it has a size; otherwise once its size stops changing and the
// pulled bytes end with a HEAP DUMP END record — a dump that only paused is
// followed further and pulled again, w rewound (Rewinder). The wait is
// bounded by dumpheapTimeout, the copy by ctx and MaxDeviceFile.
func (s *Session) pullCompleteDump(ctx context.Context, path string, waited bool, w io.Writer, progress func(uint64)) (int64, error) {
	wctx, cancel := context.WithTimeout(ctx, dumpheapTimeout)
	defer cancel()
	var have int64
	for pulls := 0; ; pulls++ {
		if err := s.waitDumpFile(wctx, path, waited, uint64(have), progress); err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			return 0, err
		}
		if pulls > 0 {
			r, ok := w.(Rewinder)
			if !ok {
				return have, fmt.Errorf("the heap dump %s was not complete when pulled (%d bytes)", path, have)
			}
			if err := r.Rewind(); err != nil {
				return 0, err
			}
		}
		c := &dumpCheck{w: progressWriter(w, progress)}
		n, err := s.readDeviceFileTo(ctx, path, c, s.opts.MaxDeviceFile)
		if err != nil {
			return n, err
		}
		if waited || c.complete() {
			if !bytes.HasPrefix(c.head, []byte("JAVA PROFILE 1.0")) {
				return n, fmt.Errorf("%s is not an HPROF file (%d bytes)", path, n)
			}
			return n, nil
		}
		have = n
		s.log.Info("heap dump file not complete yet; waiting for more", "path", path, "bytes", n)
	}
}

// dumpCheck passes a dump on to w, keeping its first and last bytes: the
// HPROF header and whether it ends with a HEAP DUMP END record.
type dumpCheck struct {
	w          io.Writer
	head, tail []byte
}

const hprofEndRecord = 9 // tag 0x2C, u4 time, u4 length 0

func (c *dumpCheck) Write(b []byte) (int, error) {
	if len(c.head) < 32 {
		c.head = append(c.head, b[:min(len(b), 32-len(c.head))]...)
	}
	if len(b) >= hprofEndRecord {
		c.tail = append(c.tail[:0], b[len(b)-hprofEndRecord:]...)
	} else {
		c.tail = append(c.tail, b...)
		c.tail = c.tail[max(0, len(c.tail)-hprofEndRecord):]
	}
	return c.w.Write(b)
}

func (c *dumpCheck) complete() bool { return hprofComplete(c.tail) }

// hprofComplete reports an HPROF file that ends with a HEAP DUMP END
// record (tag 0x2C, time, length 0), as every Android runtime writes last.
func hprofComplete(b []byte) bool {
	if len(b) < hprofEndRecord {
		return false
	}
	tail := b[len(b)-hprofEndRecord:]
	return tail[0] == 0x2C && tail[5] == 0 && tail[6] == 0 && tail[7] == 0 && tail[8] == 0
}

// progressWriter tells progress the bytes written through it so far.
func progressWriter(w io.Writer, progress func(uint64)) io.Writer {
	if progress == nil {
		return w
	}
	return &countingWriter{w: w, progress: progress}
}

type countingWriter struct {
	w        io.Writer
	n        uint64
	progress func(uint64)
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += uint64(n)
	c.progress(c.n)
	return n, err
}

// waitDumpFile polls the dump file's size until the dump is complete: at
// once when am waited for the app (the size only has to be there), else
// when the size, above after, has not changed for dumpheapStableTicks
// polls. ctx bounds the wait.
func (s *Session) waitDumpFile(ctx context.Context, path string, waited bool, after uint64, progress func(uint64)) error {
	var last uint64
	stable := 0
	tick := time.NewTicker(dumpheapPollInterval)
	defer tick.Stop()
	for {
		fi, err := s.files.Stat(ctx, path)
		switch {
		case err == nil:
			if progress != nil {
				progress(fi.Size)
			}
			if fi.Size > 0 && fi.Size == last {
				stable++
			} else {
				stable = 0
			}
			if fi.Size > after && (waited || stable >= dumpheapStableTicks) {
				return nil
			}
			last = fi.Size
		case errors.Is(err, fs.ErrNotExist):
			if waited {
				return fmt.Errorf("am dumpheap finished but %s does not exist", path)
			}
		default:
			return err
		}
		select {
		case <-ctx.Done():
			if last > 0 {
				return fmt.Errorf("the heap dump %s was still growing (%d bytes) after %s", path, last, dumpheapTimeout)
			}
			return fmt.Errorf("no heap dump appeared at %s: %w", path, ctx.Err())
		case <-tick.C:
		}
	}
}
