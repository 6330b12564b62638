// Package procfs parses what a device shell prints for Linux's per-thread
// status files, `cat /proc/PID/task/*/stat` (proc(5)), into Thread values:
// the thread id, its name as the kernel keeps it (comm, at most 15 bytes of
// the Java name), the scheduler state letter, and the user and system CPU
// times in clock ticks (USER_HZ, 100 on Android: the unit DDM's THST uses).
//
// Parse takes the concatenated output of many stat files. It is written for
// the shapes that output really takes: a comm holding spaces, '(' and ')'
// (the name runs from the first '(' to the LAST ')' of its record; a name
// holding a newline is skipped), a
// thread that ended between the shell's glob and the read (cat prints an
// error line instead of a record, or nothing), CR LF line ends from a PTY
// shell, and a truncated last record.
package procfs

import (
	"bytes"
	"fmt"
)

// Thread is one record of /proc/PID/task/TID/stat.
type Thread struct {
	TID   int
	Comm  string // the kernel's thread name (TASK_COMM_LEN 16: at most 15 bytes)
	State byte   // R S D T t Z X I (also W P K x on some kernels), proc(5) field 3
	UTime uint64 // user-mode CPU time, clock ticks (field 14)
	STime uint64 // kernel-mode CPU time, clock ticks (field 15)
}

// StateName is the lowercase name of a proc(5) state letter, "" for an
// unknown one.
func StateName(letter byte) string {
	switch letter {
	case 'R':
		return "running"
	case 'S':
		return "sleeping"
	case 'D':
		return "disk-sleep"
	case 'T':
		return "stopped"
	case 't':
		return "tracing-stop"
	case 'Z':
		return "zombie"
	case 'X', 'x':
		return "dead"
	case 'I':
		return "idle"
	case 'W':
		return "paging" // Linux 2.6.0 to 2.6.33; "waking" 2.6.33 to 3.13
	case 'K':
		return "wakekill"
	case 'P':
		return "parked"
	}
	return ""
}

// MaxComm bounds the bytes searched for a record's closing ')'. The kernel
// keeps 15 bytes (TASK_COMM_LEN - 1); the bound leaves room for kernels
// that keep more, and keeps a hostile input from being scanned quadratically.
const MaxComm = 64

// Result is what Parse found.
type Result struct {
	Threads []Thread
	// Skipped counts lines that were not stat records: cat's "No such file
	// or directory" for a thread that ended, shell noise, a cut record.
	Skipped int
}

// fields after the comm that Parse needs: state (3) … stime (15), i.e. 13
// fields counted from the state.
const neededFields = 13

// Parse reads the concatenated stat records in b. It never fails: what is
// not a record is counted in Skipped.
func Parse(b []byte) Result {
	var r Result
	for len(b) > 0 {
		// A record starts at a line start with "TID (".
		th, rest, ok := parseRecord(b)
		if ok {
			r.Threads = append(r.Threads, th)
			b = rest
			continue
		}
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			if len(bytes.TrimSpace(b)) > 0 {
				r.Skipped++
			}
			break
		}
		if len(bytes.TrimSpace(b[:nl])) > 0 {
			r.Skipped++
		}
		b = b[nl+1:]
	}
	return r
}

// parseRecord parses one record at the start of b and returns the bytes
// after its line.
func parseRecord(b []byte) (Thread, []byte, bool) {
	var th Thread
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	if i == 0 || i > 10 || i+1 >= len(b) || b[i] != ' ' || b[i+1] != '(' {
		return th, nil, false
	}
	tid64, ok := parseTicks(b[:i])
	tid := int(tid64)
	if !ok || tid <= 0 {
		return th, nil, false
	}
	open := i + 1
	// The comm ends at the last ") L " within MaxComm+1 bytes of the '(',
	// where L is a state letter: a comm may hold ") S " itself, and the
	// fields that follow the real one are numbers.
	window := b[open+1:]
	if len(window) > MaxComm+4 {
		window = window[:MaxComm+4]
	}
	// A comm never spans lines here (a kernel would allow '\n' in one;
	// such a record is skipped rather than read into the next record).
	if nl := bytes.IndexByte(window, '\n'); nl >= 0 {
		window = window[:nl+1]
	}
	closeAt := -1
	for j := len(window) - 4; j >= 0; j-- {
		if j > MaxComm {
			continue
		}
		if window[j] == ')' && window[j+1] == ' ' && StateName(window[j+2]) != "" && (window[j+3] == ' ' || window[j+3] == '\n' || window[j+3] == '\r') {
			closeAt = j
			break
		}
	}
	if closeAt < 0 {
		return th, nil, false
	}
	th.TID = tid
	th.Comm = string(window[:closeAt])
	after := b[open+1+closeAt+2:]
	end := bytes.IndexByte(after, '\n')
	rest := []byte(nil)
	line := after
	if end >= 0 {
		line, rest = after[:end], after[end+1:]
	}
	// Fields 3 (state) to 15 (stime), split on blanks without allocating.
	var fields [neededFields][]byte
	n := 0
	for i := 0; i < len(line) && n < neededFields; {
		for i < len(line) && (line[i] == ' ' || line[i] == '\r' || line[i] == '\t') {
			i++
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\r' && line[j] != '\t' {
			j++
		}
		if j > i {
			fields[n] = line[i:j]
			n++
		}
		i = j
	}
	if n < neededFields || len(fields[0]) != 1 {
		return Thread{}, nil, false
	}
	th.State = fields[0][0]
	ut, ok1 := parseTicks(fields[11])
	st, ok2 := parseTicks(fields[12])
	if !ok1 || !ok2 {
		return Thread{}, nil, false
	}
	th.UTime, th.STime = ut, st
	return th, rest, true
}

// parseTicks reads an unsigned decimal of at most 19 digits (no overflow).
func parseTicks(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	return v, true
}

// Format writes t as the kernel prints a stat line (the fields Parse does
// not read are plausible fixed values): the simulator's /proc and the
// tests use it.
func Format(t Thread, pid int) []byte {
	state := t.State
	if state == 0 {
		state = 'S'
	}
	return fmt.Appendf(nil, "%d (%s) %c %d %d 0 0 -1 1077936448 1024 0 0 0 %d %d 0 0 10 -10 %d 0 1000 1700000000 4000 18446744073709551615 1 1 0 0 0 0 4612 1 1073775864 0 0 0 -1 %d 0 0 0 0 0 0 0 0 0 0 0 0 0\n",
		t.TID, t.Comm, state, 1, pid, t.UTime, t.STime, 20, t.TID%8)
}

// TruncComm is the name the kernel keeps for a thread named name: its
// first 15 bytes.
func TruncComm(name string) string {
	if len(name) > 15 {
		return name[:15]
	}
	return name
}
