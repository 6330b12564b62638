package logcat

import (
	"strconv"
	"strings"
)

// MaxProcesses bounds the pids a Processes table remembers.
const MaxProcesses = 4096

// Processes maps pids to process (app) names. It learns from the
// ActivityManager's lines as they go by — "Start proc PID:NAME/uid …"
// (Android 5+), "Start proc NAME for …: pid=PID …" (Android 4) — and from
// what the caller knows (Set: a VM's name from DDM HELO, ps output), so an
// app can be followed by name across restarts as pidcat does. Not safe for
// concurrent use.
type Processes struct {
	byPID map[int32]string
	order []int32 // insertion order, to evict the oldest
}

// App returns the name known for pid, or "".
func (p *Processes) App(pid int32) string { return p.byPID[pid] }

// Set records that pid runs app.
func (p *Processes) Set(pid int32, app string) {
	if p.byPID == nil {
		p.byPID = map[int32]string{}
	}
	if _, ok := p.byPID[pid]; !ok {
		if len(p.order) >= MaxProcesses {
			delete(p.byPID, p.order[0])
			p.order = p.order[1:]
		}
		p.order = append(p.order, pid)
	}
	p.byPID[pid] = app
}

// Observe learns from e if it announces a process start, and returns the
// pid and name it learned (0, "" otherwise).
func (p *Processes) Observe(e *Entry) (int32, string) {
	if e.Tag != "ActivityManager" || !strings.HasPrefix(e.Message, "Start proc ") {
		return 0, ""
	}
	pid, name := parseStartProc(e.Message[len("Start proc "):])
	if pid > 0 && name != "" {
		p.Set(pid, name)
	}
	return pid, name
}

// parseStartProc reads "1234:com.foo/u0a66 for …" or
// "com.foo for activity …: pid=1234 uid=…".
func parseStartProc(s string) (int32, string) {
	if i := strings.IndexByte(s, ':'); i > 0 && isDigits(s[:i]) {
		name := s[i+1:]
		if j := strings.IndexAny(name, "/ "); j >= 0 {
			name = name[:j]
		}
		return atoi32(s[:i]), name
	}
	name, rest, ok := strings.Cut(s, " ")
	if !ok {
		return 0, ""
	}
	i := strings.Index(rest, "pid=")
	if i < 0 {
		return 0, ""
	}
	num := rest[i+4:]
	if j := strings.IndexByte(num, ' '); j >= 0 {
		num = num[:j]
	}
	if !isDigits(num) {
		return 0, ""
	}
	return atoi32(num), name
}

func isDigits(s string) bool {
	if s == "" || len(s) > 10 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

func atoi32(s string) int32 {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil {
		return 0
	}
	return int32(n)
}

// AppMatches reports whether a process name belongs to package pkg: the
// package itself or one of its named processes ("pkg:remote").
func AppMatches(process, pkg string) bool {
	return process == pkg || (strings.HasPrefix(process, pkg) && len(process) > len(pkg) && process[len(pkg)] == ':')
}
