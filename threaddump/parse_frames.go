package threaddump

import (
	"strings"
)

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
