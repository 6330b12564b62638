//go:build !linux

package jdwp

import (
	"errors"
	"net"
	"syscall"
)

// On other systems a Conn reads and writes through net.Conn only.

func rawConnOf(net.Conn) syscall.RawConn { return nil }

type rawReader struct {
	rc    syscall.RawConn
	count ReadCounter
}

func (rawReader) Read([]byte) (int, error) { return 0, errors.ErrUnsupported }

func rawWrite(syscall.RawConn, []byte) (int, error) { return 0, errors.ErrUnsupported }
