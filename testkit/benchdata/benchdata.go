// Package benchdata loads the anchor data of ../shared/bench for Go
// benchmarks: the JDWP packet streams gen_ddm_chunks.py writes, named by an
// environment variable that scripts/bench-ddm.sh sets.
package benchdata

import (
	"encoding/binary"
	"fmt"
	"os"
	"testing"

	"github.com/ddmtui/ddmtui/jdwp"
)

// Packets reads the stream the environment variable env names and returns
// its packets (each a slice of the file, header included) and the file's
// size. The benchmark is skipped when env is not set.
func Packets(tb testing.TB, env string) (packets [][]byte, size int64) {
	tb.Helper()
	path := os.Getenv(env)
	if path == "" {
		tb.Skipf("%s is not set (scripts/bench-ddm.sh sets it)", env)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	packets, err = Split(data)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return packets, int64(len(data))
}

// Split cuts data, JDWP packets back to back, into its packets. A length
// below the header's or past the end is an error; bytes after the last
// whole header are ignored.
func Split(data []byte) ([][]byte, error) {
	var packets [][]byte
	for off := 0; off+jdwp.HeaderLen <= len(data); {
		n := int(binary.BigEndian.Uint32(data[off:]))
		if n < jdwp.HeaderLen || n > len(data)-off {
			return nil, fmt.Errorf("bad packet length %d at %d", n, off)
		}
		packets = append(packets, data[off:off+n:off+n])
		off += n
	}
	return packets, nil
}
