package devshell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/internal/iocount"
)

// Heap dumps through the device: `am dumpheap`, and the wait for a dump
// file that is still being written (am's, or an HPDU dump a VM writes).

// Rewinder is a heap dump destination that can start over: a device file
// pulled before its writer had finished (older Android, whose `am
// dumpheap` returns at once) is pulled again from the start into it. A
// destination without it gets an error in that case instead.
type Rewinder interface {
	Rewind() error
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

// DumpheapTimeout bounds the wait for a dump file to be complete.
const DumpheapTimeout = 3 * time.Minute

// dumpheapCommand is the `am dumpheap` command line for pid into path: with
// `-b png` (bitmaps with their pixels) when bitmaps is set.
func dumpheapCommand(pid int, path string, bitmaps bool) string {
	args := []string{"dumpheap"}
	if bitmaps {
		args = append(args, "-b", "png")
	}
	return adb.ShellCommand("am", append(args, strconv.Itoa(pid), path)...)
}

// HeapDump is one heap dump through the device: the process, where its
// bytes go and the bounds.
type HeapDump struct {
	PID, API int
	// Limit bounds the file pulled (≤ 0: none).
	Limit int64
	// Progress, when set, is told the file's size while it is written,
	// then the bytes copied.
	Progress func(uint64)
	Log      *slog.Logger // nil: none
}

func (h HeapDump) log() *slog.Logger {
	if h.Log == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return h.Log
}

// DumpHeapAm dumps the heap with the device's activity manager: `am
// dumpheap PID /data/local/tmp/ddmtui-PID-N.hprof` (from BitmapDumpAPI
// with `-b png`, and again without it where am does not know the option),
// waits until the file is complete, copies it to w with sync RECV and
// deletes it. Android 10 and later print "Waiting for dump to finish..."
// and return once the app has written the file; older releases return as
// soon as the request is sent, so the file's size (sync STAT) is polled
// until it stops growing. The app must be debuggable, or the device a
// userdebug/eng build (am refuses otherwise, and says so).
func DumpHeapAm(ctx context.Context, sh Shell, h HeapDump, w io.Writer) (int64, error) {
	if h.PID <= 0 {
		return 0, errors.New("the VM's pid is not known")
	}
	path := fmt.Sprintf("/data/local/tmp/ddmtui-%d-%d.hprof", h.PID, time.Now().UnixNano())
	defer removeQuietly(sh, path, h.log())
	bitmaps := h.API >= BitmapDumpAPI
	out, err := sh.Run(ctx, dumpheapCommand(h.PID, path, bitmaps))
	if err == nil && bitmaps && amUnknownOption.Match(out) {
		h.log().Info("am dumpheap refuses -b; dumping without bitmap pixels", "output", FirstLine(out))
		out, err = sh.Run(ctx, dumpheapCommand(h.PID, path, false))
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
	return PullCompleteDump(ctx, sh, path, waited, h, w)
}

// removeQuietly deletes a file ddmtui had written on the device; a failure
// is only logged.
func removeQuietly(sh Shell, path string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := sh.Remove(ctx, path); err != nil {
		log.Warn("could not remove a device file", "path", path, "err", err)
	}
}

// PullCompleteDump waits until the HPROF file at path is complete and
// copies it to w: when waited (its writer is known to have finished) as
// soon as it has a size; otherwise once its size stops changing and the
// pulled bytes end with a HEAP DUMP END record — a dump that only paused is
// followed further and pulled again, w rewound (Rewinder). The wait is
// bounded by DumpheapTimeout, the copy by ctx and h.Limit.
func PullCompleteDump(ctx context.Context, sh Shell, path string, waited bool, h HeapDump, w io.Writer) (int64, error) {
	wctx, cancel := context.WithTimeout(ctx, DumpheapTimeout)
	defer cancel()
	var have int64
	for pulls := 0; ; pulls++ {
		if err := waitDumpFile(wctx, sh, path, waited, uint64(have), h.Progress); err != nil {
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
		c := &dumpCheck{w: ProgressWriter(w, h.Progress)}
		n, err := sh.PullTo(ctx, path, c, h.Limit)
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
		h.log().Info("heap dump file not complete yet; waiting for more", "path", path, "bytes", n)
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

// ProgressWriter tells progress the bytes written through it so far (w
// itself when progress is nil).
func ProgressWriter(w io.Writer, progress func(uint64)) io.Writer {
	if progress == nil {
		return w
	}
	return &iocount.Writer{W: w, Progress: func(n int64) { progress(uint64(n)) }}
}

// waitDumpFile polls the dump file's size until the dump is complete: at
// once when am waited for the app (the size only has to be there), else
// when the size, above after, has not changed for dumpheapStableTicks
// polls. ctx bounds the wait.
func waitDumpFile(ctx context.Context, sh Shell, path string, waited bool, after uint64, progress func(uint64)) error {
	var last uint64
	stable := 0
	tick := time.NewTicker(dumpheapPollInterval)
	defer tick.Stop()
	for {
		fi, err := sh.Stat(ctx, path)
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
				return fmt.Errorf("the heap dump %s was still growing (%d bytes) after %s", path, last, DumpheapTimeout)
			}
			return fmt.Errorf("no heap dump appeared at %s: %w", path, ctx.Err())
		case <-tick.C:
		}
	}
}
