package hprof

// Tests that kill the mutants scripts/mutation.sh found alive in this
// package (docs/TESTING.md, "Mutation testing"). Each states exact values.

import (
	"bytes"
	"errors"
	"io"
	"math"
	"testing"
)

// TestDefaultMaxOutput: 16 times the input, at least 16 MiB.
func TestDefaultMaxOutput(t *testing.T) {
	for _, tc := range []struct{ in, want int64 }{
		{0, 16 << 20}, {1, 16 << 20}, {1 << 20, 16 << 20}, {1<<20 + 1, 16<<20 + 16}, {3 << 20, 48 << 20},
	} {
		if got := DefaultMaxOutput(tc.in); got != tc.want {
			t.Errorf("DefaultMaxOutput(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestConvertRecordLengthLimit: a NODATA byte array zero-filled to a heap
// dump record of exactly 2^32-1 bytes fits the u4 length (here the output
// bound then stops it); one element more does not.
func TestConvertRecordLengthLimit(t *testing.T) {
	const sub = 1 + 4 + 4 + 4 + 1 // tag, id, stack serial, count, type
	for _, tc := range []struct {
		count uint32
		want  error
	}{
		{math.MaxUint32 - sub, ErrOutputTooLarge},
		{math.MaxUint32 - sub + 1, ErrRecordTooLarge},
	} {
		nodata := newRaw().u1(uint8(SubPrimitiveArrayNoData)).u4(0x100).u4(1).u4(tc.count).u1(uint8(TypeByte)).bytes()
		in := fileBytes(VersionAndroid, 4, rec(TagHeapDumpSegment, 0, nodata))
		err := Convert(io.Discard, bytes.NewReader(in), ConvertOptions{MaxOutput: 1 << 20})
		if !errors.Is(err, tc.want) {
			t.Errorf("count %d: %v, want %v", tc.count, err, tc.want)
		}
	}
}
