package logcat

import "strings"

// Crash reports as they appear in the log:
//
//   - Java: AndroidRuntime, level E, "FATAL EXCEPTION: <thread>", then the
//     process line and the stack trace (one entry, or one per line);
//   - ANR: ActivityManager, level E, "ANR in <process>", then the reason and
//     CPU usage lines;
//   - native: DEBUG (level F since Android 11, E or I before) opens with the
//     "*** *** ***" banner and continues with registers and the backtrace;
//     libc logs "Fatal signal N (SIGxxx)" in the crashing process;
//   - anything in the crash buffer.
const nativeBanner = "*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***"

// maxCrashPIDs bounds the crash reports followed at once.
const maxCrashPIDs = 16

// Classifier sets FlagCrash, FlagCrashStart and FlagStackTrace. It follows a
// crash report over the entries after its banner: the same pid, tag and
// level continue it; anything else from that pid ends it. The zero value is
// ready; it is not safe for concurrent use (Ring serialises it).
type Classifier struct {
	open []openCrash
}

type openCrash struct {
	pid int32
	tag string
	pri Priority
}

// Classify marks e.
func (c *Classifier) Classify(e *Entry) {
	if hasStackTrace(e.Message) {
		e.Flags |= FlagStackTrace
	}
	if crashBanner(e) {
		e.Flags |= FlagCrash | FlagCrashStart
		c.start(e.PID, e.Tag, e.Priority)
		return
	}
	for i, o := range c.open {
		if o.pid != e.PID {
			continue
		}
		if o.tag == e.Tag && o.pri == e.Priority {
			e.Flags |= FlagCrash
		} else {
			c.open = append(c.open[:i], c.open[i+1:]...)
		}
		break
	}
	if e.Buffer == Crash && !e.Has(FlagCrash) {
		e.Flags |= FlagCrash | FlagCrashStart
		c.start(e.PID, e.Tag, e.Priority)
	}
}

func (c *Classifier) start(pid int32, tag string, pri Priority) {
	for i, o := range c.open {
		if o.pid == pid {
			c.open[i] = openCrash{pid, tag, pri}
			return
		}
	}
	if len(c.open) == maxCrashPIDs {
		c.open = c.open[1:]
	}
	c.open = append(c.open, openCrash{pid, tag, pri})
}

// crashBanner reports whether e opens a crash report.
func crashBanner(e *Entry) bool {
	m := e.Message
	switch e.Tag {
	case "AndroidRuntime":
		return e.Priority >= Error && strings.HasPrefix(m, "FATAL EXCEPTION")
	case "ActivityManager":
		return e.Priority >= Error && strings.HasPrefix(m, "ANR in ")
	case "DEBUG", "crash_dump", "tombstoned":
		return strings.HasPrefix(m, nativeBanner)
	case "libc":
		return e.Priority >= Error && strings.HasPrefix(m, "Fatal signal ")
	}
	return false
}

// hasStackTrace reports whether a line of m is a Java frame ("at a.b.C.m(…)"),
// a "Caused by:" line, or a native backtrace frame ("#00 pc 0001234 …").
func hasStackTrace(m string) bool {
	for len(m) > 0 {
		line, rest, _ := strings.Cut(m, "\n")
		m = rest
		l := strings.TrimLeft(line, " \t")
		switch {
		case strings.HasPrefix(l, "at ") && strings.HasSuffix(l, ")") && strings.IndexByte(l, '(') > 3:
			return true
		case strings.HasPrefix(l, "Caused by: "):
			return true
		case len(l) > 8 && l[0] == '#' && isDigit(l[1]) && isDigit(l[2]) && strings.HasPrefix(l[3:], " pc "):
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
