package monitor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
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

// maxDeviceFile bounds a file pulled from the device (a heap dump of a
// large app is a few hundred MB).
const maxDeviceFile = 2 << 30

// readDeviceFile reads a file on the VM's device whole: with sync: RECV,
// which carries any byte unchanged; or with `cat` through the shell where
// the endpoint has no sync access or the device refuses the service (a
// shell with a pty turns "\n" into "\r\n", so binary files may arrive
// damaged that way). A missing file is an error matching fs.ErrNotExist.
func (s *Session) readDeviceFile(ctx context.Context, path string) ([]byte, error) {
	if s.files != nil {
		data, err := s.files.Pull(ctx, path, maxDeviceFile)
		var se *adb.SyncError
		switch {
		case err == nil:
			return data, nil
		case errors.As(err, &se), ctx.Err() != nil:
			return nil, fmt.Errorf("reading %s from the device: %w", path, err)
		}
		s.log.Info("sync: unavailable, reading the file with cat", "path", path, "err", err)
	}
	if s.shell == nil {
		return nil, ErrNoDevice
	}
	data, err := s.shell(ctx, "cat "+path)
	if err != nil {
		return nil, fmt.Errorf("reading %s from the device: %w", path, err)
	}
	if msg, ok := bytes.CutPrefix(data, []byte("cat: ")); ok {
		err := errors.New(strings.TrimSpace(string(msg)))
		if bytes.Contains(msg, []byte("No such file")) {
			err = fmt.Errorf("%s: %w", strings.TrimSpace(string(msg)), fs.ErrNotExist)
		}
		return nil, fmt.Errorf("reading %s from the device: %w", path, err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("reading %s from the device: empty file", path)
	}
	return data, nil
}

// removeDeviceFile deletes a file ddmtui had written on the device; a
// failure is only logged.
func (s *Session) removeDeviceFile(path string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if out, err := s.deviceRun(ctx, "rm -f "+path); err != nil || len(bytes.TrimSpace(out)) > 0 {
		s.log.Warn("could not remove a device file", "path", path, "err", err, "output", string(bytes.TrimSpace(out)))
	}
}

// onDevice reports whether the session can use the device for dumps.
func (s *Session) onDevice() bool { return s.shell != nil && s.files != nil }

// errVMSilent: the VM sent nothing for a heap dump within HeapDumpWait.
var errVMSilent = errors.New("the VM did not answer the heap dump request")

// heapDump is HeapDump: DDM first (HPDS streamed, or HPDU to a device
// file), and the device's `am dumpheap` when the VM does not answer
// within HeapDumpWait or cannot dump through DDM at all.
//
// The dump goes to w: an HPDS dump as it arrives from the connection when
// it comes as one large packet (hpdsstream.go), the other ways once read.
// It returns the bytes written.
func (s *Session) heapDump(ctx context.Context, w io.Writer, progress func(received uint64)) (int64, error) {
	if err := s.waitReady(ctx); err != nil {
		return 0, err
	}
	var (
		data []byte
		n    int64
		err  error
	)
	switch {
	case !s.isDDM:
		err = ErrNotDDM
	case s.hasFeature("hprof-heap-dump-streaming") && !s.onDevice():
		// No other way: wait for as long as ctx allows.
		return s.collectStreamedTo(ctx, ddm.TypeHPDS, &ddm.HeapDumpStreamRequest{}, "heap dump", w, progress)
	case s.hasFeature("hprof-heap-dump-streaming"):
		n, err = s.collectUnlessSilent(ctx, w, progress)
		if err == nil {
			return n, nil
		}
	case s.hasFeature("hprof-heap-dump") && s.shell != nil:
		data, err = s.heapDumpToFile(ctx)
	case s.hasFeature("hprof-heap-dump"):
		err = errors.New("the VM can only dump its heap to a device file, and it is not on an adb device")
	default:
		err = errors.New("the VM cannot dump its heap (no hprof-heap-dump feature)")
	}
	if err == nil {
		return writeAll(w, data)
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
	data, aerr := s.heapDumpAm(ctx, progress)
	if aerr != nil {
		return 0, fmt.Errorf("%v; am dumpheap: %w", err, aerr)
	}
	return writeAll(w, data)
}

// writeAll writes data to w.
func writeAll(w io.Writer, data []byte) (int64, error) {
	n, err := w.Write(data)
	return int64(n), err
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
// ddmlib has it written, /sdcard/<app up to ':'>.hprof, and reads it back.
// A VM that neither answers nor writes the file is errVMSilent.
func (s *Session) heapDumpToFile(ctx context.Context) ([]byte, error) {
	path := strings.TrimSuffix(s.deviceTracePath(), ".trace") + ".hprof"
	rctx, cancel := context.WithTimeout(ctx, s.opts.HeapDumpWait)
	m, err := s.request(rctx, &ddm.HeapDumpRequest{FileName: path})
	cancel()
	silent := err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil
	if err != nil && !silent {
		return nil, err
	}
	if r, ok := m.(*ddm.HeapDumpResult); ok && !r.OK() {
		return nil, fmt.Errorf("the VM could not write %s", path)
	}
	if !silent {
		return s.readDeviceFile(ctx, path)
	}
	if s.files == nil {
		data, err := s.readDeviceFile(ctx, path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errVMSilent
		}
		return data, err
	}
	// No reply (yet): a VM still writing a large dump replies when done,
	// so a file that exists is followed until it is complete.
	if _, err := s.files.Stat(ctx, path); errors.Is(err, fs.ErrNotExist) {
		return nil, errVMSilent
	}
	return s.pullCompleteDump(ctx, path, false, nil)
}

// amOutputError recognises `am` reporting a failure on its output (its
// exit status does not reach us through the legacy shell).
var amOutputError = regexp.MustCompile(`(?m)^(Error|Exception|java\.lang\.\w+|HEAP DUMP FAILED|Security exception).*`)

// dumpheapPollInterval is how often the dump file's size is checked.
const dumpheapPollInterval = 250 * time.Millisecond

// dumpheapStableTicks is how many polls in a row must see the same size
// before a dump whose completion am did not signal is taken as complete.
const dumpheapStableTicks = 4

// dumpheapTimeout bounds the wait for the dump file.
const dumpheapTimeout = 3 * time.Minute

// heapDumpAm dumps the heap with the device's activity manager:
// `am dumpheap PID /data/local/tmp/ddmtui-PID-N.hprof`, waits until the file
// is complete, pulls it with sync RECV and deletes it. Android 10 and later
// print "Waiting for dump to finish..." and return once the app has
// written the file; older releases return as soon as the request is sent,
// so the file's size (sync STAT) is polled until it stops growing. progress
// is told the file's size meanwhile. The app must be debuggable, or the
// device a userdebug/eng build (am refuses otherwise, and says so).
func (s *Session) heapDumpAm(ctx context.Context, progress func(uint64)) ([]byte, error) {
	vm, ok := s.store.VM(s.key)
	if !ok || vm.PID <= 0 {
		return nil, errors.New("the VM's pid is not known")
	}
	path := fmt.Sprintf("/data/local/tmp/ddmtui-%d-%d.hprof", vm.PID, time.Now().UnixNano())
	out, err := s.deviceRun(ctx, fmt.Sprintf("am dumpheap %d %s", vm.PID, path))
	defer s.removeDeviceFile(path)
	if err != nil {
		return nil, err
	}
	if amOutputError.Match(out) {
		msg := strings.Join(strings.Fields(string(out)), " ")
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
		return nil, errors.New(msg)
	}
	waited := bytes.Contains(out, []byte("Waiting for dump to finish"))
	return s.pullCompleteDump(ctx, path, waited, progress)
}

// pullCompleteDump waits until the HPROF file at path is complete and
// pulls it: when waited (its writer is known to have finished) as soon as
// it has a size; otherwise once its size stops changing and the pulled
// bytes end with a HEAP DUMP END record — a dump that only paused is
// followed further. The whole wait is bounded by dumpheapTimeout.
func (s *Session) pullCompleteDump(ctx context.Context, path string, waited bool, progress func(uint64)) ([]byte, error) {
	wctx, cancel := context.WithTimeout(ctx, dumpheapTimeout)
	defer cancel()
	var data []byte
	for {
		if err := s.waitDumpFile(wctx, path, waited, uint64(len(data)), progress); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
		var err error
		data, err = s.readDeviceFile(ctx, path)
		if err != nil {
			return nil, err
		}
		if waited || hprofComplete(data) {
			break
		}
		s.log.Info("heap dump file not complete yet; waiting for more", "path", path, "bytes", len(data))
	}
	if !bytes.HasPrefix(data, []byte("JAVA PROFILE 1.0")) {
		return nil, fmt.Errorf("%s is not an HPROF file (%d bytes)", path, len(data))
	}
	if progress != nil {
		progress(uint64(len(data)))
	}
	return data, nil
}

// hprofComplete reports an HPROF file that ends with a HEAP DUMP END
// record (tag 0x2C, time, length 0), as every Android runtime writes last.
func hprofComplete(b []byte) bool {
	const endRecord = 9
	if len(b) < endRecord {
		return false
	}
	tail := b[len(b)-endRecord:]
	return tail[0] == 0x2C && tail[5] == 0 && tail[6] == 0 && tail[7] == 0 && tail[8] == 0
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
