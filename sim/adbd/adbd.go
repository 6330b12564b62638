// Package adbd simulates an Android device's adb daemon on a loopback TCP
// port, speaking the adb transport protocol (spec/adb.md Part 2: 24-byte
// little-endian headers, CNXN/OPEN/OKAY/WRTE/CLSE), so that the real adb
// server accepts it with `adb connect 127.0.0.1:PORT` and lists it as a
// device.
//
// The daemon answers the host's CNXN with its own CNXN and never asks for
// authentication (spec §2.4). It serves the device services a monitor uses:
//
//   - track-jdwp: the pid list, hex4-framed, at once and on every change;
//   - track-app: the debuggable and profileable processes (a protobuf
//     AppProcesses message, hex4-framed), when the Device is an AppLister
//     whose API level has it (trackapp.go);
//   - jdwp: the pid list once, unframed, then close (what `adb jdwp` asks);
//   - jdwp:<pid>: a byte pipe to that VM's JDWP endpoint;
//   - shell:<command>: the command's output, then close (legacy shell);
//   - exec:<command>: the same without a pty (raw bytes);
//   - sync: STAT/LIST/RECV and their v2 forms, when the Device is a
//     FileServer (sync.go).
//   - logcat on shell: and exec: for a LogDevice (logcat.go).
//
// Anything else is refused with CLSE. What the device holds — properties,
// VMs, shell commands — comes from a Device; BasicShell and PIDSet help
// implement one.
//
// Server runs the daemon; Close ends every connection and goroutine.
package adbd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sort"
	"strings"
	"sync"
)

// Device is the simulated device behind the daemon.
type Device interface {
	// Properties returns system properties: ro.product.name,
	// ro.product.model and ro.product.device go into the CNXN banner (the
	// host shows them in `adb devices -l`); all of them are what getprop
	// would print.
	Properties() map[string]string
	// JDWPPids returns the pids of the debuggable VMs and a channel that
	// is closed when that set changes after this call.
	JDWPPids() (pids []int, changed <-chan struct{})
	// OpenJDWP connects to the JDWP endpoint of the VM with the given
	// pid; the VM side expects the JDWP handshake first. An error refuses
	// the stream. It should return promptly.
	OpenJDWP(pid int) (net.Conn, error)
	// Shell runs a shell command line, writing its output (stdout and
	// stderr together) to out, and returns its exit status. It should end
	// when ctx is cancelled (the host closed the stream). An error ends
	// the stream without further output.
	Shell(ctx context.Context, cmd string, out io.Writer) (exitCode int, err error)
}

// Defaults for Options' zero values.
const (
	// DefaultMaxPayload is the max payload the daemon announces; the host
	// uses the smaller of it and its own (1 MiB for adb 29).
	DefaultMaxPayload = 256 << 10
	// DefaultJDWPListMax is the room a real adbd gives a track-jdwp
	// message's pid lines: a 1024-byte buffer minus the hex4 prefix
	// (daemon/jdwp_service.cpp). Pids that do not fit are left out.
	DefaultJDWPListMax = 1024 - 4
)

// Options configure a Server.
type Options struct {
	// MaxPayload is announced in CNXN and bounds every payload received;
	// it is clamped to 4096..1 MiB. Zero means DefaultMaxPayload.
	MaxPayload uint32
	// JDWPListMax bounds the pid lines of one track-jdwp message, as a
	// real device does. Zero means DefaultJDWPListMax; negative means no
	// limit beyond the payload size.
	JDWPListMax int
	// Features are announced in the CNXN banner (the host reports them
	// for host-serial:S:features). Nil means DefaultFeatures when the
	// Device is a FileServer, none otherwise; an empty non-nil slice
	// announces none (a device of Android 7 or older: sync v1 only).
	Features []string
	// Logger receives connection and stream events at debug level, and
	// protocol errors at warn level. Nil discards them.
	Logger *slog.Logger
}

// Server is a simulated adbd. It may serve several listeners; each
// accepted connection is one host (normally one adb server).
type Server struct {
	dev  Device
	opts Options
	log  *slog.Logger

	ctx    context.Context
	cancel context.CancelFunc

	mu        sync.Mutex
	closed    bool
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	wg        sync.WaitGroup
}

// ErrServerClosed is returned by Serve after Close.
var ErrServerClosed = errors.New("adbd: server closed")

// New returns a Server for dev.
func New(dev Device, opts Options) *Server {
	switch {
	case opts.MaxPayload == 0:
		opts.MaxPayload = DefaultMaxPayload
	case opts.MaxPayload < maxPayloadV1:
		opts.MaxPayload = maxPayloadV1
	case opts.MaxPayload > maxPayloadLimit:
		opts.MaxPayload = maxPayloadLimit
	}
	if opts.JDWPListMax == 0 {
		opts.JDWPListMax = DefaultJDWPListMax
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Server{
		dev: dev, opts: opts, log: log, ctx: ctx, cancel: cancel,
		listeners: map[net.Listener]struct{}{}, conns: map[*conn]struct{}{},
	}
}

// Serve accepts host connections on ln until ln fails or the server is
// closed; it then closes ln. After Close it returns ErrServerClosed.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return ErrServerClosed
	}
	s.listeners[ln] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.listeners, ln)
		s.mu.Unlock()
		ln.Close()
	}()
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.ctx.Err() != nil {
				return ErrServerClosed
			}
			return fmt.Errorf("adbd: accept: %w", err)
		}
		if tc, ok := nc.(*net.TCPConn); ok {
			_ = tc.SetNoDelay(true)
		}
		c := s.newConn(nc)
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			nc.Close()
			return ErrServerClosed
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			c.run()
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
		}()
	}
}

// Close stops every listener and connection and waits until all of the
// server's goroutines have ended. VM connections opened for jdwp streams
// are closed too.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	s.cancel()
	for ln := range s.listeners {
		ln.Close()
	}
	for c := range s.conns {
		c.nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

// Serve runs a daemon for dev on ln until ctx is cancelled, then closes
// everything and returns nil; or returns the accept error that ended it.
func Serve(ctx context.Context, ln net.Listener, dev Device) error {
	return ServeOptions(ctx, ln, dev, Options{})
}

// ServeOptions is Serve with options.
func ServeOptions(ctx context.Context, ln net.Listener, dev Device, opts Options) error {
	s := New(dev, opts)
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()
	err := s.Serve(ln)
	s.Close()
	if errors.Is(err, ErrServerClosed) {
		return nil
	}
	return err
}

// banner is the CNXN identity string: "device::", the properties the host
// reads and the features (spec §2.3). shell_v2 is never announced, so the
// host uses the legacy shell: service throughout.
func banner(props map[string]string, features []string) string {
	var parts []string
	for _, k := range []string{"ro.product.name", "ro.product.model", "ro.product.device"} {
		if v, ok := props[k]; ok {
			parts = append(parts, k+"="+bannerValue(v))
		}
	}
	if len(features) > 0 {
		parts = append(parts, "features="+strings.Join(features, ","))
	}
	return "device::" + strings.Join(parts, ";")
}

// bannerValue keeps a property value from breaking the host's parse: ':'
// splits the banner, ';' and '=' the property list (spec §2.3); and the
// whole banner must fit a version-1 payload.
func bannerValue(v string) string {
	v = strings.Map(func(r rune) rune {
		switch {
		case r == ':' || r == ';' || r == '=':
			return '_'
		case r < 0x20 || r == 0x7f:
			return -1
		}
		return r
	}, v)
	if len(v) > 256 {
		v = v[:256]
	}
	return v
}

// pidListMessage formats a track-jdwp message: hex4 length, then "pid\n"
// lines, leaving out pids beyond limit bytes as a real adbd does.
func pidListMessage(pids []int, limit int) []byte {
	body := pidLines(pids, limit)
	return append(fmt.Appendf(nil, "%04x", len(body)), body...)
}

// pidLines formats sorted "pid\n" lines within limit bytes (no limit when
// negative).
func pidLines(pids []int, limit int) []byte {
	sorted := append([]int(nil), pids...)
	sort.Ints(sorted)
	var body []byte
	for _, p := range sorted {
		line := fmt.Appendf(nil, "%d\n", p)
		if limit >= 0 && len(body)+len(line) > limit {
			break
		}
		body = append(body, line...)
	}
	return body
}
