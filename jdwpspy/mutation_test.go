package jdwpspy

import "testing"

// A '.' at the very start of a class signature's body is still the hidden
// class separator: nothing before it, the suffix after a '/'.
func TestClassNameHiddenSeparatorFirst(t *testing.T) {
	if got := ClassNameFromSignature("L.0x1;"); got != "/0x1" {
		t.Errorf("got %q, want %q", got, "/0x1")
	}
}
