package mapping

import (
	"bytes"
	"errors"
)

// The line grammar (ProGuard's, with R8's additions):
//
//	original.Class -> obf.a:                              class line
//	    type name -> b                                    field
//	    [a:b:]ret [qualified.]name(args)[:c[:d]] -> b     method
//	# {"id":"…", …}                                        metadata for the line above
//	# anything else                                        comment (header: # compiler: …)
//
// The parsers here return offsets into the line and allocate nothing, so the
// index can check every line while keeping only its offset.

var arrow = []byte(" -> ")

// memberLine is a parsed member line: offsets into the line (after its
// leading blanks), and the line numbers.
type memberLine struct {
	obfStart, obfEnd   int  // obfuscated range a:b
	hasObf             bool // a:b: present
	typ                span // return type or field type
	name               span // name, perhaps qualified (pkg.Class.name)
	args               span // between the parentheses; method only
	method             bool
	origStart, origEnd int
	origN              int // 0: no original range, 1: :c, 2: :c:d
	obf                span
}

// span is an offset and a length into some byte slice.
type span struct{ off, n int }

func (s span) of(b []byte) []byte { return b[s.off : s.off+s.n] }

var (
	errNoArrow    = errors.New(`no " -> "`)
	errNoName     = errors.New("no obfuscated name")
	errBadRange   = errors.New("bad line range")
	errBadMember  = errors.New("bad member")
	errBadClass   = errors.New("bad class line")
	errLineTooBig = errors.New("line too long")
)

// parseNumber reads decimal digits at b[i:], returning the value and the
// index after them; ok is false without digits or past 2^31-1.
func parseNumber(b []byte, i int) (v, next int, ok bool) {
	start := i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		v = v*10 + int(b[i]-'0')
		if v > 1<<31-1 {
			return 0, i, false
		}
		i++
	}
	return v, i, i > start
}

// parseClassLine parses `orig -> obf:`.
func parseClassLine(line []byte) (orig, obf span, err error) {
	i := bytes.Index(line, arrow)
	if i <= 0 {
		return orig, obf, errNoArrow
	}
	rest := line[i+len(arrow):]
	rest = trimRight(rest)
	if len(rest) < 2 || rest[len(rest)-1] != ':' {
		return orig, obf, errBadClass
	}
	orig = span{0, i}
	obf = span{i + len(arrow), len(rest) - 1}
	if !validName(orig.of(line)) || !validName(obf.of(line)) {
		return orig, obf, errBadClass
	}
	return orig, obf, nil
}

// validName refuses blanks and the characters that the grammar uses.
func validName(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		switch c {
		case ' ', '\t', '(', ')', ':', '\r', '\n':
			return false
		}
	}
	return true
}

// parseMemberLine parses a member line whose leading blanks are removed.
func parseMemberLine(line []byte) (m memberLine, err error) {
	line = trimRight(line)
	a := bytes.LastIndex(line, arrow)
	if a < 0 {
		return m, errNoArrow
	}
	m.obf = span{a + len(arrow), len(line) - a - len(arrow)}
	if !validName(m.obf.of(line)) {
		return m, errNoName
	}
	body := line[:a]
	i := 0
	// a:b: — digits then ':' then digits then ':'.
	if len(body) > 0 && body[0] >= '0' && body[0] <= '9' {
		var ok bool
		if m.obfStart, i, ok = parseNumber(body, 0); !ok || i >= len(body) || body[i] != ':' {
			return m, errBadRange
		}
		if m.obfEnd, i, ok = parseNumber(body, i+1); !ok || i >= len(body) || body[i] != ':' {
			return m, errBadRange
		}
		if m.obfEnd < m.obfStart {
			return m, errBadRange
		}
		i++
		m.hasObf = true
	}
	sp := bytes.IndexByte(body[i:], ' ')
	if sp <= 0 {
		return m, errBadMember
	}
	m.typ = span{i, sp}
	i += sp + 1
	open := bytes.IndexByte(body[i:], '(')
	if open < 0 {
		// A field: `type name`.
		if m.hasObf {
			return m, errBadMember
		}
		m.name = span{i, len(body) - i}
		if !validName(m.name.of(body)) || !validName(m.typ.of(body)) {
			return m, errBadMember
		}
		return m, nil
	}
	m.method = true
	m.name = span{i, open}
	closeAt := bytes.IndexByte(body[i+open:], ')')
	if closeAt < 0 {
		return m, errBadMember
	}
	closeAt += i + open
	m.args = span{i + open + 1, closeAt - i - open - 1}
	if !validName(m.name.of(body)) || !validName(m.typ.of(body)) || !validArgs(m.args.of(body)) {
		return m, errBadMember
	}
	j := closeAt + 1
	if j < len(body) {
		var ok bool
		if body[j] != ':' {
			return m, errBadMember
		}
		if m.origStart, j, ok = parseNumber(body, j+1); !ok {
			return m, errBadRange
		}
		m.origN = 1
		if j < len(body) {
			if body[j] != ':' {
				return m, errBadRange
			}
			if m.origEnd, j, ok = parseNumber(body, j+1); !ok || j != len(body) {
				return m, errBadRange
			}
			m.origN = 2
		}
	}
	return m, nil
}

// metaID returns the "id" of a `# {…}` metadata line, or nil when the
// comment is not one.
func metaID(comment []byte) []byte {
	if bytes.IndexByte(comment, '{') < 0 {
		return nil
	}
	return jsonString(comment, "id")
}

// valueAt returns the index of key's value in a flat JSON-like object: after
// "key": or 'key': or key: (R8's document writes its examples with single
// quotes and sometimes bare keys; R8 itself writes JSON), or -1.
func valueAt(obj []byte, key string) int {
	for from := 0; from < len(obj); {
		k := bytes.Index(obj[from:], []byte(key))
		if k < 0 {
			return -1
		}
		k += from
		from = k + 1
		start, end := k, k+len(key)
		if start > 0 && end < len(obj) && (obj[start-1] == '"' || obj[start-1] == '\'') && obj[end] == obj[start-1] {
			start--
			end++
		}
		if start > 0 {
			switch obj[start-1] {
			case '{', ',', ' ', '\t':
			default:
				continue
			}
		}
		j := end
		for j < len(obj) && (obj[j] == ' ' || obj[j] == '\t') {
			j++
		}
		if j >= len(obj) || obj[j] != ':' {
			continue
		}
		j++
		for j < len(obj) && (obj[j] == ' ' || obj[j] == '\t') {
			j++
		}
		return j
	}
	return -1
}

// jsonStringSpan returns the span of key's quoted string value.
func jsonStringSpan(body []byte, key string) span {
	j := valueAt(body, key)
	if j < 0 || j >= len(body) || (body[j] != '"' && body[j] != '\'') {
		return span{}
	}
	end := bytes.IndexByte(body[j+1:], body[j])
	if end < 0 {
		return span{}
	}
	return span{j + 1, end}
}

// jsonString returns key's string value in a flat metadata line (the values
// R8 writes there need no unescaping: names, file names, signatures).
func jsonString(body []byte, key string) []byte {
	return jsonStringSpan(body, key).of(body)
}

// jsonGroup returns what follows key between the brackets open and close
// ("conditions":[…], "positions":{…}), or nil.
func jsonGroup(body []byte, key string, open, close byte) []byte {
	j := valueAt(body, key)
	if j < 0 || j >= len(body) || body[j] != open {
		return nil
	}
	end := bytes.IndexByte(body[j:], close)
	if end < 0 {
		return nil
	}
	return body[j+1 : j+end]
}

func validArgs(b []byte) bool {
	for _, c := range b {
		switch c {
		case ' ', '\t', '(', ')':
			return false
		}
	}
	return true
}
