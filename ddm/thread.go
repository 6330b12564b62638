package ddm

import (
	"encoding/binary"
	"strings"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// ThreadNotifyRequest is THEN: turn thread notifications on or off. On
// enable the VM sends THCR for every thread before its empty reply
// (spec/ddm-chunks.md §6.1).
type ThreadNotifyRequest struct {
	Enable bool
}

// ChunkType returns TypeTHEN.
func (*ThreadNotifyRequest) ChunkType() Type { return TypeTHEN }

// AppendBody appends u1 1 or 0.
func (m *ThreadNotifyRequest) AppendBody(b []byte) []byte { return appendBool(b, m.Enable) }

// DecodeThreadNotifyRequest decodes a THEN body.
func DecodeThreadNotifyRequest(body []byte) (*ThreadNotifyRequest, error) {
	r := wire.NewReader(body, 0)
	m := &ThreadNotifyRequest{Enable: r.Bool("enable")}
	return finish(TypeTHEN, m, r)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

// ThreadCreated is the unsolicited THCR chunk (spec/ddm-chunks.md §6.2). ID
// is the VM's small thread id, not the Linux tid.
type ThreadCreated struct {
	ID   uint32
	Name string
}

// ChunkType returns TypeTHCR.
func (*ThreadCreated) ChunkType() Type { return TypeTHCR }

// AppendBody appends u4 id and the DDM string name.
func (m *ThreadCreated) AppendBody(b []byte) []byte { return appendIDName(b, m.ID, m.Name) }

// DecodeThreadCreated decodes a THCR body.
func DecodeThreadCreated(body []byte) (*ThreadCreated, error) {
	r := wire.NewReader(body, 0)
	m := &ThreadCreated{ID: r.U4("thread id"), Name: r.DDMString("thread name")}
	return finish(TypeTHCR, m, r)
}

// ThreadDied is the unsolicited THDE chunk: u4 thread id.
type ThreadDied struct {
	ID uint32
}

// ChunkType returns TypeTHDE.
func (*ThreadDied) ChunkType() Type { return TypeTHDE }

// AppendBody appends the thread id.
func (m *ThreadDied) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	w.U4(m.ID)
	return w.B
}

// DecodeThreadDied decodes a THDE body.
func DecodeThreadDied(body []byte) (*ThreadDied, error) {
	r := wire.NewReader(body, 0)
	m := &ThreadDied{ID: r.U4("thread id")}
	return finish(TypeTHDE, m, r)
}

// ThreadRenamed is the unsolicited THNM chunk: the thread's new name.
type ThreadRenamed struct {
	ID   uint32
	Name string
}

// ChunkType returns TypeTHNM.
func (*ThreadRenamed) ChunkType() Type { return TypeTHNM }

// AppendBody appends u4 id and the DDM string name.
func (m *ThreadRenamed) AppendBody(b []byte) []byte { return appendIDName(b, m.ID, m.Name) }

// DecodeThreadRenamed decodes a THNM body.
func DecodeThreadRenamed(body []byte) (*ThreadRenamed, error) {
	r := wire.NewReader(body, 0)
	m := &ThreadRenamed{ID: r.U4("thread id"), Name: r.DDMString("thread name")}
	return finish(TypeTHNM, m, r)
}

func appendIDName(b []byte, id uint32, name string) []byte {
	w := wire.Writer{B: b}
	w.U4(id)
	w.DDMString(name)
	return w.B
}

// ThreadStatusRequest is the THST request. Real VMs take an empty body (the
// draft's u4 interval was never implemented; spec/ddm-chunks.md §6.3).
type ThreadStatusRequest struct{}

// ChunkType returns TypeTHST.
func (*ThreadStatusRequest) ChunkType() Type { return TypeTHST }

// AppendBody appends nothing.
func (*ThreadStatusRequest) AppendBody(b []byte) []byte { return b }

// DecodeThreadStatusRequest decodes a THST request (empty body).
func DecodeThreadStatusRequest(body []byte) (*ThreadStatusRequest, error) {
	return decodeEmpty[ThreadStatusRequest](TypeTHST, body)
}

// THST layout sizes as VMs send them (spec/ddm-chunks.md §6.3).
const (
	THSTHeaderLen   = 4  // u1 headerLen, u1 bytesPerEntry, u2 count
	THSTEntryLen    = 18 // the entry with the daemon byte
	thstMinEntryLen = 17 // ddmlib reads the daemon byte only from 18 on
)

// ThreadStatusTable is the THST reply in the layout real VMs send: a
// self-describing header, then fixed-size entries (spec/ddm-chunks.md §6.3).
type ThreadStatusTable struct {
	// HeaderLen and EntryLen are the sizes the VM announced. Bytes beyond
	// the known fields are skipped when decoding and written as zeros.
	// When encoding, HeaderLen below 4 means 4 and EntryLen below 17 means
	// 18; with EntryLen 17 the daemon byte is absent.
	HeaderLen uint8
	EntryLen  uint8
	Threads   []ThreadStatus
}

// ThreadStatus is one THST entry.
type ThreadStatus struct {
	ID     uint32 // VM thread id, as in THCR
	Status int8   // VM-family specific, see StatusName; ddmlib reads it signed
	SysTID uint32 // Linux tid
	UTime  uint32 // user time, clock ticks (normally 1/100 s)
	STime  uint32 // system time, same unit
	Daemon bool
}

// ChunkType returns TypeTHST.
func (*ThreadStatusTable) ChunkType() Type { return TypeTHST }

func (m *ThreadStatusTable) lens() (header, entry int) {
	header, entry = int(m.HeaderLen), int(m.EntryLen)
	if header < THSTHeaderLen {
		header = THSTHeaderLen
	}
	if entry < thstMinEntryLen {
		entry = THSTEntryLen
	}
	return header, entry
}

// AppendBody appends the header and entries. At most 65535 threads fit in
// the u2 count; later entries are not written.
func (m *ThreadStatusTable) AppendBody(b []byte) []byte {
	header, entry := m.lens()
	threads := m.Threads
	if len(threads) > 0xFFFF {
		threads = threads[:0xFFFF]
	}
	w := wire.Writer{B: b}
	w.U1(uint8(header))
	w.U1(uint8(entry))
	w.U2(uint16(len(threads)))
	w.B = appendZeros(w.B, header-THSTHeaderLen)
	for i := range threads {
		t := &threads[i]
		w.U4(t.ID)
		w.U1(uint8(t.Status))
		w.U4(t.SysTID)
		w.U4(t.UTime)
		w.U4(t.STime)
		if entry >= THSTEntryLen {
			w.Bool(t.Daemon)
		}
		w.B = appendZeros(w.B, entry-THSTEntryLen)
	}
	return w.B
}

func appendZeros(b []byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, 0)
	}
	return b
}

// DecodeThreadStatusTable decodes a THST reply, honouring the header and
// entry sizes it announces.
func DecodeThreadStatusTable(body []byte) (*ThreadStatusTable, error) {
	e, err := ParseThreadStatusEntries(body)
	if err != nil {
		return nil, err
	}
	m := &ThreadStatusTable{HeaderLen: e.HeaderLen, EntryLen: e.EntryLen}
	if n := e.Len(); n > 0 {
		m.Threads = make([]ThreadStatus, n)
		for i := range m.Threads {
			t := &m.Threads[i]
			t.ID, t.Status, t.SysTID, t.UTime, t.STime, t.Daemon = e.Fields(i)
		}
	}
	return m, nil
}

// ThreadStatusEntries is a THST reply whose header and size were checked,
// its entries read in place when asked for: a poller applies a table
// without decoding it into a slice first.
type ThreadStatusEntries struct {
	HeaderLen, EntryLen uint8 // as announced
	data                []byte
	n                   int
}

// ParseThreadStatusEntries checks a THST reply as DecodeThreadStatusTable
// does (header and entry sizes, the count against the bytes, nothing after
// the entries) and returns its entries, still in body.
func ParseThreadStatusEntries(body []byte) (ThreadStatusEntries, error) {
	r := wire.NewReader(body, 0)
	e := ThreadStatusEntries{HeaderLen: r.U1("header length"), EntryLen: r.U1("bytes per entry")}
	count := r.U2("thread count")
	if r.Err() == nil && e.HeaderLen < THSTHeaderLen {
		r.Failf("header length", "%d, at least %d needed", e.HeaderLen, THSTHeaderLen)
	}
	if r.Err() == nil && e.EntryLen < thstMinEntryLen {
		r.Failf("bytes per entry", "%d, at least %d needed", e.EntryLen, thstMinEntryLen)
	}
	r.Skip(int(e.HeaderLen)-THSTHeaderLen, "header padding")
	e.n = r.Count(uint64(count), int(e.EntryLen), "thread count")
	if e.n > 0 {
		e.data = r.Bytes(e.n*int(e.EntryLen), "thread entries")
	}
	if _, err := finish(TypeTHST, &e, r); err != nil {
		return ThreadStatusEntries{}, err
	}
	return e, nil
}

// Len is the number of entries.
func (e *ThreadStatusEntries) Len() int { return e.n }

// At returns entry i (0 <= i < Len).
func (e *ThreadStatusEntries) At(i int) ThreadStatus {
	id, status, tid, utime, stime, daemon := e.Fields(i)
	return ThreadStatus{ID: id, Status: status, SysTID: tid, UTime: utime, STime: stime, Daemon: daemon}
}

// Fields returns the fields of entry i (0 <= i < Len) as At does, as
// values: a loop over a table keeps them in registers, where a ThreadStatus
// built field by field and read back whole would stall on the stores.
func (e *ThreadStatusEntries) Fields(i int) (id uint32, status int8, tid, utime, stime uint32, daemon bool) {
	el := int(e.EntryLen)
	p := e.data[i*el:]
	_ = p[thstMinEntryLen-1] // one bounds check for the fields
	return binary.BigEndian.Uint32(p), int8(p[4]), binary.BigEndian.Uint32(p[5:]),
		binary.BigEndian.Uint32(p[9:]), binary.BigEndian.Uint32(p[13:]), el >= THSTEntryLen && p[17] != 0
}

// StackTraceRequest is the STKL request: u4 thread id (spec/ddm-chunks.md
// §6.4).
type StackTraceRequest struct {
	ThreadID uint32
}

// ChunkType returns TypeSTKL.
func (*StackTraceRequest) ChunkType() Type { return TypeSTKL }

// AppendBody appends the thread id.
func (m *StackTraceRequest) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	w.U4(m.ThreadID)
	return w.B
}

// DecodeStackTraceRequest decodes an STKL request.
func DecodeStackTraceRequest(body []byte) (*StackTraceRequest, error) {
	r := wire.NewReader(body, 0)
	m := &StackTraceRequest{ThreadID: r.U4("thread id")}
	return finish(TypeSTKL, m, r)
}

// Line numbers with a special meaning in StackFrame.Line, as in Java's
// StackTraceElement.
const (
	LineUnknown = -1
	LineNative  = -2
)

// StackTrace is the STKL reply: one thread's stack.
type StackTrace struct {
	Reserved uint32 // always 0 on real VMs
	ThreadID uint32
	Frames   []StackFrame
}

// StackFrame is one STKL frame.
type StackFrame struct {
	Class  string // dot form, "java.lang.Thread"
	Method string
	File   string // "" when unknown
	Line   int32  // LineNative, LineUnknown or a line number
}

// ChunkType returns TypeSTKL.
func (*StackTrace) ChunkType() Type { return TypeSTKL }

// AppendBody appends the reply layout.
func (m *StackTrace) AppendBody(b []byte) []byte {
	w := wire.Writer{B: b}
	w.U4(m.Reserved)
	w.U4(m.ThreadID)
	w.U4(uint32(len(m.Frames)))
	for i := range m.Frames {
		f := &m.Frames[i]
		w.DDMString(f.Class)
		w.DDMString(f.Method)
		w.DDMString(f.File)
		w.S4(f.Line)
	}
	return w.B
}

// stklMinFrame is the size of a frame with three empty strings.
const stklMinFrame = 4 + 4 + 4 + 4

// DecodeStackTrace decodes an STKL reply.
func DecodeStackTrace(body []byte) (*StackTrace, error) {
	r := wire.NewReader(body, 0)
	m := &StackTrace{Reserved: r.U4("reserved"), ThreadID: r.U4("thread id")}
	n := r.Count(uint64(r.U4("frame count")), stklMinFrame, "frame count")
	if n > 0 {
		m.Frames = make([]StackFrame, n)
	}
	for i := range m.Frames {
		f := &m.Frames[i]
		f.Class = r.DDMString("class name")
		f.Method = r.DDMString("method name")
		f.File = r.DDMString("file name")
		f.Line = r.S4("line number")
	}
	return finish(TypeSTKL, m, r)
}

// VMFamily tells which thread status scale a VM uses (spec/ddm-chunks.md
// §6.5).
type VMFamily uint8

// VM families.
const (
	FamilyUnknown VMFamily = iota
	FamilyDalvik           // HELO VM ident "Dalvik v1.*": raw Dalvik thread states 0..9
	FamilyART              // HELO VM ident "Dalvik v2.*": JDWP thread status 0..4
)

// String returns "Dalvik", "ART" or "unknown".
func (f VMFamily) String() string {
	switch f {
	case FamilyDalvik:
		return "Dalvik"
	case FamilyART:
		return "ART"
	}
	return "unknown"
}

// FamilyFromVMIdent classifies a HELO VM ident: "Dalvik v1.*" is Dalvik,
// "Dalvik v2.*" is ART (ART keeps the name "Dalvik"), anything else is
// unknown.
func FamilyFromVMIdent(ident string) VMFamily {
	switch {
	case strings.HasPrefix(ident, "Dalvik v1."):
		return FamilyDalvik
	case strings.HasPrefix(ident, "Dalvik v2."):
		return FamilyART
	}
	return FamilyUnknown
}

var (
	dalvikStatusNames = [...]string{"zombie", "running", "timed-wait", "monitor", "wait",
		"initializing", "starting", "native", "vmwait", "suspended"}
	artStatusNames = [...]string{"zombie", "running", "sleeping", "monitor", "wait"}
)

// StatusName returns the lower-case name of a THST status value for a VM
// family, or "unknown" outside that family's range. A VM of unknown family
// gets Dalvik's names, which are the labels DDMS showed for every VM.
func StatusName(family VMFamily, status int) string {
	names := dalvikStatusNames[:]
	if family == FamilyART {
		names = artStatusNames[:]
	}
	if status < 0 || status >= len(names) {
		return "unknown"
	}
	return names[status]
}
