package jdwp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// Handshake is the 14 ASCII bytes both sides exchange before any packet
// (spec/jdwp.md §1).
const Handshake = "JDWP-Handshake"

// DefaultHandshakeTimeout bounds how long either role waits for the peer.
const DefaultHandshakeTimeout = 5 * time.Second

// ErrNotJDWP means the peer answered with something other than the JDWP
// handshake: the port is open but is not a JDWP endpoint.
var ErrNotJDWP = errors.New("jdwp: peer is not a JDWP endpoint (bad handshake)")

// HandshakeError describes a failed handshake with what the peer sent.
type HandshakeError struct {
	Got []byte // the bytes received (at most 14)
	Err error  // ErrNotJDWP, or the I/O error
}

func (e *HandshakeError) Error() string {
	if errors.Is(e.Err, ErrNotJDWP) {
		return fmt.Sprintf("%v: got %q", e.Err, e.Got)
	}
	if len(e.Got) > 0 {
		return fmt.Sprintf("jdwp: handshake: %v after %q", e.Err, e.Got)
	}
	return fmt.Sprintf("jdwp: handshake: %v", e.Err)
}

func (e *HandshakeError) Unwrap() error { return e.Err }

// ClientHandshake performs the initiating side: write the handshake, then read
// and compare the peer's echo. Only the 14 handshake bytes are consumed; any
// packet that follows in the same segment stays unread in nc.
func ClientHandshake(nc net.Conn, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = DefaultHandshakeTimeout
	}
	_ = nc.SetDeadline(time.Now().Add(timeout))
	defer nc.SetDeadline(time.Time{})
	if _, err := io.WriteString(nc, Handshake); err != nil {
		return &HandshakeError{Err: err}
	}
	return readHandshake(nc)
}

// ServerHandshake performs the accepting side (a VM, or the debugger proxy
// facing a debugger): read the handshake, then echo it.
func ServerHandshake(nc net.Conn, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = DefaultHandshakeTimeout
	}
	_ = nc.SetDeadline(time.Now().Add(timeout))
	defer nc.SetDeadline(time.Time{})
	if err := readHandshake(nc); err != nil {
		return err
	}
	if _, err := io.WriteString(nc, Handshake); err != nil {
		return &HandshakeError{Err: err}
	}
	return nil
}

func readHandshake(r io.Reader) error {
	buf := make([]byte, len(Handshake))
	n, err := io.ReadFull(r, buf)
	got := buf[:n]
	// A mismatch is detectable before all 14 bytes arrive: say so rather
	// than waiting for a timeout.
	if !bytes.HasPrefix([]byte(Handshake), got) {
		return &HandshakeError{Got: got, Err: ErrNotJDWP}
	}
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return &HandshakeError{Got: got, Err: err}
	}
	return nil
}
