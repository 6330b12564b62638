package jdwpspy

import (
	"errors"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/internal/wire"
	"github.com/ddmtui/ddmtui/jdwp"
)

// Exact behaviour at the points a one-line change of decode.go would alter
// (mutation testing, docs/TESTING.md).

// Errors name the (1-based) modifier or event they stopped in, and keep
// the rest from its kind byte as hex.
func TestDecodeErrorsNamePosition(t *testing.T) {
	// EventRequest.Set: a Count modifier, then a modifier kind with no layout.
	var w wire.Writer
	w.U1(jdwp.EventBreakpoint)
	w.U1(1)
	w.U4(2)
	w.U1(ModCount)
	w.S4(3)
	w.U1(77)
	w.U1(0xab)
	er, err := DecodeEventRequest(w.B, artSizes, nil)
	if !errors.Is(err, ErrUndecodable) || err.Error() != "modifier 2: kind 77: "+ErrUndecodable.Error() ||
		er.Undecoded != "4dab" || len(er.Modifiers) != 1 {
		t.Errorf("unknown modifier: %+v, %v", er, err)
	}

	// The second modifier needs id sizes, which are not known.
	w = wire.Writer{}
	w.U1(jdwp.EventBreakpoint)
	w.U1(1)
	w.U4(2)
	w.U1(ModCount)
	w.S4(3)
	w.U1(ModThreadOnly)
	w.ID(8, 0x42)
	er, err = DecodeEventRequest(w.B, jdwp.IDSizes{}, nil)
	if !errors.Is(err, ErrNoIDSizes) || err.Error() != "modifier 2 (ThreadOnly): "+ErrNoIDSizes.Error() ||
		er.Undecoded != "030000000000000042" {
		t.Errorf("ThreadOnly without id sizes: %+v, %v", er, err)
	}

	// Event.Composite: VM_DEATH, then an event kind with no layout.
	w = wire.Writer{}
	w.U1(0)
	w.U4(2)
	w.U1(jdwp.EventVMDeath)
	w.S4(0)
	w.U1(55)
	c, err := DecodeComposite(w.B, artSizes, nil)
	if !errors.Is(err, ErrUndecodable) || err.Error() != "event 2: kind 55: "+ErrUndecodable.Error() ||
		c.Undecoded != "37" || len(c.Events) != 1 {
		t.Errorf("unknown event kind: %+v, %v", c, err)
	}

	// The second event carries a thread id, and no id sizes are known.
	w = wire.Writer{}
	w.U1(0)
	w.U4(2)
	w.U1(jdwp.EventVMDeath)
	w.S4(0)
	w.U1(jdwp.EventThreadStart)
	w.S4(1)
	c, err = DecodeComposite(w.B, jdwp.IDSizes{}, nil)
	if !errors.Is(err, ErrNoIDSizes) || err.Error() != "event 2 (THREAD_START): "+ErrNoIDSizes.Error() {
		t.Errorf("THREAD_START without id sizes: %+v, %v", c, err)
	}

	// The second event's value has a tag with no known size.
	w = wire.Writer{}
	w.U1(0)
	w.U4(2)
	w.U1(jdwp.EventVMDeath)
	w.S4(0)
	w.U1(jdwp.EventMethodExitWithReturn)
	w.S4(4)
	w.ID(8, 0x42) // thread
	w.U1(1)       // location: type tag
	w.ID(8, 0x11) // class
	w.ID(8, 0x22) // method
	w.U8(3)       // index
	w.U1('?')     // value tag
	c, err = DecodeComposite(w.B, artSizes, nil)
	if !errors.Is(err, ErrUndecodable) || err.Error() != "event 2 (METHOD_EXIT_WITH_RETURN_VALUE): value tag ?: "+ErrUndecodable.Error() {
		t.Errorf("unknown value tag: %+v, %v", c, err)
	}
}

// Bytes after the last modifier or event are an error, and are kept as hex.
func TestDecodeTrailingBytes(t *testing.T) {
	var w wire.Writer
	w.U1(jdwp.EventThreadStart)
	w.U1(0)
	w.U4(1)
	w.U1(ModCount)
	w.S4(1)
	w.U1(0xee)
	w.U1(0xff)
	er, err := DecodeEventRequest(w.B, artSizes, nil)
	if !errors.Is(err, wire.ErrTrailing) || err.Error() != "2 bytes after the last modifier: "+wire.ErrTrailing.Error() ||
		er.Undecoded != "eeff" || len(er.Modifiers) != 1 {
		t.Errorf("EventRequest.Set with trailing bytes: %+v, %v", er, err)
	}
	if s := er.String(); s != "THREAD_START suspend=NONE [Count 1] undecoded=eeff" {
		t.Errorf("String() = %q", s)
	}

	w = wire.Writer{}
	w.U1(0)
	w.U4(1)
	w.U1(jdwp.EventVMDeath)
	w.S4(0)
	w.U1(0xee)
	c, err := DecodeComposite(w.B, artSizes, nil)
	if !errors.Is(err, wire.ErrTrailing) || c.Undecoded != "ee" || len(c.Events) != 1 {
		t.Errorf("Event.Composite with trailing bytes: %+v, %v", c, err)
	}
	if s := c.String(); s != "suspend=NONE [VM_DEATH req=0] undecoded=ee" {
		t.Errorf("String() = %q", s)
	}
}

// At most maxHex bytes are kept as hex, with the total when cut.
func TestHexBoundedAtLimit(t *testing.T) {
	b := make([]byte, maxHex+1)
	for i := range b {
		b[i] = 0xa5
	}
	if got := hexBounded(b[:maxHex]); got != strings.Repeat("a5", maxHex) {
		t.Errorf("%d bytes: %q", maxHex, got)
	}
	if got := hexBounded(b); got != strings.Repeat("a5", maxHex)+"…(257 bytes)" {
		t.Errorf("%d bytes: %q", maxHex+1, got)
	}
}

// A tag is shown as its character when printable ('!' to '~'), else in hex.
func TestTagString(t *testing.T) {
	for tag, want := range map[uint8]string{0x20: "0x20", 0x21: "!", 'L': "L", 0x7e: "~", 0x7f: "0x7f", 0: "0x00"} {
		if got := tagString(tag); got != want {
			t.Errorf("tagString(%#x) = %q, want %q", tag, got, want)
		}
	}
}

// An event's signature is shown when it has no reference type (CLASS_UNLOAD);
// a CLASS_PREPARE shows its type instead.
func TestEventStringSignature(t *testing.T) {
	unload := Event{Kind: jdwp.EventClassUnload, Name: "CLASS_UNLOAD", RequestID: 3, Signature: "Lcom/example/Gone;"}
	if s := unload.String(); s != `CLASS_UNLOAD req=3 signature="Lcom/example/Gone;"` {
		t.Errorf("CLASS_UNLOAD: %q", s)
	}
	prepare := Event{Kind: jdwp.EventClassPrepare, Name: "CLASS_PREPARE", RequestID: 4, Signature: "Lcom/example/Foo;",
		RefType: &RefType{Tag: 1, ID: 0x11, Name: "com.example.Foo"}}
	if s := prepare.String(); s != "CLASS_PREPARE req=4 type=com.example.Foo" {
		t.Errorf("CLASS_PREPARE: %q", s)
	}
	death := Event{Kind: jdwp.EventVMDeath, Name: "VM_DEATH"}
	if s := death.String(); s != "VM_DEATH req=0" {
		t.Errorf("VM_DEATH: %q", s)
	}
	c := &Composite{SuspendPolicyName: "ALL", Events: []Event{death}}
	if s := c.String(); s != "suspend=ALL [VM_DEATH req=0]" {
		t.Errorf("composite: %q", s)
	}
}

// A reference type named by its signature keeps that name; one without a
// name (field events) takes the learned class name.
func TestResolveEventRefTypeName(t *testing.T) {
	names := newResolver(artSizes)
	names.classes[0x11] = "learned.Name"
	prepared := Event{RefType: &RefType{ID: 0x11, Name: "from.Signature"}}
	resolveEvent(&prepared, names)
	if prepared.RefType.Name != "from.Signature" {
		t.Errorf("CLASS_PREPARE's name replaced by %q", prepared.RefType.Name)
	}
	field := Event{RefType: &RefType{ID: 0x11}}
	resolveEvent(&field, names)
	if field.RefType.Name != "learned.Name" {
		t.Errorf("field event's type name %q", field.RefType.Name)
	}
}

// The named survivor of the review (issue 18): CLASS_UNLOAD carries no ids,
// so it decodes before the id sizes are known, while every event that
// carries one (here THREAD_START, VM_START, BREAKPOINT) is refused without
// them.
func TestClassUnloadExemptFromIDSizes(t *testing.T) {
	var w wire.Writer
	w.U1(0)
	w.U4(1)
	w.U1(jdwp.EventClassUnload)
	w.S4(9)
	w.JDWPString("LGone;")
	c, err := DecodeComposite(w.B, jdwp.IDSizes{}, nil)
	if err != nil || len(c.Events) != 1 || c.Events[0].Signature != "LGone;" || c.Events[0].RequestID != 9 {
		t.Fatalf("CLASS_UNLOAD without id sizes: %+v, %v", c, err)
	}
	for _, kind := range []uint8{jdwp.EventThreadStart, jdwp.EventVMStart, jdwp.EventBreakpoint} {
		w := wire.Writer{}
		w.U1(0)
		w.U4(1)
		w.U1(kind)
		w.S4(0)
		w.ID(8, 1)
		if _, err := DecodeComposite(w.B, jdwp.IDSizes{}, nil); !errors.Is(err, ErrNoIDSizes) {
			t.Errorf("event kind %d without id sizes: %v", kind, err)
		}
	}
}
