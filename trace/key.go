package trace

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// keyParser reads the text key section (spec §2): *version, options,
// *threads, *methods, *end. It is lenient where dmtracedump is strict
// (sections in any order after *version, unknown sections skipped with a
// warning) and strict where memory is at stake (line and section sizes).
type keyParser struct {
	src   *source
	lim   Limits
	ws    *Warnings
	part  string
	hdr   *Header
	lines int
	seen  map[uint32]bool // method ids, to warn about duplicates
	// summaryV2 accepts versions 4 and 5: the summary packet of ART's
	// format V2 (spec §5) is key text with those versions.
	summaryV2 bool
}

type keySection int

const (
	sectionVersion keySection = iota
	sectionThreads
	sectionMethods
	sectionUnknown
)

func (kp *keyParser) fail(off int64, what string, err error) error {
	return &FormatError{Part: kp.part, Offset: off, Line: kp.lines, What: what, Err: err}
}

func (kp *keyParser) warn(off int64, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if kp.lines > 0 {
		msg = "line " + strconv.Itoa(kp.lines) + ": " + msg
	}
	kp.ws.add(Warning{Kind: WarnKey, Part: kp.part, Offset: off, Message: msg})
}

// parse reads through the *end line; the source is then positioned at the
// data header. The returned header has Version, Options, Threads, Methods and
// KeyBytes set; the data header fields are filled in by the caller.
func (kp *keyParser) parse() (*Header, error) {
	kp.hdr = &Header{}
	kp.seen = make(map[uint32]bool)
	start := kp.src.off
	section := sectionVersion
	versionSeen := false
	for {
		line, off, unterminated, err := kp.src.readLine(kp.lim.MaxLineBytes)
		kp.lines++
		if err != nil {
			if err == ErrLimit {
				return nil, kp.fail(off, "key line", fmt.Errorf("%w: longer than %d bytes", ErrLimit, kp.lim.MaxLineBytes))
			}
			return nil, kp.fail(off, "key line", err)
		}
		if kp.src.off-start > kp.lim.MaxKeyBytes {
			return nil, kp.fail(off, "key section", fmt.Errorf("%w: longer than %d bytes", ErrLimit, kp.lim.MaxKeyBytes))
		}
		if kp.lines == 1 {
			if !isToken(line, "*version") {
				return nil, kp.fail(off, "key", fmt.Errorf("%w: first line is not *version", ErrNotTrace))
			}
			continue
		}
		if unterminated && len(line) == 0 {
			return nil, kp.fail(off, "key", fmt.Errorf("%w: no *end line", ErrTruncated))
		}
		if len(line) > 0 && line[0] == '*' {
			switch {
			case isToken(line, "*end"):
				if !versionSeen {
					return nil, kp.fail(off, "key", fmt.Errorf("%w: no version number", ErrMalformed))
				}
				if unterminated {
					kp.warn(off, "*end line has no newline")
				}
				kp.hdr.KeyBytes = kp.src.off - start
				return kp.hdr, nil
			case isToken(line, "*version"):
				section = sectionVersion
			case isToken(line, "*threads"):
				section = sectionThreads
			case isToken(line, "*methods"):
				section = sectionMethods
			default:
				kp.warn(off, "unknown section %q skipped", truncateForMessage(line))
				section = sectionUnknown
			}
			if unterminated {
				return nil, kp.fail(off, "key", fmt.Errorf("%w: no *end line", ErrTruncated))
			}
			continue
		}
		if unterminated {
			return nil, kp.fail(off, "key", fmt.Errorf("%w: no *end line", ErrTruncated))
		}
		if len(line) == 0 {
			continue
		}
		switch section {
		case sectionVersion:
			if !versionSeen {
				v, err := parseVersionNumber(string(trimCR(line)), kp.summaryV2)
				if err != nil {
					return nil, kp.fail(off, "version", err)
				}
				kp.hdr.Version = v
				versionSeen = true
				continue
			}
			kp.option(line, off)
		case sectionThreads:
			t, problem := parseThreadLine(string(line))
			if problem != "" {
				kp.warn(off, "%s", problem)
				continue
			}
			kp.hdr.Threads = append(kp.hdr.Threads, t)
		case sectionMethods:
			if len(kp.hdr.Methods) >= kp.lim.MaxMethods {
				return nil, kp.fail(off, "methods", fmt.Errorf("%w: more than %d methods", ErrLimit, kp.lim.MaxMethods))
			}
			m, problem := parseMethodLine(string(line))
			if problem != "" {
				kp.warn(off, "%s", problem)
				continue
			}
			if m.ID&3 != 0 {
				kp.warn(off, "method id %#x has action bits set; no record can refer to it", m.ID)
			}
			if kp.seen[m.ID] {
				kp.warn(off, "method id %#x listed twice; the first line is used", m.ID)
			}
			kp.seen[m.ID] = true
			kp.hdr.Methods = append(kp.hdr.Methods, m)
		}
	}
}

func (kp *keyParser) option(line []byte, off int64) {
	s := string(trimCR(line))
	k, v, ok := strings.Cut(s, "=")
	if !ok {
		kp.warn(off, "option line %q has no '='", truncateForMessage(line))
		return
	}
	kp.hdr.Options = append(kp.hdr.Options, Option{Key: k, Value: v})
}

// parseVersionNumber reads the *version value like strtoul with base 0.
func parseVersionNumber(s string, v2 bool) (int, error) {
	s = strings.TrimSpace(s)
	n, err := strconv.ParseUint(s, 0, 16)
	if err != nil {
		return 0, fmt.Errorf("%w: version %q is not a number", ErrMalformed, truncateForMessage([]byte(s)))
	}
	if v2 && (n == VersionSingleClockV2 || n == VersionDualClockV2) {
		return int(n), nil
	}
	if n < 1 || n > 3 {
		return 0, fmt.Errorf("%w: %d (this reader knows 1, 2 and 3)", ErrVersion, n)
	}
	return int(n), nil
}

// isToken reports whether line is the section token, ignoring a trailing
// '\r' or blanks (a key edited on Windows still has its sections found).
func isToken(line []byte, token string) bool {
	return string(bytes.TrimRight(line, "\r \t")) == token
}

func trimCR(b []byte) []byte { return bytes.TrimRight(b, "\r") }

func truncateForMessage(b []byte) string {
	const max = 60
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// applyOptionsToClocks derives the clocks from the clock= option and the
// record layout (spec §2.1, §3.2). layoutDual is true when each record has
// room for two time fields.
func clocksFor(h *Header, layoutDual bool, warn func(string)) Clocks {
	v, ok := h.Option("clock")
	var c Clocks
	if ok {
		if parsed, known := ParseClocks(v); known {
			c = parsed
		} else {
			warn(fmt.Sprintf("unknown clock %q; reading the records by their layout", v))
		}
	}
	if c == 0 {
		if layoutDual {
			return Dual
		}
		return CPUOnly
	}
	if c == Dual && !layoutDual {
		warn("clock=dual but records have room for one time only; reading it as thread-cpu")
		return CPUOnly
	}
	return c
}
