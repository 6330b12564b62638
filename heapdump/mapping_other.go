//go:build !linux

package heapdump

import "os"

// mapping holds the file's bytes; on systems other than linux the file is
// read into memory.
type mapping struct {
	data   []byte
	mapped bool
}

func mapFile(f *os.File, size int64) (*mapping, error) { return readWhole(f, size) }

func (m *mapping) release(from, to int) {}

func (m *mapping) close() error { m.data = nil; return nil }
