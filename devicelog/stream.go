package devicelog

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/logcat"
)

// Buffers are the log buffers a device stream reads: the apps' (main),
// the framework's (system, where the ActivityManager announces processes)
// and the crash buffer.
const Buffers = "main,system,crash"

// StreamOptions say what part of a device's log a stream reads.
type StreamOptions struct {
	// Dump reads what the device has buffered, then the stream ends
	// (logcat -d). Otherwise it follows.
	Dump bool
	// Tail, when following, starts with the last Tail entries (logcat -T);
	// 0 starts with everything buffered.
	Tail int
	// PID asks the device for one process's entries (logcat --pid) when it
	// supports that (Android 7, API 24, and later); callers filter anyway,
	// since older devices send everything.
	PID int
	// TextOnly skips exec: and reads `logcat -v threadtime` over shell:.
	TextOnly bool
}

// Stream is one open logcat stream from a device: binary records over
// the PTY-less exec: service where the device has it, else threadtime text
// over the legacy shell: service.
type Stream struct {
	// Binary tells which of the two the stream is.
	Binary bool
	// Service is the adb service it runs.
	Service string
	// Location is the device's time zone (persist.sys.timezone), or
	// time.Local when the device does not say.
	Location *time.Location
	// Skipped counts malformed entries or lines passed over; LastSkip is
	// the last such problem.
	Skipped  int
	LastSkip error

	nc   net.Conn
	stop func() bool
	bin  *logcat.BinaryDecoder
	text *logcat.TextDecoder
}

// logcatArgs builds logcat's arguments for a device of API level sdk (0:
// unknown, taken as recent). Before Android 5 (API 21) logcat has no crash
// buffer, no comma lists after -b and no -T; before Android 7 (API 24) no
// --pid.
func logcatArgs(binary bool, o StreamOptions, sdk int) string {
	old := sdk > 0 && sdk < 21
	var b strings.Builder
	b.WriteString("logcat")
	if binary {
		b.WriteString(" -B")
	} else {
		b.WriteString(" -v threadtime")
	}
	if old {
		b.WriteString(" -b main -b system")
	} else {
		b.WriteString(" -b " + Buffers)
	}
	if o.Dump {
		b.WriteString(" -d")
	} else if o.Tail > 0 && !old {
		fmt.Fprintf(&b, " -T %d", o.Tail)
	}
	if o.PID > 0 && sdk >= 24 {
		fmt.Fprintf(&b, " --pid=%d", o.PID)
	}
	return b.String()
}

// OpenStream starts logcat on the device (serial "" for the only one).
// The stream ends when ctx ends or Close is called.
func OpenStream(ctx context.Context, c *adb.Client, serial string, o StreamOptions) (*Stream, error) {
	props := deviceProps(ctx, c, serial, "ro.build.version.sdk", "persist.sys.timezone")
	sdk, _ := strconv.Atoi(props[0])
	var nc net.Conn
	var err error
	s := &Stream{}
	if !o.TextOnly {
		s.Service = "exec:" + logcatArgs(true, o, sdk)
		nc, err = c.OpenTransport(ctx, serial, s.Service)
		s.Binary = err == nil
		var ae *adb.Error
		if err != nil && !errors.As(err, &ae) {
			return nil, err // the server or the device is gone, not the service
		}
	}
	if nc == nil {
		s.Service = "shell:" + logcatArgs(false, o, sdk)
		if nc, err = c.OpenTransport(ctx, serial, s.Service); err != nil {
			return nil, fmt.Errorf("logcat: %w", err)
		}
	}
	s.nc = nc
	s.stop = context.AfterFunc(ctx, func() { nc.Close() })
	s.Location = time.Local
	if tz := props[1]; tz != "" {
		if l, err := time.LoadLocation(tz); err == nil {
			s.Location = l
		}
	}
	if s.Binary {
		s.bin = logcat.NewBinaryDecoder(nc, logcat.BinaryOptions{})
	} else {
		s.text = logcat.NewTextDecoder(nc, logcat.TextOptions{Location: s.Location, Join: true, Dump: o.Dump})
	}
	return s, nil
}

// deviceProps reads system properties with one getprop each; unknown or
// unreadable ones are "".
func deviceProps(ctx context.Context, c *adb.Client, serial string, names ...string) []string {
	out := make([]string, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			b, err := c.Shell(pctx, serial, "getprop "+n)
			if err == nil {
				out[i] = strings.TrimSpace(string(b))
			}
		}()
	}
	wg.Wait()
	return out
}

// Next reads the next entry, passing over malformed ones (counted in
// Skipped). It returns io.EOF when a dump is complete, or the error that
// ended the stream.
func (s *Stream) Next(e *logcat.Entry) error {
	for {
		var err error
		if s.bin != nil {
			err = s.bin.Next(e)
		} else {
			err = s.text.Next(e)
		}
		var pe *logcat.PayloadError
		var le *logcat.LineError
		if errors.As(err, &pe) || errors.As(err, &le) {
			s.Skipped++
			s.LastSkip = err
			continue
		}
		return err
	}
}

// Close ends the stream.
func (s *Stream) Close() error {
	s.stop()
	return s.nc.Close()
}
