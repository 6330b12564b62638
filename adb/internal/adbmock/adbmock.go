// Package adbmock is a scripted stand-in for the adb server, for testing the
// host-protocol client without a real server: a test supplies a handler that
// reads requests and writes exactly the bytes it wants (OKAY, FAIL, framed
// replies, raw garbage), optionally in small pieces with pauses so the client
// sees partial reads, and can stop the whole server mid-stream.
package adbmock

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Server accepts connections on a loopback port and runs Handler on each in
// its own goroutine.
type Server struct {
	ln      net.Listener
	handler func(*Conn)

	closing chan struct{}

	mu       sync.Mutex
	conns    map[*Conn]struct{}
	requests []string
	closed   bool
	wg       sync.WaitGroup
}

// Start listens on 127.0.0.1 (port chosen by the system) and serves handler.
// The server is closed when the test ends.
func Start(t testing.TB, handler func(*Conn)) *Server {
	t.Helper()
	return StartAt(t, "127.0.0.1:0", handler)
}

// StartAt is Start on a given loopback address, e.g. the address of a server
// that was closed, to play a restarted server.
func StartAt(t testing.TB, addr string, handler func(*Conn)) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("adbmock: %v", err)
	}
	s := &Server{ln: ln, handler: handler, conns: map[*Conn]struct{}{}, closing: make(chan struct{})}
	s.wg.Add(1)
	go s.acceptLoop()
	t.Cleanup(s.Close)
	return s
}

// Addr is the server's "127.0.0.1:PORT".
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Requests returns every request received so far, in order.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// Close stops listening, closes every connection (as a dying server would)
// and waits for the handlers to return.
func (s *Server) Close() {
	s.mu.Lock()
	if !s.closed {
		close(s.closing)
	}
	s.closed = true
	for c := range s.conns {
		c.nc.Close()
	}
	s.mu.Unlock()
	s.ln.Close()
	s.wg.Wait()
}

func (s *Server) acceptLoop() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		c := &Conn{nc: nc, srv: s}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			nc.Close()
			return
		}
		s.conns[c] = struct{}{}
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			defer func() {
				s.mu.Lock()
				delete(s.conns, c)
				s.mu.Unlock()
				nc.Close()
			}()
			s.handler(c)
		}()
	}
}

// Conn is one client connection as the handler sees it.
type Conn struct {
	nc  net.Conn
	srv *Server
	// Split makes every write go out in pieces (halves of what remains,
	// the last eight bytes one at a time) with a pause between them, so the
	// client's reads return partial data.
	Split bool
}

// MaxRequest bounds the requests the mock accepts (the real server's limit).
const MaxRequest = 1 << 20

// ReadRequest reads one hex4-framed request and records it.
func (c *Conn) ReadRequest() (string, error) {
	var h [4]byte
	if _, err := io.ReadFull(c.nc, h[:]); err != nil {
		return "", err
	}
	n, err := strconv.ParseUint(string(h[:]), 16, 32)
	if err != nil {
		return "", fmt.Errorf("adbmock: bad length %q", h[:])
	}
	if n == 0 || n > MaxRequest {
		return "", fmt.Errorf("adbmock: request length %d out of range", n)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(c.nc, buf); err != nil {
		return "", err
	}
	c.srv.mu.Lock()
	c.srv.requests = append(c.srv.requests, string(buf))
	c.srv.mu.Unlock()
	return string(buf), nil
}

// Closing is closed when the server is being closed: a handler that waits
// for something else must also give up on this.
func (c *Conn) Closing() <-chan struct{} { return c.srv.closing }

// Okay writes OKAY.
func (c *Conn) Okay() error { return c.Write([]byte("OKAY")) }

// Fail writes FAIL and the framed message.
func (c *Conn) Fail(msg string) error { return c.Write(append([]byte("FAIL"), Frame(msg)...)) }

// Reply writes a framed string (hex4 length, lower case as the server
// writes it, then the text).
func (c *Conn) Reply(msg string) error { return c.Write(Frame(msg)) }

// Frame returns msg with the server's length prefix: printf("%04x"), which
// has more than four digits when msg is longer than 0xffff bytes.
func Frame(msg string) []byte {
	return append(fmt.Appendf(nil, "%04x", len(msg)), msg...)
}

// Write sends raw bytes, in pieces when Split is set.
func (c *Conn) Write(b []byte) error {
	if !c.Split {
		_, err := c.nc.Write(b)
		return err
	}
	for len(b) > 0 {
		n := 1
		if len(b) > 8 {
			n = max(len(b)/2, 1)
		}
		if _, err := c.nc.Write(b[:n]); err != nil {
			return err
		}
		b = b[n:]
		time.Sleep(2 * time.Millisecond)
	}
	return nil
}

// Raw is the underlying connection, for handlers that pipe data.
func (c *Conn) Raw() net.Conn { return c.nc }

// WaitClosed blocks until the client closes its end (or d passes) and
// reports whether it did.
func (c *Conn) WaitClosed(d time.Duration) bool {
	_ = c.nc.SetReadDeadline(time.Now().Add(d))
	var b [512]byte
	for {
		_, err := c.nc.Read(b[:])
		if err != nil {
			var ne net.Error
			return !(errors.As(err, &ne) && ne.Timeout())
		}
	}
}
