package ddm

import (
	"bytes"
	"testing"
)

// Android 4.4's handler numbers invalidate, request layout and profile 3,
// 4 and 5 and reads nothing after the view's name: a legacy request is the
// op, the root and the view, byte for byte.
func TestLegacyViewOpRequest(t *testing.T) {
	m := &ViewOpRequest{Op: ViewLegacyRequestLayout, ViewRoot: "w", View: "v@1", Legacy: true, Method: "ignored"}
	want := []byte{0, 0, 0, 4, 0, 0, 0, 1, 0, 'w', 0, 0, 0, 3, 0, 'v', 0, '@', 0, '1'}
	if got := m.AppendBody(nil); !bytes.Equal(got, want) {
		t.Fatalf("%v\nwant %v", got, want)
	}
	d, err := DecodeLegacyViewOpRequest(want)
	if err != nil || d.Op != ViewLegacyRequestLayout || d.View != "v@1" || !d.Legacy {
		t.Fatalf("%v %+v", err, d)
	}
	// The current handler reads a method name after op 4: the same bytes
	// are short for it.
	if _, err := DecodeViewOpRequest(want); err == nil {
		t.Error("a legacy op 4 decoded as an invoke")
	}
	if _, err := DecodeLegacyViewOpRequest(append(want, 0)); err == nil {
		t.Error("trailing byte accepted")
	}
}
