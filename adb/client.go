// Package adb is a client of the adb server's host ("smart socket")
// protocol, spec/adb.md Part 1: the protocol ddmlib and the adb command use
// on TCP 127.0.0.1:5037 to list devices, follow them (track-devices), and
// reach services on a device (track-jdwp, jdwp:<pid>, shell:).
//
// A Client holds only configuration; every operation dials its own
// connection, as the protocol allows one request per connection. Long-lived
// operations return a Tracker (device lists, pid sets) or a net.Conn (a
// device stream such as jdwp:<pid>) whose lifetime belongs to the caller.
//
// Errors: a FAIL answer is an *Error; a server that cannot be reached gives
// an error wrapping ErrServerUnreachable; bytes that break the protocol give
// one wrapping ErrProtocol. Every length read from the server is bounded.
package adb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// DefaultPort is the adb server's default TCP port.
const DefaultPort = 5037

// Defaults for the zero values of Client's fields.
const (
	DefaultDialTimeout    = 2 * time.Second
	DefaultTimeout        = 5 * time.Second
	DefaultMaxShellOutput = 16 << 20
)

// connectWait is added to the timeout of host:connect: the server itself
// waits up to 10 s for the device's CNXN before answering (spec §2.6).
const connectWait = 11 * time.Second

// ErrServerUnreachable is wrapped by the error of any operation that could
// not reach the adb server (nothing listening, or the dial timed out).
var ErrServerUnreachable = errors.New("adb: server unreachable")

// ErrStreamEnded is wrapped by a Tracker's error when the server closed the
// connection: the server went away, or the device did (track-jdwp).
var ErrStreamEnded = errors.New("stream ended by the server")

// Client talks to one adb server. The zero value uses DefaultServerAddr and
// the defaults above; a Client is safe for concurrent use.
type Client struct {
	// Addr is the server's "host:port". Empty means DefaultServerAddr().
	Addr string
	// ADBPath is the adb program EnsureServer starts; empty means "adb" from
	// PATH.
	ADBPath string
	// ServerEnv is added to the environment of `adb start-server`
	// (e.g. "ADB_EMU=0").
	ServerEnv []string
	// DialTimeout bounds connecting to the server.
	DialTimeout time.Duration
	// Timeout bounds each request and its answer (not the life of a stream
	// or tracker, which the caller's context and Close govern).
	Timeout time.Duration
	// MaxReply bounds any length-prefixed answer; default DefaultMaxReply.
	MaxReply int
	// MaxShellOutput bounds what Shell collects.
	MaxShellOutput int
}

// DefaultServerAddr returns the server address the adb command itself would
// use: ADB_SERVER_SOCKET ("tcp:HOST:PORT" or "tcp:PORT"), else
// ANDROID_ADB_SERVER_ADDRESS and ANDROID_ADB_SERVER_PORT, else
// 127.0.0.1:5037. It fails when one of them is set to something unusable.
func DefaultServerAddr() (string, error) {
	if s := os.Getenv("ADB_SERVER_SOCKET"); s != "" {
		spec, ok := strings.CutPrefix(s, "tcp:")
		if !ok {
			return "", fmt.Errorf("adb: ADB_SERVER_SOCKET=%q: only tcp:[HOST:]PORT is supported", s)
		}
		host, port := "127.0.0.1", spec
		if i := strings.LastIndexByte(spec, ':'); i >= 0 {
			host, port = strings.Trim(spec[:i], "[]"), spec[i+1:]
		}
		p, err := parsePort(port)
		if err != nil {
			return "", fmt.Errorf("adb: ADB_SERVER_SOCKET=%q: %w", s, err)
		}
		return net.JoinHostPort(host, strconv.Itoa(p)), nil
	}
	host := "127.0.0.1"
	if h := os.Getenv("ANDROID_ADB_SERVER_ADDRESS"); h != "" {
		host = h
	}
	port := DefaultPort
	if s := os.Getenv("ANDROID_ADB_SERVER_PORT"); s != "" {
		p, err := parsePort(s)
		if err != nil {
			return "", fmt.Errorf("adb: ANDROID_ADB_SERVER_PORT=%q: %w", s, err)
		}
		port = p
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), nil
}

func parsePort(s string) (int, error) {
	p, err := strconv.Atoi(s)
	if err != nil || p < 1 || p > 65535 {
		return 0, fmt.Errorf("not a port number (1-65535)")
	}
	return p, nil
}

func (c *Client) addr() (string, error) {
	if c.Addr != "" {
		return c.Addr, nil
	}
	return DefaultServerAddr()
}

func (c *Client) maxReply() int {
	if c.MaxReply > 0 {
		return c.MaxReply
	}
	return DefaultMaxReply
}

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// dial connects to the server.
func (c *Client) dial(ctx context.Context) (net.Conn, error) {
	addr, err := c.addr()
	if err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: c.DialTimeout}
	if d.Timeout <= 0 {
		d.Timeout = DefaultDialTimeout
	}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("adb: dialing %s: %w", addr, ctx.Err())
		}
		return nil, fmt.Errorf("%w at %s: %w", ErrServerUnreachable, addr, err)
	}
	return nc, nil
}

// session is one server connection during a request/answer exchange: the
// deadline is the Client's timeout, and cancelling ctx interrupts any read or
// write at once.
type session struct {
	nc   net.Conn
	ctx  context.Context
	stop func() bool
	op   string
}

// open dials, arms the deadline and context, and sends req.
func (c *Client) open(ctx context.Context, req string, timeout time.Duration) (*session, error) {
	nc, err := c.dial(ctx)
	if err != nil {
		return nil, err
	}
	_ = nc.SetDeadline(time.Now().Add(timeout))
	s := &session{nc: nc, ctx: ctx, op: req}
	s.stop = context.AfterFunc(ctx, func() { _ = nc.SetDeadline(time.Unix(1, 0)) })
	if err := writeRequest(nc, req); err != nil {
		return nil, s.fail(fmt.Errorf("sending: %w", err))
	}
	return s, nil
}

// fail closes the session and returns err with the request as context, or
// the context's error when that is what interrupted it. An *Error (a FAIL
// answer) is returned as it is.
func (s *session) fail(err error) error {
	s.stop()
	s.nc.Close()
	var fe *Error
	if errors.As(err, &fe) {
		return err
	}
	if cerr := s.ctx.Err(); cerr != nil {
		return fmt.Errorf("adb: %s: %w", s.op, cerr)
	}
	return fmt.Errorf("adb: %s: %w", s.op, err)
}

// close ends the session normally.
func (s *session) close() {
	s.stop()
	s.nc.Close()
}

// release hands the connection to the caller: no deadline, no context
// watch. It fails if the context fired meanwhile.
func (s *session) release() (net.Conn, error) {
	if !s.stop() {
		s.nc.Close()
		return nil, fmt.Errorf("adb: %s: %w", s.op, context.Cause(s.ctx))
	}
	_ = s.nc.SetDeadline(time.Time{})
	return s.nc, nil
}

// status reads OKAY/FAIL.
func (c *Client) status(s *session) error {
	return readStatus(s.nc, s.op, c.maxReply())
}

// query sends a host request whose answer is OKAY and a hex4 string.
func (c *Client) query(ctx context.Context, req string, timeout time.Duration) (string, error) {
	s, err := c.open(ctx, req, timeout)
	if err != nil {
		return "", err
	}
	if err := c.status(s); err != nil {
		return "", s.fail(err)
	}
	msg, err := readMessage(s.nc, c.maxReply())
	if err != nil {
		return "", s.fail(err)
	}
	s.close()
	return string(msg), nil
}

// Version returns the server's protocol version (41 for adb 1.0.41).
func (c *Client) Version(ctx context.Context) (int, error) {
	msg, err := c.query(ctx, "host:version", c.timeout())
	if err != nil {
		return 0, err
	}
	v, err := parseHex([]byte(msg))
	if err != nil || len(msg) != 4 {
		return 0, fmt.Errorf("adb: host:version: %w", protocolErrorf("version %q is not 4 hex digits", msg))
	}
	return v, nil
}

// Devices lists the devices the server knows, in the long format (serial,
// state, product/model/device/transport_id properties).
func (c *Client) Devices(ctx context.Context) ([]Device, error) {
	const req = "host:devices-l"
	s, err := c.open(ctx, req, c.timeout())
	if err != nil {
		return nil, err
	}
	if err := c.status(s); err != nil {
		return nil, s.fail(err)
	}
	// The server closes after the list; reading to the close lets the
	// length prefix be checked against every byte, whatever its width.
	all, err := readAllBounded(s.nc, c.maxReply()+maxHexDigits)
	if err != nil {
		return nil, s.fail(err)
	}
	s.close()
	payload, err := splitOneShot(all)
	if err != nil {
		return nil, fmt.Errorf("adb: %s: %w", req, err)
	}
	devs, err := ParseDevices(payload)
	if err != nil {
		return nil, fmt.Errorf("adb: %s: %w", req, err)
	}
	return devs, nil
}

// Connect asks the server to connect to a device listening on TCP
// ("HOST:PORT"; without a port the server uses 5555) and returns the
// server's text, "connected to HOST:PORT" or "already connected to
// HOST:PORT". Any other text (e.g. "failed to connect to …") is returned as
// an *Error. The server waits up to 10 s for the device.
func (c *Client) Connect(ctx context.Context, hostport string) (string, error) {
	req := "host:connect:" + hostport
	msg, err := c.query(ctx, req, c.timeout()+connectWait)
	if err != nil {
		return "", err
	}
	if strings.HasPrefix(msg, "connected to ") || strings.HasPrefix(msg, "already connected to ") {
		return msg, nil
	}
	return "", &Error{Op: req, Message: msg}
}

// Disconnect asks the server to drop a TCP device ("HOST:PORT"), or every
// TCP device when hostport is empty, and returns the server's text. An
// unknown device is an *Error ("no such device 'HOST:PORT'").
func (c *Client) Disconnect(ctx context.Context, hostport string) (string, error) {
	return c.query(ctx, "host:disconnect:"+hostport, c.timeout())
}

// KillServer asks the server to exit (host:kill).
func (c *Client) KillServer(ctx context.Context) error {
	s, err := c.open(ctx, "host:kill", c.timeout())
	if err != nil {
		return err
	}
	if err := c.status(s); err != nil {
		return s.fail(err)
	}
	s.close()
	return nil
}

// transportRequest names the device: by serial, or any single device when
// serial is empty.
func transportRequest(serial string) string {
	if serial == "" {
		return "host:transport-any"
	}
	return "host:transport:" + serial
}

// OpenTransport connects to service on the device with the given serial
// (empty: the only device) and returns the stream once the device accepted
// it: host:transport:SERIAL, then the service name (spec §1.1, §1.2). The
// stream carries the service's raw bytes; the caller closes it. A refused
// service is an *Error, usually with Message "closed".
func (c *Client) OpenTransport(ctx context.Context, serial, service string) (net.Conn, error) {
	s, err := c.open(ctx, transportRequest(serial), c.timeout())
	if err != nil {
		return nil, err
	}
	if err := c.status(s); err != nil {
		return nil, s.fail(err)
	}
	s.op = service
	if err := writeRequest(s.nc, service); err != nil {
		return nil, s.fail(fmt.Errorf("sending: %w", err))
	}
	if err := c.status(s); err != nil {
		return nil, s.fail(err)
	}
	return s.release()
}

// OpenJDWP opens the jdwp:<pid> stream to a VM on the device. The stream
// carries JDWP from its first byte: the caller sends JDWP-Handshake.
func (c *Client) OpenJDWP(ctx context.Context, serial string, pid int) (net.Conn, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("adb: jdwp: invalid pid %d", pid)
	}
	return c.OpenTransport(ctx, serial, "jdwp:"+strconv.Itoa(pid))
}

// Shell runs cmd with the device's legacy shell: service and returns what
// it printed (stdout and stderr together) once the device closes the
// stream. The exit status is not transmitted by this service, and devices
// whose legacy shell runs in a pty turn "\n" into "\r\n". Output beyond
// MaxShellOutput is an error.
func (c *Client) Shell(ctx context.Context, serial, cmd string) ([]byte, error) {
	return c.runService(ctx, serial, "shell:", cmd)
}

// Exec runs cmd with the device's exec: service (Android 5 and later): the
// command's raw output with no pty, so bytes arrive unchanged ("\n" stays
// "\n"), then close. Older devices refuse the service (an *Error with
// Message "closed"); use Shell there.
func (c *Client) Exec(ctx context.Context, serial, cmd string) ([]byte, error) {
	return c.runService(ctx, serial, "exec:", cmd)
}

// runService runs cmd through a one-shot command service (shell: or
// exec:) and collects its output up to MaxShellOutput.
func (c *Client) runService(ctx context.Context, serial, service, cmd string) ([]byte, error) {
	name := strings.TrimSuffix(service, ":")
	if cmd == "" {
		return nil, fmt.Errorf("adb: %s: empty command (interactive shells are not supported)", name)
	}
	nc, err := c.OpenTransport(ctx, serial, service+cmd)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	stop := context.AfterFunc(ctx, func() { _ = nc.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	limit := c.MaxShellOutput
	if limit <= 0 {
		limit = DefaultMaxShellOutput
	}
	out, err := io.ReadAll(io.LimitReader(nc, int64(limit)+1))
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			err = cerr
		}
		return out, fmt.Errorf("adb: %s%s: reading output: %w", service, cmd, err)
	}
	if len(out) > limit {
		return out[:limit], fmt.Errorf("adb: %s%s: output exceeds %d bytes", service, cmd, limit)
	}
	return out, nil
}

// Forward asks the server to listen on local (e.g. "tcp:0", "tcp:8700")
// and relay each connection to remote on the device (e.g. "jdwp:1234",
// "tcp:5005"). It returns the local socket actually bound: for "tcp:0" the
// port the server chose ("tcp:41234"), otherwise local unchanged.
func (c *Client) Forward(ctx context.Context, serial, local, remote string) (string, error) {
	if serial == "" {
		return "", errors.New("adb: forward: a serial is required")
	}
	req := "host-serial:" + serial + ":forward:" + local + ";" + remote
	s, err := c.open(ctx, req, c.timeout())
	if err != nil {
		return "", err
	}
	// OKAY for the request, then OKAY (or FAIL) for the forward itself.
	for range 2 {
		if err := c.status(s); err != nil {
			return "", s.fail(err)
		}
	}
	bound := local
	if local == "tcp:0" {
		msg, err := readMessage(s.nc, c.maxReply())
		if err != nil {
			return "", s.fail(fmt.Errorf("reading the chosen port: %w", err))
		}
		p, err := parsePort(string(msg))
		if err != nil {
			return "", s.fail(protocolErrorf("chosen port %q: %v", msg, err))
		}
		bound = "tcp:" + strconv.Itoa(p)
	}
	s.close()
	return bound, nil
}

// KillForward removes a forward created by Forward.
func (c *Client) KillForward(ctx context.Context, serial, local string) error {
	if serial == "" {
		return errors.New("adb: killforward: a serial is required")
	}
	s, err := c.open(ctx, "host-serial:"+serial+":killforward:"+local, c.timeout())
	if err != nil {
		return err
	}
	for range 2 {
		if err := c.status(s); err != nil {
			return s.fail(err)
		}
	}
	s.close()
	return nil
}

// EnsureServer checks that the server answers, and when nothing listens at
// a loopback address starts it with `adb -P PORT start-server` (ADBPath, or
// adb from PATH) and checks again. It returns the server's version.
func (c *Client) EnsureServer(ctx context.Context) (int, error) {
	v, err := c.Version(ctx)
	if err == nil || !errors.Is(err, ErrServerUnreachable) {
		return v, err
	}
	addr, aerr := c.addr()
	if aerr != nil {
		return 0, aerr
	}
	host, port, serr := net.SplitHostPort(addr)
	if serr != nil {
		return 0, fmt.Errorf("adb: server address %q: %w", addr, serr)
	}
	if !isLoopback(host) {
		return 0, fmt.Errorf("%w (not starting a server for the non-local address %s)", err, addr)
	}
	if err := c.startServer(ctx, port); err != nil {
		return 0, err
	}
	return c.Version(ctx)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// startServer runs `adb -P port start-server`. The server daemonises; the
// command returns once it accepts connections.
func (c *Client) startServer(ctx context.Context, port string) error {
	path := c.ADBPath
	if path == "" {
		p, err := exec.LookPath("adb")
		if err != nil {
			return fmt.Errorf("adb: starting the server: %w", err)
		}
		path = p
	}
	cmd := exec.CommandContext(ctx, path, "-P", port, "start-server")
	// Variables that would make adb pick another address than -P.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k == "ADB_SERVER_SOCKET" || k == "ANDROID_ADB_SERVER_PORT" {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, c.ServerEnv...)
	// The daemon may keep our pipe open for a moment; do not wait for it.
	cmd.WaitDelay = time.Second
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("adb: %s -P %s start-server: %w: %s", path, port, err, strings.TrimSpace(string(limitText(out, 512))))
	}
	return nil
}

func limitText(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
