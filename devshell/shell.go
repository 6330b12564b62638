// Package devshell is what a VM's monitor asks of the VM's device beside
// its JDWP connection: commands (getprop, /proc, `dumpsys meminfo`, `am
// dumpheap`, debuggerd, kill), files pulled with adb's sync: service, and
// the device paths ddmtui builds. Shell is that small interface; Device is
// its adb implementation. The operations over it (heap dumps with `am
// dumpheap`, thread dumps, the per-device getprop cache) and the parsers of
// what the device prints live here too; the monitor applies the results.
package devshell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/ddmtui/ddmtui/adb"
)

// Shell is a VM's device as the monitor uses it.
type Shell interface {
	// Run runs cmd and returns its output (bounded by the adb client's
	// MaxShellOutput): through exec: (no pty) where the device has it,
	// else through shell:.
	Run(ctx context.Context, cmd string) ([]byte, error)
	// Shell runs cmd through shell: (a pty: stderr merged into the output).
	Shell(ctx context.Context, cmd string) ([]byte, error)
	// Stat describes path; a missing file matches fs.ErrNotExist.
	Stat(ctx context.Context, path string) (adb.FileInfo, error)
	// PullTo copies path to w as it arrives, at most limit bytes (≤ 0: no
	// limit), and returns the bytes written. A missing file matches
	// fs.ErrNotExist.
	PullTo(ctx context.Context, path string, w io.Writer, limit int64) (int64, error)
	// Remove deletes a file ddmtui wrote on the device.
	Remove(ctx context.Context, path string) error
}

// Files reads files on a device (adb sync: STAT and RECV).
type Files interface {
	// Stat describes path; a missing file matches fs.ErrNotExist.
	Stat(ctx context.Context, path string) (adb.FileInfo, error)
	// PullTo copies path to w as it arrives, at most limit bytes (≤ 0: no
	// limit), and returns the bytes written. An error wrapping
	// adb.ErrSyncUnavailable says the device refuses sync: altogether.
	PullTo(ctx context.Context, path string, w io.Writer, limit int64) (int64, error)
}

// Services are the adb services of one device a Device uses. Shell is
// required; Exec and Files are optional.
type Services struct {
	// Shell runs a command through shell: (adb shell).
	Shell func(ctx context.Context, cmd string) ([]byte, error)
	// Exec runs a command through exec: (raw bytes, no pty); nil when the
	// endpoint does not offer it. Devices before Android 5 refuse it.
	Exec func(ctx context.Context, cmd string) ([]byte, error)
	// Files is the device's sync: service; nil when not offered.
	Files Files
}

// ErrNoSync is returned by Stat on a device without sync: access.
var ErrNoSync = errors.New("devshell: no sync: access to the device")

// Device is Shell over one device's adb services.
type Device struct {
	svc    Services
	log    *slog.Logger
	noExec atomic.Bool // exec: was refused once: shell: from then on
}

var _ Shell = (*Device)(nil)

// New returns the Device over svc (svc.Shell must be set); log (nil:
// none) hears of the fallbacks taken.
func New(svc Services, log *slog.Logger) *Device {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Device{svc: svc, log: log}
}

// ADBServices are the services of the device serial through an adb
// server's client.
func ADBServices(c *adb.Client, serial string) Services {
	return Services{
		Shell: func(ctx context.Context, cmd string) ([]byte, error) { return c.Shell(ctx, serial, cmd) },
		Exec:  func(ctx context.Context, cmd string) ([]byte, error) { return c.Exec(ctx, serial, cmd) },
		Files: adbFiles{c, serial},
	}
}

// NewADB is New over the device serial of an adb server.
func NewADB(c *adb.Client, serial string, log *slog.Logger) *Device {
	return New(ADBServices(c, serial), log)
}

type adbFiles struct {
	c      *adb.Client
	serial string
}

func (f adbFiles) Stat(ctx context.Context, path string) (adb.FileInfo, error) {
	return f.c.Stat(ctx, f.serial, path)
}

func (f adbFiles) PullTo(ctx context.Context, path string, w io.Writer, limit int64) (int64, error) {
	return f.c.PullTo(ctx, f.serial, path, w, limit)
}

// HasSync reports whether the device's files can be read with sync:
// (what heap dumps through the device need).
func (d *Device) HasSync() bool { return d.svc.Files != nil }

// Run runs cmd through exec: (no pty, so no CR LF and no merged stderr
// surprises) when the device offers it, else through shell:. A device that
// refuses the exec: service (Android before 5: the adb server answers FAIL,
// an *adb.Error) is asked with shell: from then on; any other error (the
// command's own, a dropped connection) is returned as it is.
func (d *Device) Run(ctx context.Context, cmd string) ([]byte, error) {
	if d.svc.Exec != nil && !d.noExec.Load() {
		out, err := d.svc.Exec(ctx, cmd)
		var refused *adb.Error
		if err == nil || ctx.Err() != nil || !errors.As(err, &refused) {
			return out, err
		}
		d.log.Info("exec: refused; using shell:", "error", err)
		d.noExec.Store(true)
	}
	return d.svc.Shell(ctx, cmd)
}

// Shell runs cmd through shell:.
func (d *Device) Shell(ctx context.Context, cmd string) ([]byte, error) {
	return d.svc.Shell(ctx, cmd)
}

// Stat describes path through sync: STAT.
func (d *Device) Stat(ctx context.Context, path string) (adb.FileInfo, error) {
	if err := CheckPath(path); err != nil {
		return adb.FileInfo{}, err
	}
	if d.svc.Files == nil {
		return adb.FileInfo{}, ErrNoSync
	}
	return d.svc.Files.Stat(ctx, path)
}

// PullTo copies a file on the device to w as it arrives, at most limit
// bytes, and returns the bytes written: with sync: RECV, which carries any
// byte unchanged; or, only where the device has no sync access or refuses
// the service itself (adb.ErrSyncUnavailable), with `cat` through the
// shell (a shell with a pty turns "\n" into "\r\n", so binary files may
// arrive damaged that way, and the output is held by the shell client,
// bounded by adb.MaxShellOutput). A path sync refuses, or one that fails
// CheckPath, is never handed to the shell. A missing file is an error
// matching fs.ErrNotExist.
func (d *Device) PullTo(ctx context.Context, path string, w io.Writer, limit int64) (int64, error) {
	if err := CheckPath(path); err != nil {
		return 0, err
	}
	if d.svc.Files != nil {
		n, err := d.svc.Files.PullTo(ctx, path, w, limit)
		switch {
		case err == nil:
			return n, nil
		case n > 0 || ctx.Err() != nil || !errors.Is(err, adb.ErrSyncUnavailable):
			return n, fmt.Errorf("reading %s from the device: %w", path, err)
		}
		d.log.Info("sync: refused by the device, reading the file with cat", "path", path, "err", err)
	}
	data, err := d.svc.Shell(ctx, adb.ShellCommand("cat", path))
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

// Remove deletes path with `rm -f`; output on the command's stdout is an
// error.
func (d *Device) Remove(ctx context.Context, path string) error {
	if err := CheckPath(path); err != nil {
		return err
	}
	out, err := d.Run(ctx, adb.ShellCommand("rm", "-f", path))
	if err != nil {
		return err
	}
	if msg := bytes.TrimSpace(out); len(msg) > 0 {
		return fmt.Errorf("rm %s: %s", path, FirstLine(msg))
	}
	return nil
}

// ReadFile reads a small file on the device whole (a trace, the ANR file),
// at most limit bytes; see Shell.PullTo.
func ReadFile(ctx context.Context, sh Shell, path string, limit int64) ([]byte, error) {
	var b bytes.Buffer
	if _, err := sh.PullTo(ctx, path, &b, limit); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// FirstLine is the first non-blank line of b, cut to 120 bytes.
func FirstLine(b []byte) string {
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 120 {
				l = l[:120]
			}
			return l
		}
	}
	return ""
}

// HasSync reports whether sh reads files with sync: (what heap dumps
// through the device need): true for a Shell that does not say.
func HasSync(sh Shell) bool {
	if d, ok := sh.(interface{ HasSync() bool }); ok {
		return d.HasSync()
	}
	return sh != nil
}
