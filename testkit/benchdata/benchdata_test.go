package benchdata

import (
	"bytes"
	"testing"

	"github.com/ddmtui/ddmtui/jdwp"
)

func TestSplit(t *testing.T) {
	a := (&jdwp.Packet{ID: 1, CommandSet: 1, Command: 1, Data: []byte{1, 2, 3}}).Marshal()
	b := (&jdwp.Packet{ID: 2, Flags: jdwp.FlagReply}).Marshal()
	got, err := Split(append(append(append([]byte{}, a...), b...), 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !bytes.Equal(got[0], a) || !bytes.Equal(got[1], b) || cap(got[0]) != len(a) {
		t.Fatalf("split into %d packets: %x", len(got), got)
	}
	for _, bad := range [][]byte{
		{0, 0, 0, 10, 0, 0, 0, 1, 0, 1, 1},   // shorter than a header
		{0, 0, 0, 12, 0, 0, 0, 1, 0, 1, 1},   // one byte past the end
		append(a[:len(a):len(a)], a[:11]...), // the second claims more than is left
	} {
		if _, err := Split(bad); err == nil {
			t.Errorf("Split(%x): no error", bad)
		}
	}
	if got, err := Split(a[:11]); err == nil || got != nil {
		t.Errorf("a header claiming 14 bytes of 11: %v, %v", got, err)
	}
}
