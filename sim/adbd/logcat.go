package adbd

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/ddmtui/ddmtui/logcat"
)

// LogDevice is a Device with a log (what logd holds). For such a device the
// daemon runs `logcat` itself, on the shell: and exec: services, over the forms
// `adb logcat` sends ("export ANDROID_LOG_TAGS=\"”\"; exec logcat ARGS")
// and plain "logcat ARGS":
//
//	-B, --binary          binary records (v4 logger_entry, 28-byte header)
//	-v threadtime         text (the default; other formats are refused)
//	-d                    print what is buffered and exit
//	-t N                  the last N entries, then exit
//	-T N                  the last N entries, then follow
//	-b BUF[,BUF]          buffers: main system crash radio events kernel, all, default
//	--pid PID, --pid=PID  only that process's entries
//	TAG:L, *:L            filter specs, as logcat takes them
//
// Without -d or -t the stream follows the log until the host closes it.
type LogDevice interface {
	Device
	Logcat() *logcat.Ring
}

// logcatService returns the service for a shell command line that runs
// logcat, when the device has a log. (Helper note: an exec: service can
// call this too.)
func (c *conn) logcatService(cmdline string) (func(*stream), bool) {
	ld, ok := c.srv.dev.(LogDevice)
	if !ok {
		return nil, false
	}
	args, ok := logcatCommand(cmdline)
	if !ok {
		return nil, false
	}
	return func(st *stream) {
		defer st.close()
		if st.accept() != nil {
			return
		}
		st.discardInbound()
		err := runLogcat(st.ctx, ld.Logcat(), args, streamWriter{st})
		c.log.Debug("adbd: logcat ended", "args", args, "err", err)
	}, true
}

// logcatCommand recognises a command line that runs logcat and returns
// logcat's arguments: statements are split on ';', `export` ones are
// skipped, and `exec` in front of logcat is dropped.
func logcatCommand(cmdline string) ([]string, bool) {
	var last []string
	for _, stmt := range splitStatements(cmdline) {
		words, err := splitWords(stmt)
		if err != nil || len(words) == 0 {
			return nil, false
		}
		if words[0] == "export" {
			continue
		}
		if last != nil {
			return nil, false // logcat followed by something else
		}
		if words[0] == "exec" {
			words = words[1:]
		}
		if len(words) == 0 || words[0] != "logcat" {
			return nil, false
		}
		last = words[1:]
	}
	return last, last != nil
}

// splitStatements splits on ';' outside quotes.
func splitStatements(s string) []string {
	var out []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == ';':
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// logcatArgs is a parsed logcat command line.
type logcatArgs struct {
	binary  bool
	dump    bool
	tail    int // -1: everything
	pid     int32
	buffers map[logcat.LogID]bool
	filters map[string]logcat.Priority // "*" is the default
}

func parseLogcatArgs(args []string) (logcatArgs, error) {
	a := logcatArgs{tail: -1, buffers: map[logcat.LogID]bool{}, filters: map[string]logcat.Priority{}}
	value := func(i *int, opt string) (string, error) {
		arg := args[*i]
		if len(arg) > len(opt) && strings.HasPrefix(arg, opt) { // -vthreadtime, --pid=1
			return strings.TrimPrefix(strings.TrimPrefix(arg, opt), "="), nil
		}
		if *i+1 >= len(args) {
			return "", fmt.Errorf("option %s needs a value", opt)
		}
		*i++
		return args[*i], nil
	}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		switch {
		case arg == "-B" || arg == "--binary":
			a.binary = true
		case arg == "-d":
			a.dump = true
		case strings.HasPrefix(arg, "-v"):
			v, err := value(&i, "-v")
			if err != nil {
				return a, err
			}
			if v != "threadtime" {
				return a, fmt.Errorf("format %q is not simulated (only threadtime)", v)
			}
		case strings.HasPrefix(arg, "-t") || strings.HasPrefix(arg, "-T"):
			v, err := value(&i, arg[:2])
			if err != nil {
				return a, err
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return a, fmt.Errorf("%s %q: only a count is simulated", arg[:2], v)
			}
			a.tail = n
			if arg[1] == 't' {
				a.dump = true
			}
		case strings.HasPrefix(arg, "-b"):
			v, err := value(&i, "-b")
			if err != nil {
				return a, err
			}
			for _, name := range strings.Split(v, ",") {
				switch name {
				case "all":
					for id := logcat.Main; id <= logcat.Kernel; id++ {
						a.buffers[id] = true
					}
				case "default":
					a.buffers[logcat.Main], a.buffers[logcat.System], a.buffers[logcat.Crash] = true, true, true
				default:
					id, ok := logcat.ParseLogID(name)
					if !ok {
						return a, fmt.Errorf("unknown buffer %q", name)
					}
					a.buffers[id] = true
				}
			}
		case strings.HasPrefix(arg, "--pid"):
			v, err := value(&i, "--pid")
			if err != nil {
				return a, err
			}
			pid, ok := parsePID(v)
			if !ok {
				return a, fmt.Errorf("--pid %q: not a pid", v)
			}
			a.pid = int32(pid)
		case strings.HasPrefix(arg, "-"):
			return a, fmt.Errorf("unknown option %q", arg)
		default:
			tag, lvl, ok := strings.Cut(arg, ":")
			pri, err := logcat.ParsePriority(lvl)
			if !ok || tag == "" || err != nil {
				return a, fmt.Errorf("invalid filter spec %q", arg)
			}
			a.filters[tag] = pri
		}
	}
	if len(a.buffers) == 0 {
		a.buffers[logcat.Main], a.buffers[logcat.System], a.buffers[logcat.Crash] = true, true, true
	}
	return a, nil
}

// keep applies the buffers, --pid and the filter specs.
func (a *logcatArgs) keep(e *logcat.Entry) bool {
	if !a.buffers[e.Buffer] || (a.pid != 0 && e.PID != a.pid) {
		return false
	}
	if len(a.filters) == 0 {
		return true
	}
	min, ok := a.filters[e.Tag]
	if !ok {
		if min, ok = a.filters["*"]; !ok {
			return true
		}
	}
	return e.Priority >= min
}

// runLogcat writes the log to out as logcat would, then follows it unless
// asked to dump; it ends when ctx ends or out fails. A bad command line
// prints logcat's complaint and ends.
func runLogcat(ctx context.Context, ring *logcat.Ring, argv []string, out io.Writer) error {
	a, err := parseLogcatArgs(argv)
	if err != nil {
		_, werr := fmt.Fprintf(out, "logcat: %v\n", err)
		return werr
	}
	changed := ring.Changed()
	first, _ := ring.Bounds()
	entries, next, _ := ring.Read(nil, first, 0)
	kept := entries[:0]
	for i := range entries {
		if a.keep(&entries[i]) {
			kept = append(kept, entries[i])
		}
	}
	if a.tail >= 0 && len(kept) > a.tail {
		kept = kept[len(kept)-a.tail:]
	}
	var w logWriter
	w.binary, w.dividers = a.binary, len(a.buffers) > 1
	if err := w.write(out, kept); err != nil {
		return err
	}
	if a.dump {
		return nil
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
		changed = ring.Changed()
		entries, next, _ = ring.Read(entries[:0], next, 0)
		kept := entries[:0]
		for i := range entries {
			if a.keep(&entries[i]) {
				kept = append(kept, entries[i])
			}
		}
		if err := w.write(out, kept); err != nil {
			return err
		}
	}
}

// logWriter formats entries as logcat does, with its "--------- beginning
// of BUFFER" line the first time a buffer shows when several are read.
type logWriter struct {
	binary   bool
	dividers bool
	seen     [16]bool
	buf      []byte
}

func (w *logWriter) write(out io.Writer, entries []logcat.Entry) error {
	w.buf = w.buf[:0]
	for i := range entries {
		e := &entries[i]
		if w.binary {
			var err error
			if w.buf, err = logcat.AppendBinary(w.buf, e, logcat.HeaderV4Size); err != nil {
				return err
			}
			continue
		}
		if w.dividers && int(e.Buffer) < len(w.seen) && !w.seen[e.Buffer] {
			w.seen[e.Buffer] = true
			w.buf = fmt.Appendf(w.buf, "--------- beginning of %s\n", e.Buffer)
		}
		w.buf = logcat.AppendThreadtime(w.buf, e, time.Local)
	}
	if len(w.buf) == 0 {
		return nil
	}
	_, err := out.Write(w.buf)
	return err
}
