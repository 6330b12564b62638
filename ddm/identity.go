package ddm

import (
	"fmt"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// ServerProtocolVersion is the version a monitor sends in HELO (ddmlib's
// Client.SERVER_PROTOCOL_VERSION).
const ServerProtocolVersion = 1

// HelloRequest is the HELO request a monitor sends first (spec/ddm-chunks.md
// §5.1).
type HelloRequest struct {
	ServerVersion uint32
}

// ChunkType returns TypeHELO.
func (*HelloRequest) ChunkType() Type { return TypeHELO }

// AppendBody appends u4 server protocol version.
func (m *HelloRequest) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	w.U4(m.ServerVersion)
	return w.B
}

// DecodeHelloRequest decodes a HELO request body.
func DecodeHelloRequest(body []byte) (*HelloRequest, error) {
	r := wire.NewReader(body, 0)
	m := &HelloRequest{ServerVersion: r.U4("server protocol version")}
	return finish(TypeHELO, m, r)
}

// HelloExtent says how many of HELO's optional trailing fields a reply
// carries. The fields were appended over the years; each is present only
// if all earlier ones are (spec/ddm-chunks.md §5.1, fields 7 to 11).
type HelloExtent uint8

// HELO reply extents, in wire order.
const (
	HelloBasic            HelloExtent = iota // fields 1 to 6 only
	HelloUserID                              // + user id (Android 4.2)
	HelloABI                                 // + ABI description (Android 5.0)
	HelloJVMFlags                            // + JVM flags (Android 5.0)
	HelloNativeDebuggable                    // + native-debuggable byte (Android 7)
	HelloPackageName                         // + package name (Android 10 era)
)

// Hello is a VM's HELO reply (spec/ddm-chunks.md §5.1).
type Hello struct {
	ClientVersion uint32
	PID           uint32
	VMIdent       string // e.g. "Dalvik v2.1.0"; see FamilyFromVMIdent
	AppName       string

	// Extent records which optional fields were present; fields beyond it
	// are zero and are not encoded.
	Extent           HelloExtent
	UserID           uint32
	ABI              string // e.g. "64-bit (arm64)"
	JVMFlags         string // e.g. "CheckJNI=false"
	NativeDebuggable bool
	PackageName      string

	// Extra holds bytes after the package name: fields of a newer VM that
	// this decoder does not know. It is encoded only when Extent is
	// HelloPackageName.
	Extra []byte
}

// ChunkType returns TypeHELO.
func (*Hello) ChunkType() Type { return TypeHELO }

// AppendBody appends the reply layout up to m.Extent. Note that VM ident and
// app name are not DDM strings: both lengths come first.
func (m *Hello) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	w.U4(m.ClientVersion)
	w.U4(m.PID)
	w.U4(uint32(wire.UTF16Len(m.VMIdent)))
	w.U4(uint32(wire.UTF16Len(m.AppName)))
	w.UTF16(m.VMIdent)
	w.UTF16(m.AppName)
	if m.Extent >= HelloUserID {
		w.U4(m.UserID)
	}
	if m.Extent >= HelloABI {
		w.DDMString(m.ABI)
	}
	if m.Extent >= HelloJVMFlags {
		w.DDMString(m.JVMFlags)
	}
	if m.Extent >= HelloNativeDebuggable {
		w.Bool(m.NativeDebuggable)
	}
	if m.Extent >= HelloPackageName {
		w.DDMString(m.PackageName)
		w.Bytes(m.Extra)
	}
	return w.B
}

// DecodeHello decodes a HELO reply. It stops cleanly at the end of the body
// before any optional field, as ddmlib does, but a field that starts and
// is cut short is an error.
func DecodeHello(body []byte) (*Hello, error) {
	r := wire.NewReader(body, 0)
	m := &Hello{
		ClientVersion: r.U4("client protocol version"),
		PID:           r.U4("pid"),
	}
	identLen := r.U4("VM ident length")
	appLen := r.U4("app name length")
	m.VMIdent = r.UTF16(identLen, "VM ident")
	m.AppName = r.UTF16(appLen, "app name")
	if r.Len() > 0 {
		m.Extent, m.UserID = HelloUserID, r.U4("user id")
	}
	if r.Len() > 0 {
		m.Extent, m.ABI = HelloABI, r.DDMString("ABI")
	}
	if r.Len() > 0 {
		m.Extent, m.JVMFlags = HelloJVMFlags, r.DDMString("JVM flags")
	}
	if r.Len() > 0 {
		m.Extent, m.NativeDebuggable = HelloNativeDebuggable, r.Bool("native debuggable")
	}
	if r.Len() > 0 {
		m.Extent, m.PackageName = HelloPackageName, r.DDMString("package name")
		m.Extra = rawData(r.Rest())
	}
	return finish(TypeHELO, m, r)
}

// FeaturesRequest is the FEAT request; it has no body (§5.2).
type FeaturesRequest struct{}

// ChunkType returns TypeFEAT.
func (*FeaturesRequest) ChunkType() Type { return TypeFEAT }

// AppendBody appends nothing.
func (*FeaturesRequest) AppendBody(b []byte) []byte { return b }

// DecodeFeaturesRequest decodes a FEAT request (empty body).
func DecodeFeaturesRequest(body []byte) (*FeaturesRequest, error) {
	return decodeEmpty[FeaturesRequest](TypeFEAT, body)
}

// Feature names a VM lists in its FEAT reply (spec/ddm-chunks.md §5.2).
const (
	FeatureMethodTrace          = "method-trace-profiling"           // MPRS/MPRE
	FeatureMethodTraceStreaming = "method-trace-profiling-streaming" // MPSS/MPSE
	FeatureMethodSampling       = "method-sample-profiling"          // SPSS/SPSE
	FeatureHeapDump             = "hprof-heap-dump"                  // HPDU
	FeatureHeapDumpStreaming    = "hprof-heap-dump-streaming"        // HPDS
	FeatureOpenGLTracing        = "opengl-tracing"                   // VUGL
	FeatureViewHierarchy        = "view-hierarchy"                   // VULW/VURT/VUOP
)

// Features is the FEAT reply: u4 count, then count DDM strings.
type Features struct {
	Names []string
}

// ChunkType returns TypeFEAT.
func (*Features) ChunkType() Type { return TypeFEAT }

// AppendBody appends the count and the names.
func (m *Features) AppendBody(b []byte) []byte { return appendStrings(b, m.Names) }

// Has reports whether name is in the list.
func (m *Features) Has(name string) bool {
	for _, n := range m.Names {
		if n == name {
			return true
		}
	}
	return false
}

// DecodeFeatures decodes a FEAT reply.
func DecodeFeatures(body []byte) (*Features, error) {
	r := wire.NewReader(body, 0)
	m := &Features{Names: readStrings(r, "feature")}
	return finish(TypeFEAT, m, r)
}

// AppNameExtent says which of APNM's optional trailing fields are present.
type AppNameExtent uint8

// APNM extents, in wire order (spec/ddm-chunks.md §5.3).
const (
	AppNameOnly        AppNameExtent = iota // app name only
	AppNameUserID                           // + user id (Android 4.2)
	AppNamePackageName                      // + package name (Android 10 era)
)

// AppName is the unsolicited APNM chunk: the process got its real name
// (spec/ddm-chunks.md §5.3).
type AppName struct {
	Name        string
	Extent      AppNameExtent
	UserID      uint32
	PackageName string
	Extra       []byte // bytes after the package name, encoded only at AppNamePackageName
}

// ChunkType returns TypeAPNM.
func (*AppName) ChunkType() Type { return TypeAPNM }

// AppendBody appends the name and the optional fields up to m.Extent.
func (m *AppName) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	w.DDMString(m.Name)
	if m.Extent >= AppNameUserID {
		w.U4(m.UserID)
	}
	if m.Extent >= AppNamePackageName {
		w.DDMString(m.PackageName)
		w.Bytes(m.Extra)
	}
	return w.B
}

// DecodeAppName decodes an APNM body, stopping cleanly before any optional
// field.
func DecodeAppName(body []byte) (*AppName, error) {
	r := wire.NewReader(body, 0)
	m := &AppName{Name: r.DDMString("app name")}
	if r.Len() > 0 {
		m.Extent, m.UserID = AppNameUserID, r.U4("user id")
	}
	if r.Len() > 0 {
		m.Extent, m.PackageName = AppNamePackageName, r.DDMString("package name")
		m.Extra = rawData(r.Rest())
	}
	return finish(TypeAPNM, m, r)
}

// WaitForDebugger is the only WAIT reason ever defined.
const WaitForDebugger = 0

// Wait is the unsolicited WAIT chunk: u1 reason (spec/ddm-chunks.md §5.4).
type Wait struct {
	Reason uint8
}

// ChunkType returns TypeWAIT.
func (*Wait) ChunkType() Type { return TypeWAIT }

// AppendBody appends the reason byte.
func (m *Wait) AppendBody(b []byte) []byte { return append(b, m.Reason) }

// DecodeWait decodes a WAIT body.
func DecodeWait(body []byte) (*Wait, error) {
	r := wire.NewReader(body, 0)
	m := &Wait{Reason: r.U1("reason")}
	return finish(TypeWAIT, m, r)
}

// ExitRequest is the EXIT request: the VM calls Runtime.halt(Status)
// (spec/ddm-chunks.md §5.5). The wire field is a u4; it is kept signed
// because it becomes a Java int exit status.
type ExitRequest struct {
	Status int32
}

// ChunkType returns TypeEXIT.
func (*ExitRequest) ChunkType() Type { return TypeEXIT }

// AppendBody appends the status.
func (m *ExitRequest) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	w.S4(m.Status)
	return w.B
}

// DecodeExitRequest decodes an EXIT body.
func DecodeExitRequest(body []byte) (*ExitRequest, error) {
	r := wire.NewReader(body, 0)
	m := &ExitRequest{Status: r.S4("exit status")}
	return finish(TypeEXIT, m, r)
}

// FailError is the FAIL chunk, the reply form of any request that failed
// (spec/ddm-chunks.md §5.6). It is also the Go error a session returns for
// such a reply.
type FailError struct {
	Code    int32 // handler-specific: mostly 1; view debugging uses -1, -2, -3
	Message string
}

// Error describes the failure.
func (e *FailError) Error() string {
	return fmt.Sprintf("VM reported failure %d: %s", e.Code, e.Message)
}

// ChunkType returns TypeFAIL.
func (*FailError) ChunkType() Type { return TypeFAIL }

// AppendBody appends s4 code, u4 length, UTF-16BE message.
func (e *FailError) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	w.S4(e.Code)
	w.DDMString(e.Message)
	return w.B
}

// DecodeFail decodes a FAIL body.
func DecodeFail(body []byte) (*FailError, error) {
	r := wire.NewReader(body, 0)
	m := &FailError{Code: r.S4("error code"), Message: r.DDMString("message")}
	return finish(TypeFAIL, m, r)
}

// TestChunk is the debug-only TEST chunk; its body has no defined layout and is
// kept as sent.
type TestChunk struct {
	Data []byte
}

// ChunkType returns TypeTEST.
func (*TestChunk) ChunkType() Type { return TypeTEST }

// AppendBody appends the data.
func (m *TestChunk) AppendBody(b []byte) []byte { return append(b, m.Data...) }

// DecodeTestChunk keeps a TEST body as it is.
func DecodeTestChunk(body []byte) (*TestChunk, error) { return &TestChunk{Data: rawData(body)}, nil }
