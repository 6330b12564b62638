// Package trace reads, profiles, writes and exports Dalvik/ART method traces
// (the "dmtrace" or Traceview format, see ../shared/spec/dmtrace.md): a text
// key section (version, options, threads, methods) followed by a binary data
// section of fixed-size little-endian records, or ART's streaming variant
// whose metadata is inlined between the records.
//
// Main types:
//   - Reader streams the records of a trace (one file, key and data as two
//     files, or a streaming trace) after parsing its Header.
//   - ProfileBuilder turns records into a Profile: inclusive and exclusive
//     time per method on each clock the file has, call counts, the caller →
//     callee edges, per thread; on the first time field its numbers equal
//     AOSP dmtracedump's (spec §4).
//   - Trace is a whole trace in memory (header and events); Writer and Encode
//     produce the bytes of every version and clock, and Synth generates
//     deterministic realistic workloads for tests, benchmarks and simulators.
//   - WriteJSON, WriteFolded, ChromeWriter and WriteDOT export a profile.
//
// Nothing here trusts a count or a length read from a file: memory grows
// only with bytes actually read, and every fixed limit is in Limits.
package trace

import (
	"errors"
	"fmt"
	"strconv"
)

// Data-section constants (spec §3.1, §3.2, dmtracedump profile.h).
const (
	// Magic is the first u4 of the data header: the bytes "SLOW".
	Magic = 0x574F4C53
	// StreamingFlag is or-ed into the data-header version by ART's streaming
	// output (spec §5): 0xF2, 0xF3.
	StreamingFlag = 0xF0
	// DefaultDataOffset is the data-header length the VMs write.
	DefaultDataOffset = 32

	recordSizeV1   = 9  // u1 thread, u4 method|action, u4 time
	recordSizeV2   = 10 // u2 thread, u4 method|action, u4 time
	recordSizeDual = 14 // u2 thread, u4 method|action, u4 cpu, u4 wall
	headerFixedV12 = 16 // magic, version, offset, start time
	headerFixedV3  = 18 // ... plus u2 record size
)

// Action is the low two bits of a record's method word (spec §3.2).
type Action uint8

// Record actions.
const (
	Enter  Action = 0 // method entry
	Exit   Action = 1 // normal return
	Unroll Action = 2 // exit by exception unwinding
	// ActionReserved (3) is never written by a VM; dmtracedump treats it as an
	// exit, perflib rejects it.
	ActionReserved Action = 3
)

func (a Action) String() string {
	switch a {
	case Enter:
		return "ent"
	case Exit:
		return "xit"
	case Unroll:
		return "unr"
	}
	return "act3"
}

// Clock indexes the per-clock arrays of this package ([2]uint64 and
// [2]uint32 values): thread CPU time first, wall time second.
type Clock int

// The two clocks a trace can record.
const (
	ClockCPU  Clock = 0 // per-thread CPU time
	ClockWall Clock = 1 // wall-clock time
)

func (c Clock) String() string {
	if c == ClockWall {
		return "wall"
	}
	return "thread-cpu"
}

// Clocks is the set of clocks a trace records (the key's clock= option, spec
// §2.1).
type Clocks uint8

// Clock sets.
const (
	CPUOnly  Clocks = 1 << ClockCPU
	WallOnly Clocks = 1 << ClockWall
	Dual     Clocks = CPUOnly | WallOnly
)

// Has reports whether the set contains c.
func (s Clocks) Has(c Clock) bool { return s&(1<<c) != 0 }

// First is the clock of a record's first time field: the one dmtracedump
// profiles (spec §4: thread CPU for dual traces).
func (s Clocks) First() Clock {
	if s == WallOnly {
		return ClockWall
	}
	return ClockCPU
}

// List returns the clocks in the set, CPU first.
func (s Clocks) List() []Clock {
	var l []Clock
	for _, c := range []Clock{ClockCPU, ClockWall} {
		if s.Has(c) {
			l = append(l, c)
		}
	}
	return l
}

// String returns the key's spelling: "thread-cpu", "wall" or "dual".
func (s Clocks) String() string {
	switch s {
	case CPUOnly:
		return "thread-cpu"
	case WallOnly:
		return "wall"
	case Dual:
		return "dual"
	}
	return "clocks(" + strconv.Itoa(int(s)) + ")"
}

// ParseClocks reads a clock= option value. "global" is the 2008 Dalvik name
// for wall time. ok is false for unknown values.
func ParseClocks(v string) (c Clocks, ok bool) {
	switch v {
	case "thread-cpu":
		return CPUOnly, true
	case "wall", "global":
		return WallOnly, true
	case "dual":
		return Dual, true
	}
	return 0, false
}

// Sentinel errors; FormatError wraps them with a position.
var (
	// ErrNotTrace: neither a "*version" key nor the SLOW magic.
	ErrNotTrace = errors.New("not a method trace")
	// ErrVersion: a version this reader does not know.
	ErrVersion = errors.New("unsupported trace version")
	// ErrTruncated: the input ends inside a structure that must be complete.
	ErrTruncated = errors.New("data ends early")
	// ErrLimit: a size or depth exceeds a configured limit (Limits).
	ErrLimit = errors.New("exceeds limit")
	// ErrMalformed: a field has an impossible value.
	ErrMalformed = errors.New("malformed")
)

// FormatError reports malformed input with its byte offset in the file (for
// split traces: in the file named by Part) and, inside the key, its line.
type FormatError struct {
	Part   string // "key", "data" or "" for a single file
	Offset int64  // byte offset of the failing line, header field or record
	Line   int    // 1-based key line, 0 elsewhere
	What   string // what was being read
	Err    error  // one of the sentinel errors, possibly wrapped
}

func (e *FormatError) Error() string {
	where := "offset " + strconv.FormatInt(e.Offset, 10)
	if e.Line > 0 {
		where = "line " + strconv.Itoa(e.Line) + " (" + where + ")"
	}
	if e.Part != "" {
		where = e.Part + " " + where
	}
	return fmt.Sprintf("trace: %s at %s: %v", e.What, where, e.Err)
}

func (e *FormatError) Unwrap() error { return e.Err }

// WarningKind classifies a Warning so callers can count or filter them.
type WarningKind uint8

// Kinds of warnings.
const (
	WarnKey            WarningKind = iota // a key line that was skipped or is odd
	WarnHeader                            // data header disagrees with the key
	WarnTruncatedData                     // trailing bytes shorter than a record
	WarnUnknownMethod                     // record method id not in the key
	WarnUnmatchedExit                     // exit with an empty stack (entered before tracing)
	WarnMismatchedExit                    // exit of a method that is not on top of the stack
	WarnTimeBackwards                     // a clock value lower than the thread's previous one
	WarnReservedAction                    // action 3
	warnKinds
)

var warningKindNames = [...]string{
	WarnKey:            "key",
	WarnHeader:         "header",
	WarnTruncatedData:  "truncated-data",
	WarnUnknownMethod:  "unknown-method",
	WarnUnmatchedExit:  "unmatched-exit",
	WarnMismatchedExit: "mismatched-exit",
	WarnTimeBackwards:  "time-backwards",
	WarnReservedAction: "reserved-action",
}

func (k WarningKind) String() string {
	if int(k) < len(warningKindNames) {
		return warningKindNames[k]
	}
	return "warning(" + strconv.Itoa(int(k)) + ")"
}

// Warning is a recoverable oddity in the input, with the byte offset of the
// line or record where it was found (spec positions; for split traces the
// offset is within the part named).
type Warning struct {
	Kind    WarningKind
	Part    string // "key", "data" or "" for a single file
	Offset  int64
	Message string
}

func (w Warning) String() string {
	p := ""
	if w.Part != "" {
		p = w.Part + " "
	}
	return fmt.Sprintf("%soffset %d: %s: %s", p, w.Offset, w.Kind, w.Message)
}

// Warnings keeps the first few warnings of each kind and counts all of them,
// so a file with ten million unmatched exits cannot exhaust memory.
type Warnings struct {
	List   []Warning        // the kept warnings, in the order found
	Counts [warnKinds]int64 // every warning, by kind
	limit  int
}

// PerKindLimit is how many warnings of one kind Warnings keeps by default.
const PerKindLimit = 20

func (ws *Warnings) add(w Warning) {
	ws.Counts[w.Kind]++
	lim := ws.limit
	if lim == 0 {
		lim = PerKindLimit
	}
	if ws.Counts[w.Kind] <= int64(lim) {
		ws.List = append(ws.List, w)
	}
}

// Total is the number of warnings found, kept or not.
func (ws *Warnings) Total() int64 {
	var n int64
	for _, c := range ws.Counts {
		n += c
	}
	return n
}

// Count returns how many warnings of kind k were found.
func (ws *Warnings) Count(k WarningKind) int64 {
	if int(k) >= len(ws.Counts) {
		return 0
	}
	return ws.Counts[k]
}

// Limits bounds what a hostile or broken file can make the reader allocate.
// Zero fields take the defaults below.
type Limits struct {
	MaxKeyBytes   int64 // total size of the key section; default 64 MiB
	MaxLineBytes  int   // one key line; default 1 MiB
	MaxStackDepth int   // frames on one thread's stack; default 1<<20
	MaxWarnings   int   // warnings kept per kind; default PerKindLimit
	MaxMethods    int   // methods (key plus streaming); default 1<<22
	// MaxThreads bounds the distinct threads of a format V2 file (its
	// thread ids are 32 bits; versions 1-3 have 16-bit ids, so at most
	// 1<<16): default 1<<16. Each thread costs a profile, a call tree
	// and a stack: 500,000 threads of one record each (a 7.5 MB file)
	// took 1.57 GB.
	MaxThreads int
}

// Defaults for Limits.
const (
	DefaultMaxKeyBytes   = 64 << 20
	DefaultMaxLineBytes  = 1 << 20
	DefaultMaxStackDepth = 1 << 20
	DefaultMaxMethods    = 1 << 22
	DefaultMaxThreads    = 1 << 16
)

func (l Limits) withDefaults() Limits {
	if l.MaxKeyBytes <= 0 {
		l.MaxKeyBytes = DefaultMaxKeyBytes
	}
	if l.MaxLineBytes <= 0 {
		l.MaxLineBytes = DefaultMaxLineBytes
	}
	if l.MaxStackDepth <= 0 {
		l.MaxStackDepth = DefaultMaxStackDepth
	}
	if l.MaxWarnings <= 0 {
		l.MaxWarnings = PerKindLimit
	}
	if l.MaxThreads <= 0 {
		l.MaxThreads = DefaultMaxThreads
	}
	if l.MaxMethods <= 0 {
		l.MaxMethods = DefaultMaxMethods
	}
	return l
}
