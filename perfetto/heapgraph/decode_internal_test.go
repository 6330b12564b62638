package heapgraph

import (
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// varints counts the values of a packed field exactly (the room reserved
// for a root or reference column), and not a value cut off at the end.
func TestVarints(t *testing.T) {
	var b []byte
	for _, v := range []uint64{0, 1, 127, 128, 300, 1 << 40, 1<<64 - 1} {
		b = protowire.AppendVarint(b, v)
	}
	if n := varints(b); n != 7 {
		t.Fatalf("%d values, want 7", n)
	}
	if n := varints(append(b, 0x80, 0x80)); n != 7 {
		t.Fatalf("with a cut-off value: %d, want 7", n)
	}
	if n := varints(nil); n != 0 {
		t.Fatalf("none: %d", n)
	}
}
