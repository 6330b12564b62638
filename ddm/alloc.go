package ddm

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// AllocTrackerEnableRequest is REAE: allocation tracking on or off; the
// reply is empty (spec/ddm-chunks.md §7.7).
type AllocTrackerEnableRequest struct {
	Enable bool
}

// ChunkType returns TypeREAE.
func (*AllocTrackerEnableRequest) ChunkType() Type { return TypeREAE }

// AppendBody appends u1 1 or 0.
func (m *AllocTrackerEnableRequest) AppendBody(b []byte) []byte { return appendBool(b, m.Enable) }

// DecodeAllocTrackerEnableRequest decodes a REAE request.
func DecodeAllocTrackerEnableRequest(body []byte) (*AllocTrackerEnableRequest, error) {
	r := wire.NewReader(body, 0)
	m := &AllocTrackerEnableRequest{Enable: r.Bool("enable")}
	return finish(TypeREAE, m, r)
}

// AllocTrackerStatusRequest is the REAQ request (empty).
type AllocTrackerStatusRequest struct{}

// ChunkType returns TypeREAQ.
func (*AllocTrackerStatusRequest) ChunkType() Type { return TypeREAQ }

// AppendBody appends nothing.
func (*AllocTrackerStatusRequest) AppendBody(b []byte) []byte { return b }

// DecodeAllocTrackerStatusRequest decodes a REAQ request (empty body).
func DecodeAllocTrackerStatusRequest(body []byte) (*AllocTrackerStatusRequest, error) {
	return decodeEmpty[AllocTrackerStatusRequest](TypeREAQ, body)
}

// AllocTrackerStatus is the REAQ reply: u1 1 = tracking on, 0 = off.
type AllocTrackerStatus struct {
	Enabled bool
}

// ChunkType returns TypeREAQ.
func (*AllocTrackerStatus) ChunkType() Type { return TypeREAQ }

// AppendBody appends u1 1 or 0.
func (m *AllocTrackerStatus) AppendBody(b []byte) []byte { return appendBool(b, m.Enabled) }

// DecodeAllocTrackerStatus decodes a REAQ reply.
func DecodeAllocTrackerStatus(body []byte) (*AllocTrackerStatus, error) {
	r := wire.NewReader(body, 0)
	m := &AllocTrackerStatus{Enabled: r.Bool("tracking")}
	return finish(TypeREAQ, m, r)
}

// AllocationsRequest is the REAL request (empty).
type AllocationsRequest struct{}

// ChunkType returns TypeREAL.
func (*AllocationsRequest) ChunkType() Type { return TypeREAL }

// AppendBody appends nothing.
func (*AllocationsRequest) AppendBody(b []byte) []byte { return b }

// DecodeAllocationsRequest decodes a REAL request (empty body).
func DecodeAllocationsRequest(body []byte) (*AllocationsRequest, error) {
	return decodeEmpty[AllocationsRequest](TypeREAL, body)
}

// ErrBadIndex is wrapped by the FormatError for a REAL string index outside
// its table.
var ErrBadIndex = errors.New("string index out of range")

// REAL layout sizes as VMs send them (spec/ddm-chunks.md §7.7).
const (
	REALHeaderLen      = 15
	REALEntryHeaderLen = 9
	REALFrameLen       = 8
	realMaxTable       = 0xFFFF // u2 counts and indices
	realMaxDepth       = 0xFF   // u1 stack depth
)

// Allocations is the REAL reply: recent allocations with their stacks, the
// names resolved through the reply's string tables (spec/ddm-chunks.md
// §7.7). Entries are in wire order: ART sends the most recent first,
// Dalvik the oldest first.
type Allocations struct {
	// Sizes the VM announced; bytes beyond the known fields are skipped when
	// decoding and written as zeros. When encoding, values below the
	// standard sizes (15, 9, 8) mean the standard sizes.
	HeaderLen      uint8
	EntryHeaderLen uint8
	FrameLen       uint8
	Entries        []Allocation
}

// Allocation is one REAL entry. Class names are JNI descriptors
// ("Ljava/lang/String;", "[I"); JavaTypeName turns them into source form.
type Allocation struct {
	Size     uint32 // bytes
	ThreadID uint16 // Dalvik: VM thread id; ART: Linux tid truncated to 16 bits
	Class    string
	Frames   []AllocFrame // innermost first
}

// AllocFrame is one frame of an allocation's stack.
type AllocFrame struct {
	Class  string // JNI descriptor of the method's class
	Method string
	File   string // "" when the class has no source file
	Line   int16  // clipped to 32767; LineNative, LineUnknown
}

// String renders an entry as ddmlib does: "java.lang.String size=24 tid=1
// at com.example.Foo.bar(Foo.java:42)" (the innermost frame only).
func (a *Allocation) String() string {
	s := fmt.Sprintf("%s size=%d tid=%d", JavaTypeName(a.Class), a.Size, a.ThreadID)
	if len(a.Frames) > 0 {
		s += " at " + a.Frames[0].String()
	}
	return s
}

// String renders a frame like a Java stack trace element:
// "com.example.Foo.bar(Foo.java:42)".
func (f AllocFrame) String() string {
	where := f.File
	switch {
	case f.Line == LineNative:
		where = "Native Method"
	case where == "":
		where = "Unknown Source"
	case f.Line >= 0:
		where += ":" + strconv.Itoa(int(f.Line))
	}
	return JavaTypeName(f.Class) + "." + f.Method + "(" + where + ")"
}

// JavaTypeName converts a JNI type descriptor to source form:
// "Ljava/lang/String;" → "java.lang.String", "[[I" → "int[][]". Anything
// that is not a descriptor is returned with '/' replaced by '.'.
func JavaTypeName(desc string) string {
	dims := 0
	for dims < len(desc) && desc[dims] == '[' {
		dims++
	}
	elem := desc[dims:]
	var name string
	switch {
	case len(elem) >= 3 && elem[0] == 'L' && elem[len(elem)-1] == ';':
		name = strings.ReplaceAll(elem[1:len(elem)-1], "/", ".")
	case len(elem) == 1 && primitiveName(elem[0]) != "":
		name = primitiveName(elem[0])
	default:
		return strings.ReplaceAll(desc, "/", ".")
	}
	return name + strings.Repeat("[]", dims)
}

func primitiveName(c byte) string {
	switch c {
	case 'Z':
		return "boolean"
	case 'B':
		return "byte"
	case 'C':
		return "char"
	case 'S':
		return "short"
	case 'I':
		return "int"
	case 'J':
		return "long"
	case 'F':
		return "float"
	case 'D':
		return "double"
	case 'V':
		return "void"
	}
	return ""
}

// ChunkType returns TypeREAL.
func (*Allocations) ChunkType() Type { return TypeREAL }

func (m *Allocations) lens() (header, entry, frame int) {
	header, entry, frame = int(m.HeaderLen), int(m.EntryHeaderLen), int(m.FrameLen)
	if header < REALHeaderLen {
		header = REALHeaderLen
	}
	if entry < REALEntryHeaderLen {
		entry = REALEntryHeaderLen
	}
	if frame < REALFrameLen {
		frame = REALFrameLen
	}
	return header, entry, frame
}

// stringTable assigns u2 indices to distinct strings.
type stringTable struct {
	index map[string]int
	list  []string
}

func (t *stringTable) has(s string) bool { _, ok := t.index[s]; return ok }

func (t *stringTable) add(s string) {
	if !t.has(s) {
		t.index[s] = len(t.list)
		t.list = append(t.list, s)
	}
}

// sort orders the table as ART does and renumbers it.
func (t *stringTable) sort() {
	slices.Sort(t.list)
	for i, s := range t.list {
		t.index[s] = i
	}
}

// AppendBody appends the REAL layout with string tables sorted as ART
// sends them. Limits of the format: at most 65535 entries, 255 frames per
// entry and 65535 distinct strings per table; entries beyond a limit are
// not written (ART caps its report the same way) and deeper frames are cut.
func (m *Allocations) AppendBody(b []byte) []byte {
	header, entryLen, frameLen := m.lens()
	classes := stringTable{index: map[string]int{}}
	methods := stringTable{index: map[string]int{}}
	files := stringTable{index: map[string]int{}}
	entries := m.Entries
	if len(entries) > realMaxTable {
		entries = entries[:realMaxTable]
	}
	for i := range entries {
		if !fitsTables(&entries[i], &classes, &methods, &files) {
			entries = entries[:i]
			break
		}
		e := &entries[i]
		classes.add(e.Class)
		for _, f := range frames(e) {
			classes.add(f.Class)
			methods.add(f.Method)
			files.add(f.File)
		}
	}
	classes.sort()
	methods.sort()
	files.sort()

	size := header
	for i := range entries {
		size += entryLen + len(frames(&entries[i]))*frameLen
	}
	w := wire.Writer{B: b}
	w.U1(uint8(header))
	w.U1(uint8(entryLen))
	w.U1(uint8(frameLen))
	w.U2(uint16(len(entries)))
	w.U4(uint32(size))
	w.U2(uint16(len(classes.list)))
	w.U2(uint16(len(methods.list)))
	w.U2(uint16(len(files.list)))
	w.B = appendZeros(w.B, header-REALHeaderLen)
	for i := range entries {
		e := &entries[i]
		fs := frames(e)
		w.U4(e.Size)
		w.U2(e.ThreadID)
		w.U2(uint16(classes.index[e.Class]))
		w.U1(uint8(len(fs)))
		w.B = appendZeros(w.B, entryLen-REALEntryHeaderLen)
		for _, f := range fs {
			w.U2(uint16(classes.index[f.Class]))
			w.U2(uint16(methods.index[f.Method]))
			w.U2(uint16(files.index[f.File]))
			w.S2(f.Line)
			w.B = appendZeros(w.B, frameLen-REALFrameLen)
		}
	}
	for _, t := range []*stringTable{&classes, &methods, &files} {
		for _, s := range t.list {
			w.DDMString(s)
		}
	}
	return w.B
}

// frames returns the frames of e that fit the u1 depth.
func frames(e *Allocation) []AllocFrame {
	if len(e.Frames) > realMaxDepth {
		return e.Frames[:realMaxDepth]
	}
	return e.Frames
}

// fitsTables reports whether adding e's strings keeps every table within
// the u2 limit.
func fitsTables(e *Allocation, classes, methods, files *stringTable) bool {
	// At most 1+depth new class names and depth method and file names.
	depth := len(frames(e))
	if len(classes.list)+1+depth <= realMaxTable && len(methods.list)+depth <= realMaxTable &&
		len(files.list)+depth <= realMaxTable {
		return true
	}
	newClasses, newMethods, newFiles := 0, 0, 0
	seen := map[string]bool{}
	count := func(t *stringTable, s string, n *int, tag byte) {
		key := string(tag) + s
		if !t.has(s) && !seen[key] {
			seen[key] = true
			*n++
		}
	}
	count(classes, e.Class, &newClasses, 'c')
	for _, f := range frames(e) {
		count(classes, f.Class, &newClasses, 'c')
		count(methods, f.Method, &newMethods, 'm')
		count(files, f.File, &newFiles, 'f')
	}
	return len(classes.list)+newClasses <= realMaxTable &&
		len(methods.list)+newMethods <= realMaxTable &&
		len(files.list)+newFiles <= realMaxTable
}

// DecodeAllocations decodes a REAL reply. It honours the announced header,
// entry and frame sizes, requires the entries to end exactly where the
// string tables begin and the tables to end with the body, and checks every
// string index against its table.
func DecodeAllocations(body []byte) (*Allocations, error) {
	m, err := decodeAllocations(body)
	if err != nil {
		return nil, fmt.Errorf("real: %w", err)
	}
	return m, nil
}

func decodeAllocations(body []byte) (*Allocations, error) {
	r := wire.NewReader(body, 0)
	m := &Allocations{
		HeaderLen:      r.U1("header length"),
		EntryHeaderLen: r.U1("entry header length"),
		FrameLen:       r.U1("stack frame length"),
	}
	count := r.U2("entry count")
	tableOff := r.U4("string table offset")
	nClasses := r.U2("class name count")
	nMethods := r.U2("method name count")
	nFiles := r.U2("file name count")
	if err := r.Err(); err != nil {
		return nil, err
	}
	switch {
	case m.HeaderLen < REALHeaderLen:
		return nil, &wire.FormatError{Offset: 0, What: "header length", Err: fmt.Errorf("%d, at least %d needed", m.HeaderLen, REALHeaderLen)}
	case m.EntryHeaderLen < REALEntryHeaderLen:
		return nil, &wire.FormatError{Offset: 1, What: "entry header length", Err: fmt.Errorf("%d, at least %d needed", m.EntryHeaderLen, REALEntryHeaderLen)}
	case m.FrameLen < REALFrameLen:
		return nil, &wire.FormatError{Offset: 2, What: "stack frame length", Err: fmt.Errorf("%d, at least %d needed", m.FrameLen, REALFrameLen)}
	case uint64(tableOff) > uint64(len(body)) || int(tableOff) < int(m.HeaderLen):
		return nil, &wire.FormatError{Offset: 5, What: "string table offset",
			Err: fmt.Errorf("%d outside %d..%d: %w", tableOff, m.HeaderLen, len(body), wire.ErrTooLong)}
	}

	// String tables first, as ddmlib reads them, so that indices can be
	// resolved while reading the entries.
	tr := wire.NewReader(body[tableOff:], int(tableOff))
	tables := [3][]string{}
	counts := [3]uint16{nClasses, nMethods, nFiles}
	names := [3]string{"class name", "method name", "file name"}
	tr.Count(uint64(nClasses)+uint64(nMethods)+uint64(nFiles), 4, "string table counts")
	if err := tr.Err(); err != nil {
		return nil, err
	}
	for k := range tables {
		if counts[k] > 0 {
			tables[k] = make([]string, counts[k])
		}
		for i := range tables[k] {
			tables[k][i] = tr.DDMString(names[k])
		}
	}
	tr.End("end of string tables")
	if err := tr.Err(); err != nil {
		return nil, err
	}

	// Entries: between the header and the string tables.
	er := wire.NewReader(body[:tableOff], 0)
	er.Skip(int(m.HeaderLen), "header")
	n := er.Count(uint64(count), int(m.EntryHeaderLen), "entry count")
	if err := er.Err(); err != nil {
		return nil, err
	}
	// Size the frame array in one pass over the entry headers.
	totalFrames, off := 0, int(m.HeaderLen)
	for i := 0; i < n && off+int(m.EntryHeaderLen) <= int(tableOff); i++ {
		depth := int(body[off+8])
		totalFrames += depth
		off += int(m.EntryHeaderLen) + depth*int(m.FrameLen)
	}
	var frameStore []AllocFrame
	if totalFrames > 0 && totalFrames <= int(tableOff)/int(m.FrameLen) {
		frameStore = make([]AllocFrame, 0, totalFrames)
	}
	var indexErr error
	lookup := func(k int, what string) string {
		off := er.Offset()
		idx := er.U2(what)
		if er.Err() != nil || indexErr != nil {
			return ""
		}
		if int(idx) >= len(tables[k]) {
			indexErr = &wire.FormatError{Offset: off, What: what,
				Err: fmt.Errorf("%d, %s table has %d: %w", idx, names[k], len(tables[k]), ErrBadIndex)}
			return ""
		}
		return tables[k][idx]
	}
	if n > 0 {
		m.Entries = make([]Allocation, n)
	}
	for i := range m.Entries {
		e := &m.Entries[i]
		e.Size = er.U4("allocation size")
		e.ThreadID = er.U2("thread id")
		e.Class = lookup(0, "class index")
		depth := int(er.U1("stack depth"))
		er.Skip(int(m.EntryHeaderLen)-REALEntryHeaderLen, "entry header padding")
		if er.Count(uint64(depth), int(m.FrameLen), "stack depth") != depth {
			break
		}
		start := len(frameStore)
		for range depth {
			var f AllocFrame
			f.Class = lookup(0, "method class index")
			f.Method = lookup(1, "method name index")
			f.File = lookup(2, "file name index")
			f.Line = er.S2("line number")
			er.Skip(int(m.FrameLen)-REALFrameLen, "frame padding")
			frameStore = append(frameStore, f)
		}
		if depth > 0 {
			e.Frames = frameStore[start:len(frameStore):len(frameStore)]
		}
		if er.Err() != nil || indexErr != nil {
			break
		}
	}
	if err := er.Err(); err != nil {
		return nil, err
	}
	if indexErr != nil {
		return nil, indexErr
	}
	if er.Len() != 0 {
		return nil, &wire.FormatError{Offset: er.Offset(), What: "string table offset",
			Err: fmt.Errorf("entries end at %d, string tables start at %d: %w", er.Offset(), tableOff, wire.ErrTrailing)}
	}
	return m, nil
}
