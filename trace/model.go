package trace

import (
	"strconv"
	"strings"
)

// Thread is one line of the key's *threads section (spec §2.2).
type Thread struct {
	ID   uint32 // as written in the key; records carry only 8 (v1) or 16 bits
	Name string
}

// Method is one line of the key's *methods section (spec §2.3).
type Method struct {
	ID        uint32 // the low two bits are clear in every valid trace
	Class     string // dot form, e.g. java.lang.String
	Name      string // empty when the line had only one name field
	Signature string // JNI descriptor, e.g. (I)Ljava/lang/String;
	File      string // source file (ART and Dalvik lines)
	Line      int    // line of pc 0 (Dalvik lines only; 0 when absent)
}

// FullName is "class.name" (or just the class when there is no name).
func (m *Method) FullName() string {
	if m.Name == "" {
		return m.Class
	}
	return m.Class + "." + m.Name
}

// Option is a key=value line after the version (spec §2.1).
type Option struct {
	Key, Value string
}

// Header is everything in a trace except its records: the key section and
// the data header.
type Header struct {
	// Version is the *version line (1, 2 or 3). For a streaming trace it is
	// the data version without the streaming flag.
	Version int
	// DataVersion is the data header's version field: 1, 2, 3, or 0xF2/0xF3
	// for a streaming trace.
	DataVersion int
	// Clocks the records carry, from the clock= option and the record layout.
	Clocks     Clocks
	Options    []Option
	Threads    []Thread
	Methods    []Method
	StartTime  uint64 // µs; see spec §3.1 for what it counts from
	DataOffset int    // offset of the first record from the data header start
	RecordSize int    // bytes per record
	Streaming  bool   // ART streaming format (spec §5)
	// KeyBytes is the size of the key section, i.e. the offset of the data
	// header in a single-file trace; 0 for split and streaming traces.
	KeyBytes int64
}

// Option returns the value of the first option named key.
func (h *Header) Option(key string) (string, bool) {
	for _, o := range h.Options {
		if o.Key == key {
			return o.Value, true
		}
	}
	return "", false
}

// ThreadName returns the key's name for a thread id as records carry it:
// exact id first, then a key id whose low 16 bits match (ART-2016 writes full
// tids in the key and truncated ones in records, spec §2.2).
func (h *Header) ThreadName(id uint32) string {
	for _, t := range h.Threads {
		if t.ID == id {
			return t.Name
		}
	}
	for _, t := range h.Threads {
		if t.ID&0xFFFF == id {
			return t.Name
		}
	}
	return ""
}

// Event is one record of a trace in memory: a thread entering or leaving a
// method at a time on each clock.
type Event struct {
	Thread   uint16
	Action   Action
	MethodID uint32    // action bits clear
	Time     [2]uint32 // µs since the trace start, indexed by Clock
}

// Trace is a whole trace in memory: what Decode returns and Encode writes.
type Trace struct {
	Header
	Events []Event
}

// formatMethodLine writes a *methods line without the newline: the id as C's
// %#x (so 0 is "0", as ART prints it), then the fields the method has.
func formatMethodLine(m *Method) string {
	var b strings.Builder
	if m.ID == 0 {
		b.WriteString("0")
	} else {
		b.WriteString("0x")
		b.WriteString(strconv.FormatUint(uint64(m.ID), 16))
	}
	b.WriteByte('\t')
	b.WriteString(m.Class)
	if m.Name == "" && m.Signature == "" && m.File == "" && m.Line == 0 {
		return b.String()
	}
	b.WriteByte('\t')
	b.WriteString(m.Name)
	b.WriteByte('\t')
	b.WriteString(m.Signature)
	if m.File == "" && m.Line == 0 {
		return b.String()
	}
	b.WriteByte('\t')
	b.WriteString(m.File)
	if m.Line != 0 {
		b.WriteByte('\t')
		b.WriteString(strconv.Itoa(m.Line))
	}
	return b.String()
}

// parseMethodLine reads a *methods line (without its newline). It accepts
// every producer's shape (spec §2.3): id and one name; id, class, name,
// signature; ART's five fields with the source file; Dalvik's six fields
// with file and line.
func parseMethodLine(line string) (Method, string) {
	f := strings.Split(line, "\t")
	if len(f) < 2 {
		return Method{}, "method line has no tab-separated name"
	}
	id, ok := parseHex32(f[0])
	if !ok {
		return Method{}, "method id " + strconv.Quote(f[0]) + " is not a hex number"
	}
	m := Method{ID: id, Class: f[1]}
	if len(f) > 2 {
		m.Name = f[2]
	}
	if len(f) > 3 {
		m.Signature = f[3]
	}
	if len(f) > 4 {
		m.File = f[4]
	}
	if len(f) > 5 {
		if n, err := strconv.Atoi(strings.TrimSpace(f[5])); err == nil {
			m.Line = n
		}
	}
	return m, ""
}

func parseHex32(s string) (uint32, bool) {
	s = strings.TrimSpace(s)
	if len(s) > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	n, err := strconv.ParseUint(s, 16, 32)
	return uint32(n), err == nil
}

// parseThreadLine reads "id<TAB>name" (or "id name" as very old keys had).
func parseThreadLine(line string) (Thread, string) {
	i := strings.IndexByte(line, '\t')
	if i < 0 {
		i = strings.IndexByte(line, ' ')
	}
	if i < 0 {
		return Thread{}, "thread line has no name"
	}
	idText := strings.TrimSpace(line[:i])
	base := 10
	if strings.HasPrefix(idText, "0x") || strings.HasPrefix(idText, "0X") {
		idText, base = idText[2:], 16
	}
	n, err := strconv.ParseUint(idText, base, 32)
	if err != nil {
		return Thread{}, "thread id " + strconv.Quote(line[:i]) + " is not a number"
	}
	return Thread{ID: uint32(n), Name: line[i+1:]}, ""
}
