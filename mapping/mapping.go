// Package mapping reads ProGuard and R8 mapping files (mapping.txt) and
// answers what a minified build's names were in the source: classes (array
// classes and JNI descriptors too), fields by holder class, methods by class,
// name and signature, and stack frames by class, method and line, with R8's
// inline frames, outlines, rewriteFrame rules, residual signatures and
// synthesized members (see R8's doc/retrace.md).
//
// Memory: a Mapping keeps the file's bytes and compact arrays of offsets into
// them — 28 bytes a class, 8 bytes a member line, and open-addressing hash
// tables of class indexes (8 bytes a class each: by obfuscated name, and by
// original name once asked) — with no map or string per name: a 100 MB
// mapping peaks at about 1.4 times its size (scripts/bench-mapping.sh
// measures it). Lines are parsed again, without allocating, when a lookup
// reads them.
//
// Bad input never panics: a malformed line is skipped and counted (Skipped,
// FirstSkip give the count and the first line number), lines longer than
// MaxLine are skipped the same way, and a file with no class line at all is
// an error.
package mapping

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"os"
	"sync"
)

// MaxLine bounds one line; longer lines are skipped and counted.
const MaxLine = 1<<16 - 1

// MaxSize bounds a mapping file (offsets are 32-bit).
const MaxSize = math.MaxUint32

// Mapping is an indexed mapping file. It is read-only after Parse and safe
// for concurrent lookups.
type Mapping struct {
	data      []byte
	classes   []class  // file order
	obfSlots  []uint32 // hash table of class index+1 by obfuscated name
	origSlots []uint32 // hash table of class index+1 by original name (built on first use)
	origOnce  sync.Once
	seed      maphash.Seed
	members   []member // grouped by class, file order within a class
	extras    []extra  // metadata of members, ordered by member index

	// Header is what the file's leading comments say (# compiler: R8, …).
	Header Header
	// Skipped counts malformed or overlong lines that were left out.
	Skipped int
	// FirstSkip describes the first of them (nil when none).
	FirstSkip *LineError
}

// Header holds the mapping file's header comments.
type Header struct {
	Compiler, CompilerVersion, MapID, MapHash, Version string
}

// LineError is a malformed line.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("mapping: line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ErrNotMapping is returned for input with no class line.
var ErrNotMapping = errors.New("mapping: no class mapping line (not a ProGuard/R8 mapping file?)")

// ErrTooLarge is returned for files past MaxSize.
var ErrTooLarge = errors.New("mapping: file larger than 4 GiB")

const (
	classSynthesized = 1 << iota
)

const (
	memberMethod = 1 << iota
	memberHasObf
	memberSynthesized
	memberOutline
	memberHasExtra
	memberSingleOrig // original range is :c (a caller position: an outer inline frame)
)

type class struct {
	orig, obf  uint32 // offsets into data
	origN      uint16
	obfN       uint16
	file       uint32 // sourceFile fileName offset
	fileN      uint16
	flags      uint16
	first, end uint32 // members[first:end]
}

// member is a member line: the obfuscated name ends the line, so it is
// found from the line's end and its length.
type member struct {
	line  uint32 // offset of the line's first non-blank byte
	lineN uint16 // length without trailing blanks
	obfN  uint8
	flags uint8
}

type extraKind uint8

const (
	extraRewrite extraKind = iota + 1
	extraOutlineCallsite
	extraResidual
)

type extra struct {
	member uint32
	off    uint32
	n      uint32
	kind   extraKind
}

// Open reads and indexes the mapping file at path.
func Open(path string) (*Mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > MaxSize {
		return nil, fmt.Errorf("%s: %w", path, ErrTooLarge)
	}
	// One allocation of the file's size (os.ReadFile's habit), bounded above.
	data := make([]byte, 0, st.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(data) == cap(data) {
			if len(data) > MaxSize {
				return nil, fmt.Errorf("%s: %w", path, ErrTooLarge)
			}
			data = append(data, 0)[:len(data)]
		}
	}
	m, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Parse indexes a mapping file's bytes; the Mapping keeps data.
func Parse(data []byte) (*Mapping, error) {
	if len(data) > MaxSize {
		return nil, ErrTooLarge
	}
	m := &Mapping{data: data, seed: maphash.MakeSeed()}
	// Member lines are the indented ones: two vectorised counts size the
	// array once, so it never grows (and never doubles the peak).
	indented := bytes.Count(data, []byte("\n ")) + bytes.Count(data, []byte("\n\t")) + 1
	m.members = make([]member, 0, indented)
	cur := -1 // current class
	lastMember := -1
	inHeader := true
	for lineNo, off := 1, 0; off < len(data); lineNo++ {
		end := bytes.IndexByte(data[off:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += off
		}
		line := data[off:end]
		lineOff := off
		off = end + 1
		if len(line) > MaxLine {
			m.skip(lineNo, errLineTooBig)
			continue
		}
		// Leading blanks.
		k := 0
		for k < len(line) && (line[k] == ' ' || line[k] == '\t') {
			k++
		}
		isMember := k > 0
		body := trimRight(line[k:])
		if len(body) == 0 {
			continue
		}
		if body[0] == '#' {
			m.comment(body, lineOff+k, inHeader, cur, lastMember)
			continue
		}
		inHeader = false
		if !isMember {
			orig, obf, err := parseClassLine(body)
			if err != nil {
				m.skip(lineNo, err)
				cur, lastMember = -1, -1
				continue
			}
			m.closeClass(cur)
			m.classes = append(m.classes, class{
				orig: uint32(lineOff + orig.off), origN: uint16(orig.n),
				obf: uint32(lineOff + obf.off), obfN: uint16(obf.n),
				first: uint32(len(m.members)),
			})
			cur, lastMember = len(m.classes)-1, -1
			continue
		}
		if cur < 0 {
			m.skip(lineNo, errors.New("member line outside a class"))
			continue
		}
		ml, err := parseMemberLine(body)
		if err != nil {
			m.skip(lineNo, err)
			lastMember = -1
			continue
		}
		if ml.obf.n > math.MaxUint8 {
			m.skip(lineNo, errors.New("obfuscated name too long"))
			lastMember = -1
			continue
		}
		mb := member{
			line: uint32(lineOff + k), lineN: uint16(len(body)), obfN: uint8(ml.obf.n),
		}
		if ml.method {
			mb.flags |= memberMethod
		}
		if ml.hasObf {
			mb.flags |= memberHasObf
		}
		if ml.origN == 1 {
			mb.flags |= memberSingleOrig
		}
		m.members = append(m.members, mb)
		lastMember = len(m.members) - 1
	}
	m.closeClass(cur)
	if len(m.classes) == 0 {
		if m.FirstSkip != nil {
			return nil, fmt.Errorf("%w: first bad line: %w", ErrNotMapping, m.FirstSkip)
		}
		return nil, ErrNotMapping
	}
	m.hashClasses()
	return m, nil
}

func (m *Mapping) skip(line int, err error) {
	m.Skipped++
	if m.FirstSkip == nil {
		m.FirstSkip = &LineError{Line: line, Err: err}
	}
}

func (m *Mapping) closeClass(cur int) {
	if cur >= 0 {
		m.classes[cur].end = uint32(len(m.members))
	}
}

// comment handles a `#` line: header fields before the first class, and the
// JSON metadata R8 places under the class or member it is about.
func (m *Mapping) comment(body []byte, off int, inHeader bool, cur, lastMember int) {
	id := metaID(body)
	if id == nil {
		if inHeader {
			m.header(body)
		}
		return
	}
	switch string(id) {
	case "com.android.tools.r8.mapping":
		m.Header.Version = string(jsonString(body, "version"))
	case "sourceFile":
		if cur >= 0 && lastMember < 0 {
			if name := jsonStringSpan(body, "fileName"); name.n > 0 && name.n <= math.MaxUint16 {
				m.classes[cur].file = uint32(off + name.off)
				m.classes[cur].fileN = uint16(name.n)
			}
		}
	case "com.android.tools.r8.synthesized":
		if lastMember >= 0 {
			m.members[lastMember].flags |= memberSynthesized
		} else if cur >= 0 {
			m.classes[cur].flags |= classSynthesized
		}
	case "com.android.tools.r8.outline":
		if lastMember >= 0 {
			m.members[lastMember].flags |= memberOutline
		}
	case "com.android.tools.r8.rewriteFrame":
		m.addExtra(lastMember, extraRewrite, off, len(body))
	case "com.android.tools.r8.outlineCallsite":
		m.addExtra(lastMember, extraOutlineCallsite, off, len(body))
	case "com.android.tools.r8.residualsignature":
		m.addExtra(lastMember, extraResidual, off, len(body))
	}
	// Other ids are skipped, as R8's document asks of unknown information.
}

func (m *Mapping) addExtra(member int, kind extraKind, off, n int) {
	if member < 0 {
		return
	}
	m.members[member].flags |= memberHasExtra
	m.extras = append(m.extras, extra{member: uint32(member), off: uint32(off), n: uint32(n), kind: kind})
}

// header reads `# key: value` lines of the header.
func (m *Mapping) header(body []byte) {
	s := bytes.TrimSpace(body[1:])
	key, val, ok := bytes.Cut(s, []byte(":"))
	if !ok {
		return
	}
	val = bytes.TrimSpace(val)
	switch string(bytes.TrimSpace(key)) {
	case "compiler":
		m.Header.Compiler = string(val)
	case "compiler_version":
		m.Header.CompilerVersion = string(val)
	case "pg_map_id":
		m.Header.MapID = string(val)
	case "pg_map_hash":
		m.Header.MapHash = string(val)
	}
}

// hashClasses builds the table of class indexes by obfuscated name: one
// probe or two a lookup, where a binary search over names spread through
// the file would touch a cache line per step.
func (m *Mapping) hashClasses() {
	m.obfSlots = m.hashNames((*class).obfName)
}

// hashNames returns an open-addressing table (two slots a class, class
// index+1 in each, 0 empty) keyed by the name that key gives.
func (m *Mapping) hashNames(key func(*class, []byte) []byte) []uint32 {
	size := 1
	for size < 2*len(m.classes) {
		size <<= 1
	}
	slots := make([]uint32, size)
	mask := uint32(size - 1)
	for i := range m.classes {
		h := uint32(maphash.Bytes(m.seed, key(&m.classes[i], m.data))) & mask
		for slots[h] != 0 {
			h = (h + 1) & mask
		}
		slots[h] = uint32(i) + 1
	}
	return slots
}

// lookup finds name in a table hashNames built.
func (m *Mapping) lookup(slots []uint32, key func(*class, []byte) []byte, name string) *class {
	if len(slots) == 0 {
		return nil
	}
	mask := uint32(len(slots) - 1)
	for h := uint32(maphash.String(m.seed, name)) & mask; slots[h] != 0; h = (h + 1) & mask {
		if c := &m.classes[slots[h]-1]; string(key(c, m.data)) == name {
			return c
		}
	}
	return nil
}

// hashOriginals builds the table by original name on first use:
// retracing needs it for inlined frames' source files, Obfuscated for the
// reverse lookup.
func (m *Mapping) hashOriginals() {
	m.origSlots = m.hashNames((*class).origName)
}

// Classes is the number of class lines.
func (m *Mapping) Classes() int { return len(m.classes) }

// Members is the number of member lines.
func (m *Mapping) Members() int { return len(m.members) }

func (c *class) obfName(d []byte) []byte  { return d[c.obf : c.obf+uint32(c.obfN)] }
func (c *class) origName(d []byte) []byte { return d[c.orig : c.orig+uint32(c.origN)] }
func (c *class) fileName(d []byte) []byte { return d[c.file : c.file+uint32(c.fileN)] }
func (mb *member) obfName(d []byte) []byte {
	end := mb.line + uint32(mb.lineN)
	return d[end-uint32(mb.obfN) : end]
}
func (mb *member) body(d []byte) []byte { return d[mb.line : mb.line+uint32(mb.lineN)] }

func trimRight(b []byte) []byte {
	for len(b) > 0 {
		switch b[len(b)-1] {
		case ' ', '\t', '\r':
			b = b[:len(b)-1]
			continue
		}
		break
	}
	return b
}

// obfRange returns member i's obfuscated line range a:b, read again from
// its line (the index keeps only that it has one).
func (m *Mapping) obfRange(i uint32) (start, end int, ok bool) {
	mb := &m.members[i]
	if mb.flags&memberHasObf == 0 {
		return 0, 0, false
	}
	b := mb.body(m.data)
	start, j, ok1 := parseNumber(b, 0)
	if !ok1 || j >= len(b) {
		return 0, 0, false
	}
	end, _, ok2 := parseNumber(b, j+1)
	return start, end, ok2
}
