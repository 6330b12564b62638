package ddm

import (
	"fmt"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// ViewWindowsRequest is VULW: list the app's window roots
// (spec/ddm-chunks.md §9). ddmlib sends u4 1, which the VM ignores.
type ViewWindowsRequest struct {
	Arg uint32
}

// ChunkType returns TypeVULW.
func (*ViewWindowsRequest) ChunkType() Type { return TypeVULW }

// AppendBody appends the u4 argument.
func (m *ViewWindowsRequest) AppendBody(b []byte) []byte { return appendU4(b, m.Arg) }

// DecodeViewWindowsRequest decodes a VULW request.
func DecodeViewWindowsRequest(body []byte) (*ViewWindowsRequest, error) {
	r := wire.NewReader(body, 0)
	m := &ViewWindowsRequest{Arg: r.U4("argument")}
	return finish(TypeVULW, m, r)
}

// ViewWindows is the VULW reply: u4 count, then DDM string window names.
type ViewWindows struct {
	Names []string
}

// ChunkType returns TypeVULW.
func (*ViewWindows) ChunkType() Type { return TypeVULW }

// AppendBody appends the count and the names.
func (m *ViewWindows) AppendBody(b []byte) []byte { return appendStrings(b, m.Names) }

// DecodeViewWindows decodes a VULW reply.
func DecodeViewWindows(body []byte) (*ViewWindows, error) {
	r := wire.NewReader(body, 0)
	m := &ViewWindows{Names: readStrings(r, "window name")}
	return finish(TypeVULW, m, r)
}

// VURT operations.
const (
	ViewDumpHierarchy = 1 // text reply; takes skip-children and include-properties words
	ViewCaptureLayers = 2 // binary record stream reply
	ViewDumpTheme     = 3 // text reply
)

// ViewRootRequest is VURT: an operation on a window root.
type ViewRootRequest struct {
	Op       uint32
	ViewRoot string

	// ViewDumpHierarchy only. The VM reads each u4 as "> 0".
	SkipChildren      bool
	IncludeProperties bool
	HasV2             bool // a third word is present (newer frameworks)
	V2                bool
}

// ChunkType returns TypeVURT.
func (*ViewRootRequest) ChunkType() Type { return TypeVURT }

func appendFlag(w *wire.Writer, v bool) {
	if v {
		w.U4(1)
	} else {
		w.U4(0)
	}
}

func readFlag(r *wire.Reader, what string) bool { return int32(r.U4(what)) > 0 }

// AppendBody appends u4 op, DDM string root and the op's parameters.
func (m *ViewRootRequest) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	w.U4(m.Op)
	w.DDMString(m.ViewRoot)
	if m.Op == ViewDumpHierarchy {
		appendFlag(&w, m.SkipChildren)
		appendFlag(&w, m.IncludeProperties)
		if m.HasV2 {
			appendFlag(&w, m.V2)
		}
	}
	return w.B
}

// DecodeViewRootRequest decodes a VURT request. Operations other than
// ViewDumpHierarchy carry no parameters.
func DecodeViewRootRequest(body []byte) (*ViewRootRequest, error) {
	r := wire.NewReader(body, 0)
	m := &ViewRootRequest{Op: r.U4("op"), ViewRoot: r.DDMString("view root")}
	if m.Op == ViewDumpHierarchy {
		m.SkipChildren = readFlag(r, "skip children")
		m.IncludeProperties = readFlag(r, "include properties")
		if r.Len() > 0 {
			m.HasV2, m.V2 = true, readFlag(r, "v2")
		}
	}
	return finish(TypeVURT, m, r)
}

// ViewRootData is the VURT reply: raw bytes from ViewDebug (text for
// ViewDumpHierarchy and ViewDumpTheme, a record stream for
// ViewCaptureLayers). Data aliases the chunk body.
type ViewRootData struct {
	Data []byte
}

// ChunkType returns TypeVURT.
func (*ViewRootData) ChunkType() Type { return TypeVURT }

// AppendBody appends the data.
func (m *ViewRootData) AppendBody(b []byte) []byte { return append(b, m.Data...) }

// DecodeViewRootData wraps a VURT reply body.
func DecodeViewRootData(body []byte) (*ViewRootData, error) {
	return &ViewRootData{Data: rawData(body)}, nil
}

// VUOP operations.
const (
	ViewCapture          = 1 // reply: PNG bytes
	ViewDumpDisplayList  = 2 // no data; output goes to logcat
	ViewProfile          = 3 // reply: text
	ViewInvokeMethod     = 4 // Method and Args
	ViewSetLayoutParam   = 5 // Param and Value
	viewArgMinLen        = 2 + 1
	viewMaxArgValueBytes = 8
)

// VUOP operations of the 2013 handler (Android 4.4), which take no data
// (spec/viewdebug.md "Versions"); ViewCapture and ViewDumpDisplayList keep
// their numbers. Frameworks since Android 5 use the numbering above.
const (
	ViewLegacyInvalidate    = 3
	ViewLegacyRequestLayout = 4
	ViewLegacyProfile       = 5
)

// ViewOpRequest is VUOP: an operation on one view ("class@hash") under a
// window root.
type ViewOpRequest struct {
	Op       uint32
	ViewRoot string
	View     string

	Method string    // ViewInvokeMethod only
	Args   []ViewArg // ViewInvokeMethod only

	Param string // ViewSetLayoutParam only
	Value int32  // ViewSetLayoutParam only

	// Legacy: the op is in the 2013 numbering (ViewLegacy…): no data
	// follows the view's name.
	Legacy bool
}

// ViewArg is one ViewInvokeMethod argument: a JNI type character sent as a
// u2 ('Z', 'B', 'C', 'S', 'I', 'F', 'J' or 'D') and its value's bits.
type ViewArg struct {
	Type  uint16
	Value uint64 // raw bits, the type's width (1, 2, 4 or 8 bytes)
}

// viewArgWidth is the value size for a JNI type character, 0 if unknown.
func viewArgWidth(t uint16) int {
	switch t {
	case 'Z', 'B':
		return 1
	case 'C', 'S':
		return 2
	case 'I', 'F':
		return 4
	case 'J', 'D':
		return 8
	}
	return 0
}

// ChunkType returns TypeVUOP.
func (*ViewOpRequest) ChunkType() Type { return TypeVUOP }

// AppendBody appends u4 op, DDM strings root and view, then the op's data.
// An argument of an unknown type is written as its type alone.
func (m *ViewOpRequest) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	w.U4(m.Op)
	w.DDMString(m.ViewRoot)
	w.DDMString(m.View)
	if m.Legacy {
		return w.B
	}
	switch m.Op {
	case ViewInvokeMethod:
		w.DDMString(m.Method)
		w.U4(uint32(len(m.Args)))
		for _, a := range m.Args {
			w.U2(a.Type)
			w.ID(viewArgWidth(a.Type), a.Value)
		}
	case ViewSetLayoutParam:
		w.DDMString(m.Param)
		w.S4(m.Value)
	}
	return w.B
}

// DecodeLegacyViewOpRequest decodes a VUOP request in the 2013 numbering
// (as Android 4.4 reads it): the op, root and view, and nothing else.
func DecodeLegacyViewOpRequest(body []byte) (*ViewOpRequest, error) {
	r := wire.NewReader(body, 0)
	m := &ViewOpRequest{Op: r.U4("op"), ViewRoot: r.DDMString("view root"), View: r.DDMString("view"), Legacy: true}
	return finish(TypeVUOP, m, r)
}

// DecodeViewOpRequest decodes a VUOP request. Operations other than
// ViewInvokeMethod and ViewSetLayoutParam carry no data; an argument type
// outside the JNI primitive characters is an error.
func DecodeViewOpRequest(body []byte) (*ViewOpRequest, error) {
	r := wire.NewReader(body, 0)
	m := &ViewOpRequest{Op: r.U4("op"), ViewRoot: r.DDMString("view root"), View: r.DDMString("view")}
	switch m.Op {
	case ViewInvokeMethod:
		m.Method = r.DDMString("method name")
		n := r.Count(uint64(r.U4("argument count")), viewArgMinLen, "argument count")
		if n > 0 {
			m.Args = make([]ViewArg, n)
		}
		for i := range m.Args {
			a := &m.Args[i]
			a.Type = r.U2("argument type")
			width := viewArgWidth(a.Type)
			if width == 0 && r.Err() == nil {
				r.Fail("argument type", fmt.Errorf("%#04x is not a JNI primitive type", a.Type))
			}
			a.Value = r.ID(width, "argument value")
		}
	case ViewSetLayoutParam:
		m.Param = r.DDMString("parameter name")
		m.Value = r.S4("parameter value")
	}
	return finish(TypeVUOP, m, r)
}

// ViewOpData is the VUOP reply: PNG bytes for ViewCapture, text for
// ViewProfile. Data aliases the chunk body.
type ViewOpData struct {
	Data []byte
}

// ChunkType returns TypeVUOP.
func (*ViewOpData) ChunkType() Type { return TypeVUOP }

// AppendBody appends the data.
func (m *ViewOpData) AppendBody(b []byte) []byte { return append(b, m.Data...) }

// DecodeViewOpData wraps a VUOP reply body.
func DecodeViewOpData(body []byte) (*ViewOpData, error) {
	return &ViewOpData{Data: rawData(body)}, nil
}

// GLTracingRequest is VUGL: OpenGL tracing on or off (u4 1/0). No reply.
type GLTracingRequest struct {
	Enable bool
}

// ChunkType returns TypeVUGL.
func (*GLTracingRequest) ChunkType() Type { return TypeVUGL }

// AppendBody appends u4 1 or 0.
func (m *GLTracingRequest) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	appendFlag(&w, m.Enable)
	return w.B
}

// DecodeGLTracingRequest decodes a VUGL request; any non-zero word enables.
func DecodeGLTracingRequest(body []byte) (*GLTracingRequest, error) {
	r := wire.NewReader(body, 0)
	m := &GLTracingRequest{Enable: r.U4("enable") != 0}
	return finish(TypeVUGL, m, r)
}
