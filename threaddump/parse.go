package threaddump

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Default input bounds.
const (
	// DefaultMaxLineLength is how many bytes of one line are kept; the rest
	// of a longer line is dropped and a Warning recorded.
	DefaultMaxLineLength = 64 << 10
	// DefaultMaxBytes is how much input is read; ANR files are a few MiB.
	DefaultMaxBytes = 64 << 20
)

// Options bound the parser. Zero fields take the defaults.
type Options struct {
	MaxLineLength int
	MaxBytes      int64
}

// Parse reads a dump with the default Options.
func Parse(r io.Reader) (*Dump, error) { return Options{}.Parse(r) }

// Parse reads a dump. It never fails on content: unknown lines are kept,
// input that ends early sets Truncated, input past MaxBytes sets SizeLimited.
// The error is a read error from r, returned with what was parsed before it.
func (o Options) Parse(r io.Reader) (*Dump, error) {
	if o.MaxLineLength <= 0 {
		o.MaxLineLength = DefaultMaxLineLength
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	limited := &io.LimitedReader{R: r, N: o.MaxBytes}
	lines := newLineReader(limited, o.MaxLineLength)
	p := &parser{d: &Dump{}}
	var readErr error
	for {
		text, cut, err := lines.next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = fmt.Errorf("threaddump: line %d: %w", lines.no, err)
			}
			break
		}
		if cut {
			p.warn(lines.no, fmt.Sprintf("line longer than %d bytes; the rest was dropped", o.MaxLineLength))
		}
		p.line(lines.no, text)
	}
	if readErr == nil && limited.N <= 0 {
		var one [1]byte
		if n, _ := io.ReadFull(r, one[:]); n > 0 {
			p.d.SizeLimited = true
			p.d.Truncated = true
			p.warn(lines.no, fmt.Sprintf("input longer than %d bytes; the rest was not read", o.MaxBytes))
		}
	}
	p.finish()
	return p.d, readErr
}

// lineReader yields lines without their "\n" and trailing "\r"s, cutting
// lines at max bytes without ever holding more than max plus one buffer.
type lineReader struct {
	br  *bufio.Reader
	max int
	no  int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 16<<10), max: max}
}

func (lr *lineReader) next() (text string, cut bool, err error) {
	lr.buf = lr.buf[:0]
	consumed := 0
	for {
		frag, ferr := lr.br.ReadSlice('\n')
		consumed += len(frag)
		content := frag
		if ferr == nil {
			content = frag[:len(frag)-1] // drop the '\n'
		}
		if room := lr.max - len(lr.buf); len(content) > room {
			content, cut = content[:room], true
		}
		lr.buf = append(lr.buf, content...)
		if ferr == bufio.ErrBufferFull {
			continue
		}
		if ferr != nil && (consumed == 0 || !errors.Is(ferr, io.EOF)) {
			return "", false, ferr
		}
		break
	}
	lr.no++
	b := bytes.TrimRight(lr.buf, "\r")
	return string(b), cut, nil
}

// parser is the state machine over lines, keyed on the three anchors of the
// spec's parsing advice: the process start and end lines and thread headers.
type parser struct {
	d      *Dump
	proc   *Process
	thread *Thread
	strs   map[string]string // shared strings (compact.go)
}

// maxWarnings bounds Dump.Warnings; hostile input could otherwise earn one
// per line.
const maxWarnings = 1000

func (p *parser) warn(line int, msg string) {
	switch n := len(p.d.Warnings); {
	case n < maxWarnings:
		p.d.Warnings = append(p.d.Warnings, Warning{Line: line, Message: msg})
	case n == maxWarnings:
		p.d.Warnings = append(p.d.Warnings, Warning{Line: line, Message: "more warnings not listed"})
	}
}

func (p *parser) line(no int, text string) {
	if pid, date, ok := parseProcessStart(text); ok {
		p.endProcess(no, true)
		p.proc = &Process{PID: pid, Date: date, Line: no}
		p.d.Processes = append(p.d.Processes, p.proc)
		return
	}
	if pid, ok := parseProcessEnd(text); ok && p.proc != nil {
		if pid != p.proc.PID {
			p.warn(no, fmt.Sprintf("end line names pid %d inside the block of pid %d", pid, p.proc.PID))
		}
		p.endProcess(no, false)
		return
	}
	blank := strings.TrimSpace(text) == ""
	if p.proc == nil {
		if !blank {
			p.d.Unknown = append(p.d.Unknown, Line{no, text})
		}
		return
	}
	if t := parseThreadHeader(text); t != nil {
		p.endThread(false)
		t.Line = no
		p.thread = t
		p.proc.Threads = append(p.proc.Threads, t)
		return
	}
	if p.thread != nil {
		if blank {
			p.endThread(false)
			return
		}
		p.threadLine(no, text)
		return
	}
	if blank {
		return
	}
	p.processLine(no, text)
}

// endThread closes the current thread block.
func (p *parser) endThread(truncated bool) {
	if p.thread != nil && truncated {
		p.thread.Truncated = true
	}
	if p.thread != nil {
		p.compact(p.thread)
	}
	p.thread = nil
}

// endProcess closes the current process block; truncated when no end line
// was seen.
func (p *parser) endProcess(no int, truncated bool) {
	if p.proc == nil {
		return
	}
	p.endThread(truncated)
	proc := p.proc
	p.proc = nil
	if truncated {
		proc.Truncated = true
		p.d.Truncated = true
	}
	if proc.VM == VMUnknown && len(proc.Threads) > 0 {
		native := true
		for _, t := range proc.Threads {
			native = native && t.Unattached
		}
		if native {
			proc.VM = VMNative
		}
	}
	attached := 0
	for _, t := range proc.Threads {
		if !t.Unattached {
			attached++
		}
	}
	if !truncated && proc.DeclaredThreads > 0 && attached != proc.DeclaredThreads {
		p.warn(no, fmt.Sprintf("pid %d declares %d threads but lists %d", proc.PID, proc.DeclaredThreads, attached))
	}
}

func (p *parser) finish() { p.endProcess(0, true) }

// processLine handles a line of a process block outside any thread: header
// fields (spec §1), the thread list header, and runtime sections.
func (p *parser) processLine(no int, text string) {
	proc := p.proc
	if n, ok := parseThreadListHeader(text); ok {
		if n < 0 {
			proc.VM = VMDalvik
		} else {
			proc.VM, proc.DeclaredThreads = VMART, n
		}
		return
	}
	if text == "NATIVE THREADS:" {
		return // Dalvik's marker before its unattached threads
	}
	// A header field is taken once, the first time it has a value; repeats
	// and empty values stay with the runtime lines.
	if v, ok := strings.CutPrefix(text, "Cmd line:"); ok && proc.CmdLine == "" {
		if v = strings.TrimPrefix(v, " "); v != "" {
			proc.CmdLine = v
			return
		}
	}
	if v, ok := strings.CutPrefix(text, "Original command line:"); ok && proc.OriginalCmdLine == "" {
		if v = strings.TrimPrefix(v, " "); v != "" {
			proc.OriginalCmdLine = v
			return
		}
	}
	if v, ok := quotedField(text, "Build fingerprint: "); ok && proc.BuildFingerprint == "" {
		proc.BuildFingerprint = v
		return
	}
	if v, ok := quotedField(text, "ABI: "); ok && proc.ABI == "" {
		proc.ABI = v
		return
	}
	if v, ok := strings.CutPrefix(text, "Build type: "); ok && proc.BuildType == "" && v != "" {
		proc.BuildType = v
		return
	}
	proc.RuntimeLines = append(proc.RuntimeLines, Line{no, text})
}

// quotedField parses "<prefix>'value'" with a non-empty value.
func quotedField(text, prefix string) (string, bool) {
	v, ok := strings.CutPrefix(text, prefix)
	if !ok || len(v) < 3 || v[0] != '\'' || v[len(v)-1] != '\'' {
		return "", false
	}
	return v[1 : len(v)-1], true
}

// parseProcessStart parses "----- pid N at DATE -----".
func parseProcessStart(text string) (pid int, date string, ok bool) {
	mid, ok := cutAffixes(text, "----- pid ", " -----")
	if !ok {
		return 0, "", false
	}
	num, date, ok := strings.Cut(mid, " at ")
	if !ok {
		return 0, "", false
	}
	pid, ok = parseUint(num)
	return pid, date, ok
}

// parseProcessEnd parses "----- end N -----".
func parseProcessEnd(text string) (int, bool) {
	mid, ok := cutAffixes(text, "----- end ", " -----")
	if !ok {
		return 0, false
	}
	return parseUint(mid)
}

// parseThreadListHeader parses "DALVIK THREADS (N):" (ART, n >= 0) and
// "DALVIK THREADS:" (Dalvik, n = -1).
func parseThreadListHeader(text string) (int, bool) {
	if text == "DALVIK THREADS:" {
		return -1, true
	}
	mid, ok := cutAffixes(text, "DALVIK THREADS (", "):")
	if !ok {
		return 0, false
	}
	return parseUint(mid)
}

func cutAffixes(s, prefix, suffix string) (string, bool) {
	if len(s) < len(prefix)+len(suffix) || !strings.HasPrefix(s, prefix) || !strings.HasSuffix(s, suffix) {
		return "", false
	}
	return s[len(prefix) : len(s)-len(suffix)], true
}

// blanks separate tokens on header and detail lines. A carriage return
// counts as one so that no token ends in it: a token written at the end of
// a line would lose it to the line reader.
const blanks = " \t\r"

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// cutField splits s at its first blank.
func cutField(s string) (field, rest string) {
	if i := strings.IndexAny(s, blanks); i >= 0 {
		return s[:i], s[i+1:]
	}
	return s, ""
}

// parseUint parses a non-negative decimal that fits an int32-sized range
// (ids and counts), rejecting signs and spaces.
func parseUint(s string) (int, bool) {
	if s == "" || len(s) > 10 {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 32)
	return int(n), err == nil
}

// parseInt parses an optionally negative decimal in int32 range.
func parseInt(s string) (int, bool) {
	if v, ok := strings.CutPrefix(s, "-"); ok {
		n, ok := parseUint(v)
		return -n, ok
	}
	return parseUint(s)
}

// parseThreadHeader parses the header forms of spec §2.1:
//
//	"name"[ daemon] prio=N tid=N State[ flags…]
//	"name"[ daemon] prio=N (not attached)[ flags…]
//	"name" sysTid=N[ key=value…]     (Dalvik native threads, debuggerd)
//
// The name is everything between the first quote and the last quote before
// the last " prio=" (or " sysTid="), so names may hold quotes and spaces.
func parseThreadHeader(text string) *Thread {
	if len(text) < 2 || text[0] != '"' {
		return nil
	}
	if t := parsePrioHeader(text); t != nil {
		return t
	}
	return parseSysTidHeader(text)
}

func parsePrioHeader(text string) *Thread {
	j := strings.LastIndex(text, " prio=")
	if j < 0 {
		return nil
	}
	t := &Thread{}
	before := text[:j]
	switch {
	case len(before) >= len(`"" daemon`) && strings.HasSuffix(before, `" daemon`):
		t.Name, t.Daemon = before[1:len(before)-len(`" daemon`)], true
	case len(before) >= 2 && before[len(before)-1] == '"':
		t.Name = before[1 : len(before)-1]
	default:
		return nil
	}
	rest := text[j+len(" prio="):]
	num, rest, _ := strings.Cut(rest, " ")
	prio, ok := parseInt(num)
	if !ok {
		return nil
	}
	t.Priority = prio
	if after, ok := strings.CutPrefix(rest, "(not attached)"); ok && (after == "" || after[0] == ' ') {
		t.Unattached = true
		t.HeaderFlags = splitHeaderFlags(after)
		return t
	}
	tidText, ok := strings.CutPrefix(rest, "tid=")
	if !ok {
		return nil
	}
	num, rest, _ = strings.Cut(tidText, " ")
	if t.TID, ok = parseUint(num); !ok {
		return nil
	}
	t.State, rest = cutField(rest)
	t.HeaderFlags = splitHeaderFlags(rest)
	return t
}

func parseSysTidHeader(text string) *Thread {
	j := strings.LastIndex(text, `" sysTid=`)
	if j < 1 {
		return nil
	}
	rest := text[j+len(`" sysTid=`):]
	num, rest, _ := strings.Cut(rest, " ")
	sysTid, ok := parseUint(num)
	if !ok {
		return nil
	}
	t := &Thread{Name: text[1:j], SysTID: sysTid, Unattached: true}
	for _, d := range splitDetails(rest) {
		t.setDetail(d)
	}
	return t
}

// splitHeaderFlags splits what follows the state: parenthesised groups and
// "DisableFlipCount = N" stay whole, other words are single flags.
func splitHeaderFlags(s string) []string {
	var flags []string
	for {
		s = strings.TrimLeft(s, blanks)
		if s == "" {
			return flags
		}
		var flag string
		switch {
		case s[0] == '(' && strings.IndexByte(s, ')') > 0:
			end := strings.IndexByte(s, ')') + 1
			flag, s = s[:end], s[end:]
		case strings.HasPrefix(s, "DisableFlipCount = "):
			num, tail := cutField(s[len("DisableFlipCount = "):])
			flag, s = "DisableFlipCount = "+num, tail
		default:
			flag, s = cutField(s)
		}
		flags = append(flags, flag)
	}
}

// threadLine handles a line inside a thread block.
func (p *parser) threadLine(no int, text string) {
	t := p.thread
	s := strings.TrimLeft(text, " \t")
	switch {
	case strings.HasPrefix(s, "|"):
		if t.detailLine(strings.TrimLeft(s[1:], " ")) {
			return
		}
	case strings.HasPrefix(s, "- "):
		if l, ok := parseLock(s[2:]); ok {
			l.Frame = len(t.Frames) - 1
			t.Locks = append(t.Locks, l)
			return
		}
	default:
		if f, ok := parseFrame(s); ok {
			t.Frames = append(t.Frames, f)
			return
		}
	}
	t.Unknown = append(t.Unknown, Line{no, text})
}
