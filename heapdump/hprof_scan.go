package heapdump

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/ddmtui/ddmtui/hprof"
)

// FormatError reports malformed input with the byte offset of the bad field.
type FormatError = hprof.FormatError

// ErrShort is the cause of a FormatError for a field that runs past its
// record.
var ErrShort = errors.New("runs past the end of its record")

func formatErr(off int, what string, format string, args ...any) error {
	return &FormatError{Offset: off, What: what, Err: fmt.Errorf(format, args...)}
}

// HPROF record and sub-record tags the scanner needs (see
// spec/hprof-analysis.md "Android HPROF in brief").
const (
	tagString      = 0x01
	tagLoadClass   = 0x02
	tagHeapDump    = 0x0C
	tagHeapSegment = 0x1C

	subClassDump      = 0x20
	subInstanceDump   = 0x21
	subObjectArray    = 0x22
	subPrimitiveArray = 0x23
	subPrimitiveNoDat = 0xC3
	subHeapDumpInfo   = 0xFE
	subRootUnreach    = 0x90

	typeArrayObject = 1
	typeObject      = 2
	typeBoolean     = 4
	typeChar        = 5
	typeByte        = 8
	typeInt         = 10
	typeLong        = 11
)

// rootBody is the body size (after the tag and the object id) of each root
// sub-record kind, or -1 for tags that are not roots. 0x90 UNREACHABLE has
// a root's layout but is not a root (D5).
var rootExtra = func() [256]int8 {
	var t [256]int8
	for i := range t {
		t[i] = -1
	}
	for _, tag := range []int{0xFF, 0x05, 0x07, 0x89, 0x8A, 0x8B, 0x8C, 0x8D, 0x90} {
		t[tag] = 0
	}
	t[0x01] = -2 // JNI GLOBAL: a second id
	t[0x02], t[0x03], t[0x8E] = 8, 8, 8
	t[0x04], t[0x06] = 4, 4
	t[0x08] = 8
	return t
}()

// typeSize is the size of a value of basic type t, 0 for an invalid type.
func typeSize(t byte, idSize int) int {
	switch t {
	case typeArrayObject, typeObject:
		return idSize
	case typeBoolean, typeByte:
		return 1
	case typeChar, 9:
		return 2
	case 6, typeInt:
		return 4
	case 7, typeLong:
		return 8
	}
	return 0
}

func isObjectType(t byte) bool { return t == typeObject || t == typeArrayObject }

// classDump is a CLASS DUMP as pass 1 keeps it: a few thousand per file.
type classDump struct {
	id       uint64
	off      int // of the sub-record's tag
	super    uint64
	instSize uint32
	statics  []staticField
	fields   []fieldDecl
}

type staticField struct {
	name  uint64
	typ   byte
	value uint64
}

type fieldDecl struct {
	name uint64
	typ  byte
}

// heapMark says that objects from index pos on (in file order) belong to
// the heap named by the HEAP DUMP INFO that preceded them.
type heapMark struct {
	pos  int
	heap uint32
	name uint64
}

// scan is the result of pass 1: the file's strings, class names and class
// dumps, and the id and offset of every object sub-record in file order.
type scan struct {
	d       []byte
	idSize  int
	version string

	strIDs  []uint64 // STRING records, sorted by id after the pass
	strOffs []int64  // offset of the UTF-8 bytes
	strLens []uint32
	loads   map[uint64]uint64 // class id -> name string id (first LOAD CLASS wins)
	classes []classDump
	objIDs  []uint64
	objOffs offsets
	roots   []uint64
	rootTag []uint8 // each root's sub-record tag (RootKind)
	heaps   []heapMark

	truncated bool
	truncOff  int64
}

func (s *scan) id(off int) uint64 {
	if s.idSize == 4 {
		return uint64(binary.BigEndian.Uint32(s.d[off:]))
	}
	return binary.BigEndian.Uint64(s.d[off:])
}

// header reads the file header; it returns the offset of the first record.
func (s *scan) header() (int, error) {
	i := bytes.IndexByte(s.d[:min(len(s.d), 64)], 0)
	if i < 0 {
		return 0, formatErr(0, "header", "no NUL-terminated version string in the first 64 bytes")
	}
	s.version = string(s.d[:i])
	switch s.version {
	case hprof.VersionAndroid, hprof.VersionStandard, hprof.Version101:
	default:
		return 0, formatErr(0, "header", "unknown version %q", s.version)
	}
	if len(s.d) < i+1+12 {
		return 0, formatErr(i+1, "header", "%w", ErrShort)
	}
	n := binary.BigEndian.Uint32(s.d[i+1:])
	if n != 4 && n != 8 {
		return 0, formatErr(i+1, "identifier size", "%d (want 4 or 8)", n)
	}
	s.idSize = int(n)
	return i + 1 + 12, nil
}

// pass1 walks every record. release is called with the offset up to which
// the bytes are no longer needed.
func (s *scan) pass1(release func(int), progress func(float64)) error {
	off, err := s.header()
	if err != nil {
		return err
	}
	s.loads = make(map[uint64]uint64)
	idSize := s.idSize
	// Room for an object every 48 bytes (real dumps average more): the
	// arrays rarely grow, and capacity never written costs no memory.
	guess := len(s.d) / 48
	s.objIDs = make([]uint64, 0, guess)
	s.objOffs = newOffsets(len(s.d), guess)
	lastRelease := 0
	for off < len(s.d) {
		if len(s.d)-off < 9 {
			s.truncated, s.truncOff = true, int64(off)
			break
		}
		tag := s.d[off]
		length := int(binary.BigEndian.Uint32(s.d[off+5:]))
		body := off + 9
		end := body + length
		complete := end <= len(s.d)
		if !complete {
			s.truncated, s.truncOff = true, int64(off)
			end = len(s.d)
		}
		switch tag {
		case tagString:
			if complete && length >= idSize {
				s.strIDs = append(s.strIDs, s.id(body))
				s.strOffs = append(s.strOffs, int64(body+idSize))
				s.strLens = append(s.strLens, uint32(length-idSize))
			}
		case tagLoadClass:
			if complete && length >= 8+2*idSize {
				cid := s.id(body + 4)
				if _, dup := s.loads[cid]; !dup {
					s.loads[cid] = s.id(body + 8 + idSize)
				}
			}
		case tagHeapDump, tagHeapSegment:
			stop, err := s.subRecords(body, end, complete)
			if err != nil {
				return err
			}
			if stop >= 0 {
				s.truncOff = int64(stop)
			}
		}
		if !complete {
			break
		}
		off = end
		if off-lastRelease > 8<<20 {
			release(off)
			lastRelease = off
			if progress != nil {
				progress(float64(off) / float64(len(s.d)))
			}
		}
	}
	release(len(s.d))
	sortStrings(s)
	return nil
}

// subRecords walks the sub-records of a heap dump record body [off, end).
// In a record cut short by the end of the file (complete false), the
// sub-records that fit are kept and the offset of the first that does not
// is returned; otherwise -1.
func (s *scan) subRecords(off, end int, complete bool) (int, error) {
	for off < end {
		n, err := s.subRecord(off, end)
		if err != nil {
			if !complete && errors.Is(err, ErrShort) {
				return off, nil
			}
			return -1, err
		}
		off += n
	}
	return -1, nil
}

// subRecord records the sub-record at off and returns its length.
func (s *scan) subRecord(off, end int) (int, error) {
	d, idSize := s.d, s.idSize
	tag := d[off]
	p := off + 1
	need := func(n int, what string) error {
		if n < 0 || n > end-p {
			return formatErr(p, what, "%w", ErrShort)
		}
		return nil
	}
	if x := rootExtra[tag]; x != -1 {
		size := idSize + max(int(x), 0)
		if x == -2 {
			size = 2 * idSize
		}
		if err := need(size, "root"); err != nil {
			return 0, err
		}
		if tag != subRootUnreach {
			s.roots = append(s.roots, s.id(p))
			s.rootTag = append(s.rootTag, tag)
		}
		return 1 + size, nil
	}
	switch tag {
	case subHeapDumpInfo:
		if err := need(4+idSize, "heap dump info"); err != nil {
			return 0, err
		}
		s.heaps = append(s.heaps, heapMark{pos: len(s.objIDs), heap: binary.BigEndian.Uint32(d[p:]), name: s.id(p + 4)})
		return 1 + 4 + idSize, nil
	case subClassDump:
		return s.classDump(off, end)
	case subInstanceDump:
		if err := need(2*idSize+8, "instance dump"); err != nil {
			return 0, err
		}
		n := int(binary.BigEndian.Uint32(d[p+2*idSize+4:]))
		p2 := p + 2*idSize + 8
		if n > end-p2 {
			return 0, formatErr(p+2*idSize+4, "instance data length", "%d %w", n, ErrShort)
		}
		s.object(off, p)
		return p2 + n - off, nil
	case subObjectArray:
		if err := need(2*idSize+8, "object array dump"); err != nil {
			return 0, err
		}
		n := uint64(binary.BigEndian.Uint32(d[p+idSize+4:]))
		p2 := p + 2*idSize + 8
		if n*uint64(idSize) > uint64(end-p2) {
			return 0, formatErr(p+idSize+4, "object array length", "%d %w", n, ErrShort)
		}
		s.object(off, p)
		return p2 + int(n)*idSize - off, nil
	case subPrimitiveArray, subPrimitiveNoDat:
		if err := need(idSize+9, "primitive array dump"); err != nil {
			return 0, err
		}
		n := uint64(binary.BigEndian.Uint32(d[p+idSize+4:]))
		t := d[p+idSize+8]
		size := typeSize(t, idSize)
		if size == 0 || isObjectType(t) {
			return 0, formatErr(p+idSize+8, "primitive array type", "invalid basic type %d", t)
		}
		p2 := p + idSize + 9
		if tag == subPrimitiveArray {
			if n*uint64(size) > uint64(end-p2) {
				return 0, formatErr(p+idSize+4, "primitive array length", "%d %w", n, ErrShort)
			}
			p2 += int(n) * size
		}
		s.object(off, p)
		return p2 - off, nil
	}
	return 0, formatErr(off, "heap dump sub-record", "unknown tag 0x%02X", tag)
}

func (s *scan) object(off, idOff int) {
	s.objIDs = append(s.objIDs, s.id(idOff))
	s.objOffs.add(off)
}

// classDump parses a CLASS DUMP at off and returns its length.
func (s *scan) classDump(off, end int) (int, error) {
	d, idSize := s.d, s.idSize
	p := off + 1
	if 7*idSize+8+2 > end-p {
		return 0, formatErr(p, "class dump", "%w", ErrShort)
	}
	c := classDump{id: s.id(p), off: off, super: s.id(p + idSize + 4)}
	p += 7*idSize + 4
	c.instSize = binary.BigEndian.Uint32(d[p:])
	p += 4
	u2 := func(what string) (int, error) {
		if end-p < 2 {
			return 0, formatErr(p, what, "%w", ErrShort)
		}
		v := int(binary.BigEndian.Uint16(d[p:]))
		p += 2
		return v, nil
	}
	typed := func(what string) (byte, int, error) {
		if end-p < 1 {
			return 0, 0, formatErr(p, what, "%w", ErrShort)
		}
		t := d[p]
		size := typeSize(t, idSize)
		if size == 0 {
			return 0, 0, formatErr(p, what, "invalid basic type %d", t)
		}
		p++
		return t, size, nil
	}
	n, err := u2("constant pool size")
	if err != nil {
		return 0, err
	}
	for range n {
		if end-p < 2 {
			return 0, formatErr(p, "constant pool index", "%w", ErrShort)
		}
		p += 2
		_, size, err := typed("constant type")
		if err != nil {
			return 0, err
		}
		if size > end-p {
			return 0, formatErr(p, "constant value", "%w", ErrShort)
		}
		p += size
	}
	if n, err = u2("static field count"); err != nil {
		return 0, err
	}
	c.statics = make([]staticField, 0, min(n, (end-p)/(idSize+2)))
	for range n {
		if end-p < idSize {
			return 0, formatErr(p, "static field name id", "%w", ErrShort)
		}
		sf := staticField{name: s.id(p)}
		p += idSize
		t, size, err := typed("static field type")
		if err != nil {
			return 0, err
		}
		if size > end-p {
			return 0, formatErr(p, "static field value", "%w", ErrShort)
		}
		sf.typ, sf.value = t, readValue(d[p:], size)
		p += size
		c.statics = append(c.statics, sf)
	}
	if n, err = u2("instance field count"); err != nil {
		return 0, err
	}
	c.fields = make([]fieldDecl, 0, min(n, (end-p)/(idSize+1)))
	for range n {
		if end-p < idSize {
			return 0, formatErr(p, "instance field name id", "%w", ErrShort)
		}
		f := fieldDecl{name: s.id(p)}
		p += idSize
		t, _, err := typed("instance field type")
		if err != nil {
			return 0, err
		}
		f.typ = t
		c.fields = append(c.fields, f)
	}
	s.object(off, off+1)
	s.classes = append(s.classes, c)
	return p - off, nil
}

// readValue reads a big-endian value of size bytes, zero-extended.
func readValue(b []byte, size int) uint64 {
	switch size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.BigEndian.Uint16(b))
	case 4:
		return uint64(binary.BigEndian.Uint32(b))
	}
	return binary.BigEndian.Uint64(b)
}
