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

// detailLine applies one `|` line (spec §2.2): held mutexes, or an unordered
// set of key=value tokens. A second non-empty held-mutexes line is not
// merged with the first; it is reported as not understood.
func (t *Thread) detailLine(s string) bool {
	if rest, ok := strings.CutPrefix(s, "held mutexes="); ok {
		if len(t.HeldMutexes) > 0 {
			return false
		}
		t.HeldMutexes = splitMutexes(rest)
		return true
	}
	for _, d := range splitDetails(s) {
		t.setDetail(d)
	}
	return true
}

// setDetail stores a token in its field, or in ExtraDetails when the key is
// unknown or the value does not parse.
func (t *Thread) setDetail(d Detail) {
	// A plain value has no blanks and does not start with a quote or a
	// parenthesis, so it reads back the same wherever it is written.
	str := func(dst *string) bool {
		if d.Value != "" && (d.Value[0] == '"' || d.Value[0] == '(' || strings.ContainsAny(d.Value, blanks)) {
			return false
		}
		*dst = d.Value
		return true
	}
	num := func(dst *int) bool {
		n, ok := parseInt(d.Value)
		if ok {
			*dst = n
		}
		return ok
	}
	var ok bool
	switch d.Key {
	case "group":
		v, quoted := unquote(d.Value)
		if ok = quoted; ok {
			t.Group = v
		}
	case "sCount":
		ok = num(&t.SuspendCount)
	case "dsCount":
		ok = num(&t.DebugSuspendCount)
	case "ucsCount":
		ok = num(&t.UserCodeSuspendCount)
	case "flags":
		ok = num(&t.Flags)
	case "obj":
		ok = str(&t.Obj)
	case "self":
		ok = str(&t.Self)
	case "sysTid":
		ok = num(&t.SysTID)
	case "nice":
		ok = num(&t.Nice)
	case "cgrp":
		ok = str(&t.Cgroup)
	case "sched":
		ok = str(&t.Sched)
	case "handle":
		ok = str(&t.Handle)
	case "state":
		ok = str(&t.KernelState)
	case "schedstat":
		if inner, closed := cutAffixes(d.Value, "(", ")"); closed {
			t.SchedStat, ok = strings.TrimSpace(inner), true
		}
	case "utm":
		ok = num(&t.Utime)
	case "stm":
		ok = num(&t.Stime)
	case "core":
		ok = num(&t.Core)
	case "HZ":
		ok = num(&t.HZ)
	case "stack":
		ok = str(&t.Stack)
	case "stackSize":
		ok = str(&t.StackSize)
	}
	if !ok {
		t.ExtraDetails = append(t.ExtraDetails, d)
	}
}

func unquote(v string) (string, bool) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1], true
	}
	return v, false
}

// splitDetails splits a detail line into tokens. A value is a quoted string
// (closed by the first quote that ends the line or precedes " key="), a
// parenthesised group (schedstat), or a run of non-spaces.
func splitDetails(s string) []Detail {
	var out []Detail
	for {
		s = strings.TrimLeft(s, blanks)
		if s == "" {
			return out
		}
		k := identLen(s)
		if k == 0 || k >= len(s) || s[k] != '=' {
			word, rest := cutField(s)
			out = append(out, Detail{Value: word})
			s = rest
			continue
		}
		key, v := s[:k], s[k+1:]
		var end int
		switch {
		case strings.HasPrefix(v, `"`):
			end = closingQuote(v) + 1
		case strings.HasPrefix(v, "("):
			end = strings.IndexByte(v, ')') + 1
			if end == 0 {
				end = len(v)
			}
		default:
			end = strings.IndexAny(v, blanks)
			if end < 0 {
				end = len(v)
			}
		}
		out = append(out, Detail{Key: key, Value: v[:end]})
		s = v[end:]
	}
}

// closingQuote returns the index in v (which starts with a quote) of the
// quote that closes it: the first one at the end of v or followed by
// " key=". Without one, the value runs to the end (len(v)-1 is returned).
func closingQuote(v string) int {
	for i := 1; i < len(v); i++ {
		if v[i] != '"' {
			continue
		}
		if i == len(v)-1 {
			return i
		}
		if rest := v[i+1:]; rest[0] == ' ' {
			rest = strings.TrimLeft(rest, " ")
			if n := identLen(rest); n > 0 && n < len(rest) && rest[n] == '=' {
				return i
			}
		}
	}
	return len(v) - 1
}

// identLen returns the length of the identifier at the start of s.
func identLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return i
	}
	return len(s)
}

// splitMutexes splits the list after "held mutexes=": each `"name"` with an
// optional "(shared held)"/"(exclusive held)" right after it.
func splitMutexes(s string) []string {
	var out []string
	for {
		s = strings.TrimLeft(s, blanks)
		if s == "" {
			return out
		}
		end := 0
		if s[0] == '"' {
			if q := strings.IndexByte(s[1:], '"'); q >= 0 {
				end = q + 2
				if strings.HasPrefix(s[end:], "(") {
					if c := strings.IndexByte(s[end:], ')'); c >= 0 {
						end += c + 1
					}
				}
			} else {
				end = len(s)
			}
		}
		if end == 0 || (end < len(s) && !isBlank(s[end])) {
			if sp := strings.IndexAny(s[end:], blanks); sp >= 0 {
				end += sp
			} else {
				end = len(s)
			}
		}
		out = append(out, s[:end])
		s = s[end:]
	}
}

// Note lines printed in place of frames (spec §2.3, §2.4).
const (
	noteNoManagedFrames   = "(no managed stack frames)"
	noteNativeUnavailable = "(native backtrace unavailable)"
	noteRepeatedPrefix    = "... repeated "
)

// parseFrame parses a stack line with its indentation removed.
func parseFrame(s string) (Frame, bool) {
	switch {
	case strings.HasPrefix(s, "at "):
		return parseJavaFrame(s[3:])
	case strings.HasPrefix(s, "native: "):
		return parseNativeFrame(s[len("native: "):])
	case strings.HasPrefix(s, "#"):
		return parseNativeFrame(s)
	case strings.HasPrefix(s, "kernel: "):
		return Frame{Kind: FrameKernel, Text: s[len("kernel: "):]}, true
	case s == noteNoManagedFrames || s == noteNativeUnavailable || strings.HasPrefix(s, noteRepeatedPrefix):
		return Frame{Kind: FrameNote, Text: s}, true
	}
	return Frame{}, false
}

// parseJavaFrame parses "class.method(source)".
func parseJavaFrame(s string) (Frame, bool) {
	open := strings.LastIndexByte(s, '(')
	if open < 0 || !strings.HasSuffix(s, ")") {
		return Frame{}, false
	}
	f := Frame{Kind: FrameJava, Source: s[open+1 : len(s)-1]}
	qualified := s[:open]
	if dot := strings.LastIndexByte(qualified, '.'); dot >= 0 {
		f.Class, f.Method = qualified[:dot], qualified[dot+1:]
	} else {
		f.Method = qualified
	}
	return f, true
}

// parseNativeFrame parses "#NN pc PC  location" (ART after "native: ",
// debuggerd) and Dalvik's "#NN  pc PC  location".
func parseNativeFrame(s string) (Frame, bool) {
	rest, ok := strings.CutPrefix(s, "#")
	if !ok {
		return Frame{}, false
	}
	num, rest, _ := strings.Cut(rest, " ")
	index, ok := parseUint(num)
	if !ok {
		return Frame{}, false
	}
	rest, ok = strings.CutPrefix(strings.TrimLeft(rest, " "), "pc ")
	if !ok {
		return Frame{}, false
	}
	pc, loc := cutField(strings.TrimLeft(rest, " "))
	if pc == "" {
		return Frame{}, false
	}
	return Frame{Kind: FrameNative, Index: index, PC: pc, Location: strings.TrimLeft(loc, " ")}, true
}

// parseLock parses a lock line after its "- " (spec §2.4).
func parseLock(s string) (Lock, bool) {
	l := Lock{Kind: -1}
	for k := LockHeld; k <= LockWaitingForInflation; k++ {
		if rest, ok := strings.CutPrefix(s, k.String()+" "); ok {
			l.Kind, s = k, rest
			break
		}
	}
	if l.Kind < 0 {
		return Lock{}, false
	}
	switch {
	case strings.HasPrefix(s, "an unknown object"):
		l.UnknownObject = true
		s = s[len("an unknown object"):]
	case strings.HasPrefix(s, "<"):
		end := strings.IndexByte(s, '>')
		if end < 0 {
			return Lock{}, false
		}
		l.Object, s = s[1:end], s[end+1:]
	default:
		return Lock{}, false
	}
	if t, ok := strings.CutPrefix(s, " (a "); ok {
		if end := typeEnd(t); end >= 0 {
			l.Type, s = t[:end], t[end+1:]
		} else {
			return Lock{}, false
		}
	}
	if s == "" {
		return l, true
	}
	if n, ok := strings.CutPrefix(s, " held by thread "); ok {
		if l.HeldBy, ok = parseUint(n); ok {
			return l, true
		}
		return Lock{}, false
	}
	if rest, ok := strings.CutPrefix(s, " held by tid="); ok {
		num, name, _ := strings.Cut(rest, " ")
		var okTid bool
		if l.HeldBy, okTid = parseUint(num); !okTid {
			return Lock{}, false
		}
		if name == "" {
			return l, true
		}
		if inner, ok := cutAffixes(name, "(", ")"); ok {
			l.HeldByName = inner
			return l, true
		}
	}
	return Lock{}, false
}

// typeEnd returns the index of the ')' that closes "(a TYPE": the first one
// at the end of t or followed by " held by ", or -1.
func typeEnd(t string) int {
	for i := 0; i < len(t); i++ {
		if t[i] == ')' && (i == len(t)-1 || strings.HasPrefix(t[i+1:], " held by ")) {
			return i
		}
	}
	return -1
}
