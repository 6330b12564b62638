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
	"strconv"
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
	tid, err := strconv.Atoi(string(b[:i]))
	if err != nil || tid <= 0 {
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
	fields := bytes.Fields(line)
	if len(fields) < neededFields {
		return Thread{}, nil, false
	}
	th.State = fields[0][0]
	ut, err1 := strconv.ParseUint(string(fields[11]), 10, 64)
	st, err2 := strconv.ParseUint(string(fields[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return Thread{}, nil, false
	}
	th.UTime, th.STime = ut, st
	return th, rest, true
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
