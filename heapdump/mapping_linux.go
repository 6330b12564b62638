//go:build linux

package heapdump

import (
	"os"
	"syscall"
)

// mapping is a read-only view of a file's bytes: mapped on linux, so the
// file is never copied into the Go heap. Pages already read can be given
// back (release) so a pass over a file larger than the memory budget keeps
// the resident set small.
type mapping struct {
	data   []byte
	mapped bool
}

func mapFile(f *os.File, size int64) (*mapping, error) {
	if size == 0 {
		return &mapping{}, nil
	}
	if int64(int(size)) != size {
		return nil, syscall.EFBIG
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_PRIVATE)
	if err != nil {
		return readWhole(f, size) // e.g. a file system without mmap
	}
	return &mapping{data: b, mapped: true}, nil
}

// release tells the kernel that bytes [from, to) are not needed for now;
// they are read again from the file if touched later.
func (m *mapping) release(from, to int) {
	if !m.mapped {
		return
	}
	const page = 4096
	from = (from + page - 1) &^ (page - 1)
	to = min(to, len(m.data)) &^ (page - 1)
	if to > from {
		_ = syscall.Madvise(m.data[from:to], syscall.MADV_DONTNEED)
	}
}

func (m *mapping) close() error {
	if !m.mapped || m.data == nil {
		return nil
	}
	err := syscall.Munmap(m.data)
	m.data = nil
	return err
}
