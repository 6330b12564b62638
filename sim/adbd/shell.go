package adbd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// BasicShell is a tiny device shell with the commands a monitor sends
// through adb, for Device implementations to delegate Shell to:
//
//	echo ARGS…            prints ARGS
//	getprop [NAME]        all properties as "[name]: [value]", or one value
//	cat FILE…             file contents (e.g. /data/anr/traces.txt)
//	kill [-SIG] PID…      sends a signal; kill -3 asks a VM for a thread dump
//	rm [-f] FILE…         removes files
//
// and whatever Commands adds.
//
// Words are split on blanks; single and double quotes group them. Anything
// else prints "/system/bin/sh: NAME: not found" with status 127, like a
// device's shell. Nil fields make their command fail.
type BasicShell struct {
	// Properties backs getprop.
	Properties func() map[string]string
	// ReadFile backs cat; an error wrapping fs.ErrNotExist prints "No such
	// file or directory".
	ReadFile func(path string) ([]byte, error)
	// Signal backs kill; an error wrapping ErrNoProcess prints "No such
	// process".
	Signal func(pid int, sig syscall.Signal) error
	// Remove backs rm [-f] FILE…; an error wrapping fs.ErrNotExist prints
	// "No such file or directory" (silent with -f).
	Remove func(path string) error
	// Commands adds commands by name (e.g. am, debuggerd); each gets the
	// words after its name and returns its exit status.
	Commands map[string]func(ctx context.Context, args []string, out io.Writer) int
	// Extra, when set, is asked first with the command's words (quotes
	// removed, no globbing: "/proc/1/task/*/stat" arrives as written); it
	// reports whether it ran the command, and its exit status.
	Extra func(words []string, out io.Writer) (code int, handled bool)
}

// ErrNoProcess is what a BasicShell.Signal returns for an unknown pid.
var ErrNoProcess = errors.New("no such process")

// shellName prefixes shell error messages, as on a device.
const shellName = "/system/bin/sh"

// Run executes one command line, writing its output to out, and returns
// its exit status. The error is non-nil only when out fails or ctx ends.
func (sh BasicShell) Run(ctx context.Context, cmdline string, out io.Writer) (int, error) {
	words, err := splitWords(cmdline)
	if err != nil {
		_, werr := fmt.Fprintf(out, "%s: %v\n", shellName, err)
		return 2, werr
	}
	if len(words) == 0 {
		return 0, nil
	}
	if err := ctx.Err(); err != nil {
		return 1, err
	}
	if sh.Extra != nil {
		pw := &printer{w: out}
		if code, ok := sh.Extra(words, pw); ok {
			return code, pw.err
		}
	}
	p := &printer{w: out}
	var code int
	switch words[0] {
	case "echo":
		p.printf("%s\n", strings.Join(words[1:], " "))
	case "getprop":
		code = sh.getprop(p, words[1:])
	case "cat":
		code = sh.cat(p, words[1:])
	case "kill":
		code = sh.kill(p, words[1:])
	case "rm":
		code = sh.rm(p, words[1:])
	default:
		if cmd, ok := sh.Commands[words[0]]; ok {
			return cmd(ctx, words[1:], out), nil
		}
		p.printf("%s: %s: not found\n", shellName, words[0])
		code = 127
	}
	return code, p.err
}

// printer remembers the first write error.
type printer struct {
	w   io.Writer
	err error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// Write makes a printer an io.Writer (for BasicShell.Extra).
func (p *printer) Write(b []byte) (int, error) {
	p.write(b)
	if p.err != nil {
		return 0, p.err
	}
	return len(b), nil
}

func (p *printer) write(b []byte) {
	if p.err == nil {
		_, p.err = p.w.Write(b)
	}
}

func (sh BasicShell) getprop(p *printer, args []string) int {
	props := map[string]string{}
	if sh.Properties != nil {
		props = sh.Properties()
	}
	if len(args) > 0 {
		// An unknown property prints an empty line, as on a device.
		p.printf("%s\n", props[args[0]])
		return 0
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		p.printf("[%s]: [%s]\n", k, props[k])
	}
	return 0
}

func (sh BasicShell) cat(p *printer, files []string) int {
	code := 0
	for _, f := range files {
		var b []byte
		err := fs.ErrNotExist
		if sh.ReadFile != nil {
			b, err = sh.ReadFile(f)
		}
		switch {
		case err == nil:
			p.write(b)
		case errors.Is(err, fs.ErrNotExist):
			p.printf("cat: %s: No such file or directory\n", f)
			code = 1
		default:
			p.printf("cat: %s: %v\n", f, err)
			code = 1
		}
	}
	return code
}

// signalNames maps the names kill accepts (with or without SIG) to numbers.
var signalNames = map[string]syscall.Signal{
	"HUP": syscall.SIGHUP, "INT": syscall.SIGINT, "QUIT": syscall.SIGQUIT,
	"KILL": syscall.SIGKILL, "USR1": syscall.SIGUSR1, "USR2": syscall.SIGUSR2,
	"TERM": syscall.SIGTERM,
}

func (sh BasicShell) kill(p *printer, args []string) int {
	sig := syscall.SIGTERM
	if len(args) > 0 && strings.HasPrefix(args[0], "-") {
		spec := strings.TrimPrefix(args[0], "-")
		args = args[1:]
		if spec == "s" && len(args) > 0 {
			spec, args = args[0], args[1:]
		}
		if n, err := strconv.Atoi(spec); err == nil && n >= 0 && n < 65 {
			sig = syscall.Signal(n)
		} else if s, ok := signalNames[strings.TrimPrefix(strings.ToUpper(spec), "SIG")]; ok {
			sig = s
		} else {
			p.printf("%s: kill: %s: invalid signal specification\n", shellName, spec)
			return 1
		}
	}
	if len(args) == 0 {
		p.printf("usage: kill [-s SIGNAL | -SIGNAL] PID...\n")
		return 1
	}
	code := 0
	for _, a := range args {
		pid, ok := parsePID(a)
		if !ok {
			p.printf("%s: kill: %s: arguments must be process or job IDs\n", shellName, a)
			code = 1
			continue
		}
		err := ErrNoProcess
		if sh.Signal != nil {
			err = sh.Signal(pid, sig)
		}
		switch {
		case err == nil:
		case errors.Is(err, ErrNoProcess):
			p.printf("%s: kill: %d: No such process\n", shellName, pid)
			code = 1
		default:
			p.printf("%s: kill: %d: %v\n", shellName, pid, err)
			code = 1
		}
	}
	return code
}

// splitWords splits a command line on blanks, honouring single and double
// quotes (no escapes, variables or operators).
func splitWords(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				cur.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote = c
			inWord = true
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("syntax error: unterminated quoted string")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

func (sh BasicShell) rm(p *printer, args []string) int {
	force := false
	if len(args) > 0 && args[0] == "-f" {
		force, args = true, args[1:]
	}
	code := 0
	for _, f := range args {
		err := fs.ErrNotExist
		if sh.Remove != nil {
			err = sh.Remove(f)
		}
		switch {
		case err == nil:
		case errors.Is(err, fs.ErrNotExist):
			if !force {
				p.printf("rm: %s: No such file or directory\n", f)
				code = 1
			}
		default:
			p.printf("rm: %s: %v\n", f, err)
			code = 1
		}
	}
	return code
}
