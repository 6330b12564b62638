package viewtree

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/internal/wire"
)

// What a FAIL chunk from the view debugging handler means
// (spec/viewdebug.md "Errors and silence").
var (
	ErrNoSuchWindow = errors.New("no such window")
	ErrNoSuchMethod = errors.New("no such method")
	ErrUnknownOp    = errors.New("operation unknown to this framework")
	ErrBadArgument  = errors.New("bad argument")
	ErrCallFailed   = errors.New("the call threw")
	ErrVMIO         = errors.New("I/O error in the VM")
	ErrNoWindows    = errors.New("no windows: the app has no activity up (waiting for a debugger, a service, or not an Android app)")
)

// FAIL codes of DdmHandleViewDebug.
const (
	FailUnknownOp   = -1
	FailBadArgument = -2
	FailThrew       = -3
	FailIO          = 1
)

// OpError is a FAIL the view debugging handler answered with; errors.Is
// matches what it means (ErrNoSuchView, ErrNoSuchWindow, ErrNoSuchMethod,
// ErrUnknownOp, ErrBadArgument, ErrCallFailed, ErrVMIO).
type OpError struct {
	Code    int32
	Message string
}

// FromFail classifies a FAIL chunk.
func FromFail(f *ddm.FailError) *OpError { return &OpError{Code: f.Code, Message: f.Message} }

func (e *OpError) kind() error {
	switch e.Code {
	case FailUnknownOp:
		return ErrUnknownOp
	case FailBadArgument:
		m := strings.ToLower(e.Message)
		switch {
		case strings.Contains(m, "target view"):
			return ErrNoSuchView
		case strings.Contains(m, "view root"):
			return ErrNoSuchWindow
		case strings.Contains(m, "no such method"):
			return ErrNoSuchMethod
		}
		return ErrBadArgument
	case FailThrew:
		return ErrCallFailed
	case FailIO:
		return ErrVMIO
	}
	return nil
}

func (e *OpError) Error() string {
	if k := e.kind(); k != nil {
		return fmt.Sprintf("%v (FAIL %d: %s)", k, e.Code, e.Message)
	}
	return fmt.Sprintf("FAIL %d: %s", e.Code, e.Message)
}

// Is matches the meaning of the FAIL.
func (e *OpError) Is(target error) bool { k := e.kind(); return k != nil && k == target }

// Timing is one view's profile (VUOP op 3): thread-CPU nanoseconds, -1 when
// the framework timed out.
type Timing struct {
	Measure, Layout, Draw int64
}

// ParseProfile reads a profile reply: one line `measure layout draw` per
// view of the subtree, pre-order, no DONE.
func ParseProfile(data []byte) ([]Timing, error) {
	var out []Timing
	for i, l := range lines(data) {
		if len(l) == 0 || string(l) == textDone {
			continue
		}
		if len(out) >= MaxNodes {
			return nil, fmt.Errorf("profile: %w", ErrTooMany)
		}
		f := strings.Fields(string(l))
		if len(f) != 3 {
			return nil, fmt.Errorf("profile: line %d: %d fields, want 3", i+1, len(f))
		}
		var t [3]int64
		for j, s := range f {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil || v < -1 {
				return nil, fmt.Errorf("profile: line %d: %q is not a time", i+1, clip([]byte(s)))
			}
			t[j] = v
		}
		out = append(out, Timing{t[0], t[1], t[2]})
	}
	return out, nil
}

// FormatProfile writes a profile reply as the framework does.
func FormatProfile(ts []Timing) []byte {
	var b []byte
	for _, t := range ts {
		b = fmt.Appendf(b, "%d %d %d\n", t.Measure, t.Layout, t.Draw)
	}
	return b
}

// ThemeAttr is one attribute of a dumped theme.
type ThemeAttr struct {
	Name, Value string
}

// ParseTheme reads a theme dump (VURT op 3): name and value lines
// alternating, then DONE.
func ParseTheme(data []byte) ([]ThemeAttr, error) {
	ls := lines(data)
	var out []ThemeAttr
	for i := 0; i < len(ls); i += 2 {
		if string(ls[i]) == textDone {
			return out, nil
		}
		if i+1 >= len(ls) {
			return nil, fmt.Errorf("theme: attribute %q has no value", clip(ls[i]))
		}
		if len(out) >= MaxNodes {
			return nil, fmt.Errorf("theme: %w", ErrTooMany)
		}
		out = append(out, ThemeAttr{string(ls[i]), string(ls[i+1])})
	}
	return nil, fmt.Errorf("theme: no DONE. after %d attributes", len(out))
}

// FormatTheme writes a theme dump.
func FormatTheme(attrs []ThemeAttr) []byte {
	var b []byte
	for _, a := range attrs {
		b = append(append(append(append(b, a.Name...), '\n'), a.Value...), '\n')
	}
	return append(b, textDone+"\n"...)
}

func lines(data []byte) [][]byte {
	ls := bytes.Split(bytes.TrimRight(data, "\n"), []byte{'\n'})
	for i, l := range ls {
		ls[i] = bytes.TrimSuffix(l, []byte{'\r'})
	}
	if len(ls) == 1 && len(ls[0]) == 0 {
		return nil
	}
	return ls
}

// ParseArg reads a method argument: TYPE:VALUE with a JNI type character
// (Z B C S I J F D; `I:8`, `Z:true`, `F:0.5`, `C:x`), or a bare value:
// true/false (Z), an integer (I), a decimal number (F).
func ParseArg(s string) (ddm.ViewArg, error) {
	t, v := byte(0), s
	if len(s) >= 2 && s[1] == ':' {
		t, v = s[0], s[2:]
	} else {
		switch {
		case s == "true" || s == "false":
			t = 'Z'
		case isInt(s):
			t = 'I'
		default:
			if _, err := strconv.ParseFloat(s, 32); err == nil {
				t = 'F'
			}
		}
	}
	bad := func(err error) (ddm.ViewArg, error) {
		return ddm.ViewArg{}, fmt.Errorf("argument %q: %v", s, err)
	}
	a := ddm.ViewArg{Type: uint16(t)}
	switch t {
	case 'Z':
		b, err := strconv.ParseBool(v)
		if err != nil {
			return bad(err)
		}
		if b {
			a.Value = 1
		}
	case 'B', 'S', 'I', 'J':
		bits := map[byte]int{'B': 8, 'S': 16, 'I': 32, 'J': 64}[t]
		n, err := strconv.ParseInt(v, 0, bits)
		if err != nil {
			return bad(err)
		}
		a.Value = uint64(n) & (1<<bits - 1)
		if bits == 64 {
			a.Value = uint64(n)
		}
	case 'C':
		r := []rune(v)
		if len(r) != 1 || r[0] > 0xffff {
			return bad(errors.New("a char is one UTF-16 unit"))
		}
		a.Value = uint64(r[0])
	case 'F':
		f, err := strconv.ParseFloat(v, 32)
		if err != nil {
			return bad(err)
		}
		a.Value = uint64(math.Float32bits(float32(f)))
	case 'D':
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return bad(err)
		}
		a.Value = math.Float64bits(f)
	default:
		return bad(errors.New("give its type: Z, B, C, S, I, J, F or D, as in I:8"))
	}
	return a, nil
}

func isInt(s string) bool {
	_, err := strconv.ParseInt(s, 0, 32)
	return err == nil
}

// Return is what an invoked method returned (API 34+; older frameworks
// send nothing).
type Return struct {
	Type  byte   // JNI type character, 'V' for void
	Value string // formatted; "" for void
}

// DecodeReturn reads an invoke reply: a u2 JNI type character and the
// value in that type's width.
func DecodeReturn(data []byte) (Return, error) {
	r := wire.NewReader(data, 0)
	t := r.U2("return type")
	ret := Return{Type: byte(t)}
	switch t {
	case 'V':
	case 'Z':
		ret.Value = strconv.FormatBool(r.U1("value") != 0)
	case 'B':
		ret.Value = strconv.Itoa(int(int8(r.U1("value"))))
	case 'C':
		ret.Value = string(rune(r.U2("value")))
	case 'S':
		ret.Value = strconv.Itoa(int(r.S2("value")))
	case 'I':
		ret.Value = strconv.Itoa(int(r.S4("value")))
	case 'J':
		ret.Value = strconv.FormatInt(int64(r.U8("value")), 10)
	case 'F':
		ret.Value = strconv.FormatFloat(float64(math.Float32frombits(r.U4("value"))), 'g', -1, 32)
	case 'D':
		ret.Value = strconv.FormatFloat(math.Float64frombits(r.U8("value")), 'g', -1, 64)
	default:
		if r.Err() == nil {
			return Return{}, fmt.Errorf("invoke reply: return type %#04x", t)
		}
	}
	if err := r.Err(); err != nil {
		return Return{}, fmt.Errorf("invoke reply: %w", err)
	}
	if r.Len() != 0 {
		return Return{}, fmt.Errorf("invoke reply: %d bytes after the value", r.Len())
	}
	return ret, nil
}

// EncodeReturn writes an invoke reply for a return value of type t with
// the value's bits.
func EncodeReturn(t byte, bits uint64) []byte {
	w := wire.Writer{}
	w.U2(uint16(t))
	switch t {
	case 'Z', 'B':
		w.U1(uint8(bits))
	case 'C', 'S':
		w.U2(uint16(bits))
	case 'I', 'F':
		w.U4(uint32(bits))
	case 'J', 'D':
		w.U8(bits)
	}
	return w.B
}
