// Package savefile is the one way ddmtui puts what it received into a
// file — heap dumps, method traces, allocation records, captures — for the
// dashboard and the commands alike:
//
//  1. Check the target first: its directory exists and takes a new file,
//     before any work starts (a trace is not recorded for a minute only
//     to fail at the end).
//  2. Stream what arrives into a temporary file beside the target
//     (".ddmtui-*.part", so the rename never crosses file systems), under a
//     timeout and the caller's cancellation, with progress.
//  3. Convert it (e.g. Android's HPROF to standard HPROF) into a second
//     temporary file, and validate the result (it parses).
//  4. Rename it into place. On any error, timeout or cancellation, the
//     temporary files are removed and the target is left as it was.
//
// Errors name the user's path, never a temporary file.
package savefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ddmtui/ddmtui/internal/iocount"
)

// Options say how a received stream becomes the saved file.
type Options struct {
	// Convert, when set, writes the final content to dst from the received
	// bytes in src (size bytes). Without it the received bytes are the file.
	Convert func(dst io.Writer, src io.Reader, size int64) error
	// Validate, when set, reads the final content (size bytes) from its
	// start; an error keeps the file from being saved.
	Validate func(r io.Reader, size int64) error
	// Timeout bounds fetching, converting and validating together (0: only
	// ctx bounds them).
	Timeout time.Duration
	// Progress, when set, is told the bytes received so far: at most once
	// per ProgressEvery while they arrive, and once more with the total.
	Progress func(received uint64)
	// ProgressEvery is the least time between two progress calls (0:
	// DefaultProgressEvery).
	ProgressEvery time.Duration
	// Mode is the saved file's permission bits (0: 0o644).
	Mode fs.FileMode
	// Original, with Convert, is a second path where the bytes as received
	// are saved too, renamed into place just before the converted file
	// (and removed again should that rename fail): Android's HPROF keeps
	// what conversion loses (its heaps, ROOT UNREACHABLE), so the analysis
	// reads it while desktop tools get the converted file. It is checked
	// as the target is; an existing file there is replaced.
	Original string
}

// DefaultProgressEvery is how often progress is reported at most: a few
// times a second is what a person can read.
const DefaultProgressEvery = 250 * time.Millisecond

// Result describes a saved file.
type Result struct {
	Path     string
	Received int64 // bytes fetched
	Size     int64 // bytes saved (after Convert)
}

// ErrTimeout is wrapped by the error of a save that ran past its Timeout.
var ErrTimeout = errors.New("timed out")

// Check reports whether a file can be saved at path, before any work: the
// directory must exist and take a new file, and path must not be a
// directory. The error names path.
func Check(path string) error {
	if path == "" {
		return errors.New("no file name given")
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("cannot write %s: it is a directory", path)
	}
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("cannot write %s: directory %s does not exist", path, dir)
	case err != nil:
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	case !fi.IsDir():
		return fmt.Errorf("cannot write %s: %s is not a directory", path, dir)
	}
	f, err := os.CreateTemp(dir, ".ddmtui-*.check")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// unwrapPath drops a *fs.PathError's path (a temporary file's name, or the
// directory's) and keeps the reason.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Save saves at path what fetch writes to w (Options say how), and returns
// what was saved. fetch gets a context that ends with ctx or the Timeout.
// On error nothing is left beside path and path itself is untouched.
func Save(ctx context.Context, path string, o Options, fetch func(ctx context.Context, w *Writer) error) (res Result, err error) {
	if err := Check(path); err != nil {
		return Result{}, err
	}
	if o.Original != "" && o.Convert != nil {
		if err := Check(o.Original); err != nil {
			return Result{}, err
		}
	}
	if o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, o.Timeout, fmt.Errorf("%w after %s", ErrTimeout, o.Timeout))
		defer cancel()
	}
	dir := filepath.Dir(path)
	part, err := newPart(dir, o)
	if err != nil {
		return Result{}, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	defer part.discard()
	ferr := fetch(ctx, part)
	if ferr == nil {
		ferr = context.Cause(ctx) // a fetch that ignored its context
	}
	if ferr != nil {
		if cause := context.Cause(ctx); errors.Is(cause, ErrTimeout) && !errors.Is(ferr, ErrTimeout) {
			ferr = fmt.Errorf("%w: %w", cause, ferr)
		}
		return Result{}, ferr
	}
	if part.err != nil {
		return Result{}, fmt.Errorf("cannot write %s: %w", path, unwrapPath(part.err))
	}
	res = Result{Path: path, Received: part.n, Size: part.n}
	if o.Progress != nil {
		o.Progress(uint64(part.n))
	}
	final := part.f
	if o.Convert != nil {
		conv, err := os.CreateTemp(dir, ".ddmtui-*.part")
		if err != nil {
			return Result{}, fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
		}
		defer func() {
			conv.Close()
			os.Remove(conv.Name()) // gone already once renamed
		}()
		if _, err := part.f.Seek(0, io.SeekStart); err != nil {
			return Result{}, err
		}
		cw := &iocount.Writer{W: ctxWriter{ctx: ctx, w: conv}}
		if err := o.Convert(cw, io.LimitReader(part.f, part.n), part.n); err != nil {
			if cause := context.Cause(ctx); cause != nil {
				return Result{}, cause
			}
			return Result{}, fmt.Errorf("converting %s: %w", path, err)
		}
		res.Size = cw.N
		final = conv
	}
	if o.Validate != nil {
		if _, err := final.Seek(0, io.SeekStart); err != nil {
			return Result{}, err
		}
		if err := o.Validate(io.LimitReader(final, res.Size), res.Size); err != nil {
			return Result{}, fmt.Errorf("%s: not saved, the data does not parse: %w", path, err)
		}
	}
	if err := context.Cause(ctx); err != nil {
		return Result{}, err
	}
	mode := o.Mode
	if mode == 0 {
		mode = 0o644
	}
	if o.Original != "" && final != part.f {
		if err := place(part.f, o.Original, mode); err != nil {
			return Result{}, err
		}
	}
	if err := place(final, path, mode); err != nil {
		if o.Original != "" && final != part.f {
			os.Remove(o.Original)
		}
		return Result{}, err
	}
	return res, nil
}

// place gives f its mode, syncs it and renames it to path.
func place(f *os.File, path string, mode fs.FileMode) error {
	if err := f.Chmod(mode); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapPath(err))
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, unwrapLink(err))
	}
	return nil
}

// unwrapLink drops an *os.LinkError's names and keeps the reason.
func unwrapLink(err error) error {
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// SaveBytes saves data, already received whole, at path (Options'
// Convert and Validate apply; Progress is not called).
func SaveBytes(ctx context.Context, path string, data []byte, o Options) (Result, error) {
	o.Progress = nil
	return Save(ctx, path, o, func(ctx context.Context, w *Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// ctxWriter stops a conversion once ctx ends.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(b []byte) (int, error) {
	if err := context.Cause(c.ctx); err != nil {
		return 0, err
	}
	return c.w.Write(b)
}
