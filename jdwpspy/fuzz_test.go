package jdwpspy

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ddmtui/ddmtui/jdwp"
)

// Fuzz inputs start with one byte choosing the id sizes, then the command
// data.
var fuzzSizes = []jdwp.IDSizes{
	{FieldID: 8, MethodID: 8, ObjectID: 8, ReferenceTypeID: 8, FrameID: 8}, // ART, HotSpot 64-bit
	{FieldID: 4, MethodID: 4, ObjectID: 8, ReferenceTypeID: 8, FrameID: 8}, // Dalvik
	{FieldID: 4, MethodID: 4, ObjectID: 4, ReferenceTypeID: 4, FrameID: 4}, // a 32-bit JVM
	{}, // not known yet
}

func fuzzInput(b []byte) (jdwp.IDSizes, []byte) {
	if len(b) == 0 {
		return fuzzSizes[0], nil
	}
	return fuzzSizes[int(b[0])%len(fuzzSizes)], b[1:]
}

const maxUndecoded = 2*maxHex + 32

// FuzzDecodeEventRequest: never a panic; what is decoded without error
// re-encodes to the same length and decodes to the same request.
func FuzzDecodeEventRequest(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		sz, data := fuzzInput(b)
		er, err := DecodeEventRequest(data, sz, nil)
		if er == nil {
			t.Fatal("nil request")
		}
		if uint32(len(er.Modifiers)) > er.ModifierCount || len(er.Undecoded) > maxUndecoded {
			t.Fatalf("%d modifiers of %d, %d hex chars", len(er.Modifiers), er.ModifierCount, len(er.Undecoded))
		}
		_ = er.String()
		if _, jerr := json.Marshal(er); jerr != nil {
			t.Fatal(jerr)
		}
		if err != nil {
			return
		}
		enc := appendEventRequest(sz, er)
		if len(enc) != len(data) {
			t.Fatalf("re-encoded %d bytes from %d", len(enc), len(data))
		}
		again, err := DecodeEventRequest(enc, sz, nil)
		if err != nil || !reflect.DeepEqual(again, er) {
			t.Fatalf("round trip: %+v vs %+v (%v)", again, er, err)
		}
	})
}

// FuzzDecodeComposite: never a panic; events without values re-encode to
// the same length and decode to the same composite.
func FuzzDecodeComposite(f *testing.F) {
	f.Fuzz(func(t *testing.T, b []byte) {
		sz, data := fuzzInput(b)
		c, err := DecodeComposite(data, sz, nil)
		if c == nil {
			t.Fatal("nil composite")
		}
		if uint32(len(c.Events)) > c.EventCount || len(c.Undecoded) > maxUndecoded {
			t.Fatalf("%d events of %d, %d hex chars", len(c.Events), c.EventCount, len(c.Undecoded))
		}
		_ = c.String()
		if _, jerr := json.Marshal(c); jerr != nil {
			t.Fatal(jerr)
		}
		if err != nil {
			return
		}
		for _, e := range c.Events {
			if e.Value != nil {
				return
			}
		}
		enc := appendComposite(sz, c.SuspendPolicy, c.Events)
		if len(enc) != len(data) {
			t.Fatalf("re-encoded %d bytes from %d", len(enc), len(data))
		}
		again, err := DecodeComposite(enc, sz, nil)
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Fatalf("round trip: %+v vs %+v (%v)", again, c, err)
		}
	})
}
