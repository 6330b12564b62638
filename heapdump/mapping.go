package heapdump

import (
	"io"
	"os"
)

// readWhole is the fallback when a file cannot be mapped.
func readWhole(f *os.File, size int64) (*mapping, error) {
	b := make([]byte, size)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, err
	}
	return &mapping{data: b}, nil
}
