package mapping

import (
	"bufio"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ddmtui/ddmtui/internal/safetext"
)

// Text retracing: any text in, the same text out with Java stack frames
// (`at a.b.c(SourceFile:12)`), exception lines (`Caused by: a.b: …`) and
// class names elsewhere (`a.b cannot be cast to a.c`, `- locked <…> (a a.b)`)
// turned into the source's names, as R8's retrace does. Bytes other than
// the replaced names are kept as given; a replaced name passes through
// safetext.Terminal, so a mapping file cannot put control characters on a
// terminal. Ambiguous frames print every candidate, the later ones marked
// `<OR>` as R8's retrace marks them.

// frameRE matches a frame: prefix ending in "at ", an optional module
// ("java.base/"), class.method, and what is in the parentheses.
var frameRE = regexp.MustCompile(`^(|.*?\s)at ((?:[\w.$@-]+/)?)([\w$.-]+)\.([\w$<>-]+)\(([^()]*)\)(.*)$`)

// matchFrame parses a frame line by hand, as frameRE would match it (the
// regular expression is the reference the tests compare against): it
// returns frameRE's submatch indexes, or nil.
func matchFrame(body string) []int {
	for from := 0; ; {
		k := strings.Index(body[from:], "at ")
		if k < 0 {
			return nil
		}
		p := from + k
		from = p + 1
		if p > 0 && !isSpace(body[p-1]) {
			continue
		}
		q := p + 3
		open := strings.IndexByte(body[q:], '(')
		if open < 0 {
			return nil
		}
		open += q
		name, nameAt, modEnd := body[q:open], q, q
		if sl := strings.IndexByte(name, '/'); sl >= 0 {
			if sl == 0 || !allBytes(name[:sl], isModuleByte) {
				continue
			}
			modEnd = q + sl + 1
			name, nameAt = body[modEnd:open], modEnd
		}
		dot := strings.LastIndexByte(name, '.')
		if dot <= 0 || dot == len(name)-1 || !allBytes(name[:dot], isClassByte) || !allBytes(name[dot+1:], isMethodByte) {
			continue
		}
		closeAt := strings.IndexAny(body[open+1:], "()")
		if closeAt < 0 || body[open+1+closeAt] != ')' {
			continue
		}
		closeAt += open + 1
		return []int{0, len(body), 0, p, q, modEnd, nameAt, nameAt + dot, nameAt + dot + 1, open, open + 1, closeAt, closeAt + 1, len(body)}
	}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
func isModuleByte(c byte) bool { return isWord(c) || c == '.' || c == '$' || c == '@' || c == '-' }
func isClassByte(c byte) bool  { return isWord(c) || c == '.' || c == '$' || c == '-' }
func isMethodByte(c byte) bool { return isWord(c) || c == '$' || c == '<' || c == '>' || c == '-' }

func allBytes(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

// exceptionRE matches a line that names a throwable: the trace's head,
// Caused by:, Suppressed:, or Exception in thread "…". R8 often moves
// classes to the top level (a, b), so the name may have no dot.
var exceptionRE = regexp.MustCompile(`^\s*(?:Caused by: |Suppressed: |Exception in thread "[^"]*" )?([\w$]+(?:\.[\w$]+)*)(?::|\s*$)`)

// namedRE matches the places in a message that hold a class name whatever
// its shape: casts (the VM's two wordings) and a dump's lock lines.
var namedRE = regexp.MustCompile(`(?:class )?([\w$.]+) cannot be cast to (?:class )?([\w$.]+)|<0x[0-9a-f]+> \(a ([\w$.]+)\)`)

// classRE matches a dotted name that may be a class.
var classRE = regexp.MustCompile(`[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$-]*)+(?:\[\])*`)

// TextStats counts what RetraceText saw.
type TextStats struct {
	Frames, Retraced, Ambiguous int
	Classes                     []string // distinct class names seen in frames
}

// maxTextLine bounds one input line held in memory; the rest of a longer
// line is copied through as it comes.
const maxTextLine = 1 << 20

type pendingFrame struct {
	line    string
	m       []int // submatch indexes of frameRE
	frame   StackFrame
	native  bool
	hasLine bool
}

// textRetracer carries the state of one text: the frames of the stack being
// read and the throwable they belong to.
type textRetracer struct {
	m       *Mapping
	w       *bufio.Writer
	thrown  string
	pending []pendingFrame
	stats   TextStats
	seen    map[string]bool
}

// RetraceText copies r to w, retracing as described above.
func (m *Mapping) RetraceText(w io.Writer, r io.Reader) (TextStats, error) {
	t := &textRetracer{m: m, w: bufio.NewWriter(w), seen: map[string]bool{}}
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(long)+len(chunk) > maxTextLine {
				// Too long to be a frame: flush and copy through.
				t.flush()
				t.w.Write(long)
				t.w.Write(chunk)
				long = long[:0]
				if _, err := t.copyRest(br); err != nil {
					return t.stats, err
				}
				continue
			}
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if len(long) > 0 {
			line = append(long, chunk...)
			long = long[:0]
		}
		if len(line) > 0 {
			t.line(string(line))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.flush()
			t.w.Flush()
			return t.stats, err
		}
	}
	t.flush()
	return t.stats, t.w.Flush()
}

// copyRest copies the remainder of an overlong line.
func (t *textRetracer) copyRest(br *bufio.Reader) (int, error) {
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		t.w.Write(chunk)
		n += len(chunk)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF {
			return n, nil
		}
		return n, err
	}
}

// RetraceString retraces a text held in memory (a log line, a dump).
func (m *Mapping) RetraceString(s string) string {
	var b strings.Builder
	_, _ = m.RetraceText(&b, strings.NewReader(s))
	return b.String()
}

func (t *textRetracer) line(line string) {
	body := strings.TrimRight(line, "\r\n")
	if sm := matchFrame(body); sm != nil {
		t.pending = append(t.pending, t.parseFrame(line, sm))
		return
	}
	t.flush()
	if em := exceptionRE.FindStringSubmatchIndex(body); em != nil {
		name := body[em[2]:em[3]]
		if orig, ok := t.m.Class(name); ok || strings.Contains(name, ".") {
			t.thrown = name
			if ok {
				line = line[:em[2]] + safetext.Terminal(orig) + t.m.ReplaceClassNames(line[em[3]:])
				t.w.WriteString(line)
				return
			}
		}
	}
	t.w.WriteString(t.m.ReplaceClassNames(line))
}

func (t *textRetracer) parseFrame(line string, sm []int) pendingFrame {
	body := strings.TrimRight(line, "\r\n")
	p := pendingFrame{line: line, m: sm}
	cls, meth, where := body[sm[6]:sm[7]], body[sm[8]:sm[9]], body[sm[10]:sm[11]]
	p.frame = StackFrame{Class: cls, Method: meth, Line: NoLine}
	p.native = strings.EqualFold(where, "Native Method")
	if i := strings.LastIndexByte(where, ':'); i >= 0 {
		if n, err := strconv.Atoi(where[i+1:]); err == nil && n >= 0 {
			p.frame.Line = n
			p.hasLine = true
		}
	}
	return p
}

// flush retraces and writes the frames read since the last other line.
func (t *textRetracer) flush() {
	if len(t.pending) == 0 {
		return
	}
	frames := make([]StackFrame, len(t.pending))
	for i, p := range t.pending {
		frames[i] = p.frame
		if !t.seen[p.frame.Class] {
			t.seen[p.frame.Class] = true
			t.stats.Classes = append(t.stats.Classes, p.frame.Class)
		}
	}
	results := t.m.Stack(t.thrown, frames)
	for i, p := range t.pending {
		t.stats.Frames++
		t.writeFrame(p, results[i])
	}
	t.pending = t.pending[:0]
	t.thrown = ""
}

func (t *textRetracer) writeFrame(p pendingFrame, r Retraced) {
	if !r.Known {
		t.w.WriteString(p.line)
		return
	}
	t.stats.Retraced++
	if r.Dropped {
		return
	}
	body := strings.TrimRight(p.line, "\r\n")
	eol := p.line[len(body):]
	sep := eol
	if sep == "" {
		sep = "\n"
	}
	sm := p.m
	prefix, module, suffix := body[:sm[3]], body[sm[4]:sm[5]], body[sm[12]:sm[13]]
	// Each candidate as the lines it prints; candidates that print the
	// same (overloads, shown without their parameters) are one.
	var alts []string
	for _, ch := range r.Candidates {
		var b strings.Builder
		for k, f := range ch {
			if k > 0 {
				b.WriteString(sep)
				b.WriteString(prefix)
			}
			b.WriteString("at ")
			b.WriteString(module)
			b.WriteString(safetext.Terminal(f.Class))
			b.WriteByte('.')
			b.WriteString(safetext.Terminal(f.Name))
			b.WriteByte('(')
			switch {
			case p.native:
				b.WriteString("Native Method")
			case f.Line == NoLine || (!p.hasLine && k == 0):
				b.WriteString(safetext.Terminal(f.File))
			default:
				b.WriteString(safetext.Terminal(f.File))
				b.WriteByte(':')
				b.WriteString(strconv.Itoa(f.Line))
			}
			b.WriteByte(')')
		}
		if !slices.Contains(alts, b.String()) {
			alts = append(alts, b.String())
		}
	}
	if len(alts) > 1 {
		t.stats.Ambiguous++
	}
	for i, a := range alts {
		t.w.WriteString(prefix)
		if i > 0 {
			t.w.WriteString("<OR> ")
		}
		t.w.WriteString(a)
		if i == len(alts)-1 {
			t.w.WriteString(suffix)
			t.w.WriteString(eol)
		} else {
			t.w.WriteString(sep)
		}
	}
}

// ReplaceClassNames replaces the class names the mapping knows in s (a
// message, a lock line): every dotted name, and names without a package
// where the text says they are classes (casts, locks).
func (m *Mapping) ReplaceClassNames(s string) string {
	var locs [][]int
	for _, g := range namedRE.FindAllStringSubmatchIndex(s, -1) {
		for k := 2; k+1 < len(g); k += 2 {
			if g[k] >= 0 {
				locs = append(locs, []int{g[k], g[k+1]})
			}
		}
	}
	if strings.Contains(s, ".") {
		for _, l := range classRE.FindAllStringIndex(s, -1) {
			if !slices.ContainsFunc(locs, func(x []int) bool { return x[0] < l[1] && l[0] < x[1] }) {
				locs = append(locs, l)
			}
		}
		slices.SortFunc(locs, func(a, b []int) int { return a[0] - b[0] })
	}
	if locs == nil {
		return s
	}
	var b strings.Builder
	prev := 0
	for _, l := range locs {
		name := s[l[0]:l[1]]
		orig, ok := m.Class(name)
		if !ok {
			continue
		}
		b.WriteString(s[prev:l[0]])
		b.WriteString(safetext.Terminal(orig))
		prev = l[1]
	}
	if prev == 0 {
		return s
	}
	b.WriteString(s[prev:])
	return b.String()
}
