package viewtree

import (
	"bytes"
	"errors"
	"testing"

	"github.com/ddmtui/ddmtui/ddm"
)

// layersVector: a 100x50 window, a visible root with a 3-byte "PNG" and an
// invisible child at (10,20) with an empty one, then the end marker.
var layersVector = []byte{
	0, 0, 0, 100, 0, 0, 0, 50,
	1, 0, 5, 'a', '.', 'V', '@', '1', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0x89, 'P', 'N',
	1, 0, 5, 'b', '.', 'W', '@', 'f', 0, 0, 0, 0, 10, 0, 0, 0, 20, 0, 0, 0, 0,
	2,
}

func TestDecodeLayersVector(t *testing.T) {
	l, err := DecodeLayers(layersVector)
	if err != nil {
		t.Fatal(err)
	}
	if l.Width != 100 || l.Height != 50 || l.Truncated || len(l.Views) != 2 {
		t.Fatalf("%+v", l)
	}
	if v := l.Views[0]; v.Name != "a.V@1" || !v.Visible || !bytes.Equal(v.PNG, []byte{0x89, 'P', 'N'}) {
		t.Errorf("%+v", v)
	}
	if v := l.Views[1]; v.Name != "b.W@f" || v.Visible || v.Left != 10 || v.Top != 20 || len(v.PNG) != 0 {
		t.Errorf("%+v", v)
	}
	if got := EncodeLayers(l); !bytes.Equal(got, layersVector) {
		t.Errorf("EncodeLayers:\n%v\nwant\n%v", got, layersVector)
	}
	cut, err := DecodeLayers(layersVector[:40])
	if err != nil || !cut.Truncated || len(cut.Views) != 1 {
		t.Errorf("cut: %v %+v", err, cut)
	}
	// Cut inside the first picture: its length claims more than is left.
	cut, err = DecodeLayers(layersVector[:30])
	if err != nil || !cut.Truncated || len(cut.Views) != 0 {
		t.Errorf("cut in a picture: %v %+v", err, cut)
	}
	for name, in := range map[string][]byte{
		"negative png": append(append([]byte{}, layersVector[:25]...), 0xff, 0, 0, 0),
		"bad marker":   append(append([]byte{}, layersVector[:8]...), 7),
		"trailing":     append(append([]byte{}, layersVector...), 0),
		"negative":     {0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 2},
		"short":        {0, 0},
	} {
		if _, err := DecodeLayers(in); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
}

func TestProfileAndTheme(t *testing.T) {
	ts, err := ParseProfile([]byte("1200 300 -1\n5 6 7\n"))
	if err != nil || len(ts) != 2 || ts[0] != (Timing{1200, 300, -1}) || ts[1].Draw != 7 {
		t.Fatalf("%v %+v", err, ts)
	}
	if got := string(FormatProfile(ts)); got != "1200 300 -1\n5 6 7\n" {
		t.Errorf("FormatProfile %q", got)
	}
	for _, bad := range []string{"1 2\n", "a b c\n", "1 2 -5\n"} {
		if _, err := ParseProfile([]byte(bad)); err == nil {
			t.Errorf("profile %q accepted", bad)
		}
	}
	attrs, err := ParseTheme([]byte("android:colorPrimary\n#ff6200ee\nandroid:textSize\n14sp\nDONE.\n"))
	if err != nil || len(attrs) != 2 || attrs[0] != (ThemeAttr{"android:colorPrimary", "#ff6200ee"}) {
		t.Fatalf("%v %+v", err, attrs)
	}
	if got := string(FormatTheme(attrs)); got != "android:colorPrimary\n#ff6200ee\nandroid:textSize\n14sp\nDONE.\n" {
		t.Errorf("FormatTheme %q", got)
	}
	for _, bad := range []string{"a\nb\n", "a\nDONE.\n"} {
		if _, err := ParseTheme([]byte(bad)); err == nil {
			t.Errorf("theme %q accepted", bad)
		}
	}
}

func TestFailCodes(t *testing.T) {
	for _, tc := range []struct {
		code int32
		msg  string
		want error
	}{
		{-1, "Unknown view root operation: 9", ErrUnknownOp},
		{-2, "Invalid View Root", ErrNoSuchWindow},
		{-2, "Invalid target view", ErrNoSuchView},
		{-2, "No such method: frob", ErrNoSuchMethod},
		{-2, "Invalid arguments", ErrBadArgument},
		{-3, "Error accessing field mFoo", ErrCallFailed},
		{1, "I/O error", ErrVMIO},
	} {
		err := error(FromFail(&ddm.FailError{Code: tc.code, Message: tc.msg}))
		if !errors.Is(err, tc.want) {
			t.Errorf("FAIL %d %q: %v, want %v", tc.code, tc.msg, err, tc.want)
		}
		for _, other := range []error{ErrUnknownOp, ErrNoSuchWindow, ErrNoSuchView, ErrNoSuchMethod, ErrBadArgument, ErrCallFailed, ErrVMIO} {
			if other != tc.want && errors.Is(err, other) {
				t.Errorf("FAIL %d %q also matches %v", tc.code, tc.msg, other)
			}
		}
	}
	if err := FromFail(&ddm.FailError{Code: 7, Message: "x"}); err.Error() != "FAIL 7: x" {
		t.Errorf("%v", err)
	}
	if got := FromFail(&ddm.FailError{Code: -2, Message: "Invalid target view"}).Error(); got != "no such view (FAIL -2: Invalid target view)" {
		t.Errorf("%q", got)
	}
}

func TestArgsAndReturn(t *testing.T) {
	for in, want := range map[string]ddm.ViewArg{
		"8": {Type: 'I', Value: 8}, "-1": {Type: 'I', Value: 0xffffffff}, "true": {Type: 'Z', Value: 1},
		"Z:false": {Type: 'Z'}, "F:0.5": {Type: 'F', Value: 0x3f000000}, "0.5": {Type: 'F', Value: 0x3f000000},
		"J:-2": {Type: 'J', Value: 0xfffffffffffffffe}, "C:x": {Type: 'C', Value: 'x'}, "S:-1": {Type: 'S', Value: 0xffff},
		"B:7": {Type: 'B', Value: 7}, "D:1": {Type: 'D', Value: 0x3ff0000000000000},
	} {
		got, err := ParseArg(in)
		if err != nil || got != want {
			t.Errorf("ParseArg(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"hello", "I:x", "B:300", "C:ab", "Q:1"} {
		if _, err := ParseArg(bad); err == nil {
			t.Errorf("ParseArg(%q) accepted", bad)
		}
	}
	for _, tc := range []struct {
		t    byte
		bits uint64
		want string
	}{{'V', 0, ""}, {'I', 0xfffffffe, "-2"}, {'Z', 1, "true"}, {'F', 0x3f000000, "0.5"}, {'J', 5, "5"}} {
		ret, err := DecodeReturn(EncodeReturn(tc.t, tc.bits))
		if err != nil || ret.Type != tc.t || ret.Value != tc.want {
			t.Errorf("%c: %+v %v", tc.t, ret, err)
		}
	}
	if got := EncodeReturn('I', 7); !bytes.Equal(got, []byte{0, 'I', 0, 0, 0, 7}) {
		t.Errorf("EncodeReturn %v", got)
	}
	for _, bad := range [][]byte{{0, 'I', 0}, {0, 'Q'}, {0, 'V', 1}, nil} {
		if _, err := DecodeReturn(bad); err == nil {
			t.Errorf("DecodeReturn(%v) accepted", bad)
		}
	}
}
