// Package threaddump reads and writes the thread dumps that Dalvik and ART
// print when a process receives SIGQUIT — the text the system collects into
// /data/anr/ when an app is not responding — and analyses them.
//
// The format is described in spec/anr-traces.md. A Dump holds one Process per
// `----- pid N at DATE -----` … `----- end N -----` block; a Process holds its
// header fields, the runtime sections as raw lines, and its Threads; a Thread
// holds its header, its `|` detail lines, its Frames (Java, native, kernel)
// and its Locks (the `- locked` / `- waiting …` lines).
//
// Parse reads a dump, keeping every line it does not understand (on the
// thread or process it appeared in) and reporting input that ends early.
// Analyze groups threads by state, builds the lock graph and finds monitor
// deadlocks, points at the main thread's blocking frame and ranks threads by
// CPU time. NewReport turns both into the JSON shape of `ddmtui anr --json`.
// Format writes a Process back as one of several releases would print it; the
// simulator uses it to answer `kill -3`.
package threaddump

import (
	"strconv"
	"strings"
	"time"
)

// Dump is everything read from one trace file or SIGQUIT output.
type Dump struct {
	// Processes in input order.
	Processes []*Process
	// Unknown holds the non-empty lines outside any process block (for
	// example the "Subject:" lines newer releases put at the top of an ANR
	// file), in input order.
	Unknown []Line
	// Truncated reports that the input ended inside a process block (no
	// `----- end N -----` line) or was cut at Options.MaxBytes.
	Truncated bool
	// SizeLimited reports that the input was longer than Options.MaxBytes and
	// only its beginning was parsed.
	SizeLimited bool
	// Warnings lists oddities met while parsing: over-long lines cut short,
	// an end line naming another pid, a thread count that does not match.
	Warnings []Warning
}

// Line is one line of input kept verbatim, with its 1-based line number.
type Line struct {
	No   int
	Text string
}

// Warning is a parse oddity at a line.
type Warning struct {
	Line    int
	Message string
}

// VM says which kind of process wrote a process block.
type VM int

// The kinds of process block (spec §1).
const (
	VMUnknown VM = iota // no thread list header and no native-only threads
	VMART               // "DALVIK THREADS (N):"
	VMDalvik            // "DALVIK THREADS:"
	VMNative            // no thread list; only `"name" sysTid=N` threads (debuggerd)
)

var vmNames = [...]string{VMUnknown: "unknown", VMART: "art", VMDalvik: "dalvik", VMNative: "native"}

// String returns "art", "dalvik", "native" or "unknown".
func (v VM) String() string {
	if v < 0 || int(v) >= len(vmNames) {
		return "unknown"
	}
	return vmNames[v]
}

// Process is one `----- pid N at DATE -----` block.
type Process struct {
	PID int
	// Date is the timestamp text as printed; see Time.
	Date string
	// CmdLine is the `Cmd line:` value: the process name for apps.
	CmdLine string
	// OriginalCmdLine is ART's `Original command line:`, printed when
	// /proc/self/cmdline was changed.
	OriginalCmdLine string
	// BuildFingerprint and ABI are ART's quoted header values, without quotes.
	BuildFingerprint string
	ABI              string
	// BuildType is ART's `Build type:` ("optimized" or "debug").
	BuildType string
	// VM is the kind of process, from the thread list header (spec §1).
	VM VM
	// DeclaredThreads is the count ART prints in "DALVIK THREADS (N):"; 0
	// when not printed.
	DeclaredThreads int
	// RuntimeLines holds, in input order, the lines of the block that are
	// neither header fields nor part of a thread: the runtime sections (class
	// counts, intern table, JNI, libraries, heap and GC statistics, oat files,
	// JIT; before the threads until 2022, after them since), Dalvik's JNI and
	// mutexes lines, and anything unrecognised between threads.
	RuntimeLines []Line
	// Threads in input order, attached and unattached.
	Threads []*Thread
	// Line is where the block starts.
	Line int
	// Truncated reports that the block had no `----- end` line.
	Truncated bool
}

// Time parses Date in the two layouts of spec §1: local time without a zone
// (Dalvik, ART until 2020; returned as UTC since the zone is unknown) and
// ART's nanosecond time with a UTC offset.
func (p *Process) Time() (time.Time, bool) {
	for _, layout := range []string{dateLayoutNanos, dateLayoutSeconds} {
		if t, err := time.Parse(layout, p.Date); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// Thread finds the attached thread with VM thread id tid, or nil.
func (p *Process) Thread(tid int) *Thread {
	if i := p.threadIndex(tid); i >= 0 {
		return p.Threads[i]
	}
	return nil
}

// threadIndex returns the index of the first attached thread with VM thread
// id tid, or -1.
func (p *Process) threadIndex(tid int) int {
	if tid <= 0 {
		return -1
	}
	for i, t := range p.Threads {
		if !t.Unattached && t.TID == tid {
			return i
		}
	}
	return -1
}

// Thread is one thread block (spec §2).
type Thread struct {
	// Name is the thread's name without the surrounding quotes.
	Name     string
	Daemon   bool
	Priority int // prio=: Thread priority 1..10, or nice-based when unattached
	// TID is the VM's small thread id (1 = main), 0 when unattached.
	TID int
	// State is the state as printed ("Blocked", "MONITOR"); see StateInfo.
	State string
	// Unattached is set for ART's "(not attached)" threads and for the
	// `"name" sysTid=N` threads of Dalvik's native list and native processes.
	Unattached bool
	// HeaderFlags holds what follows the state on the header line, as
	// printed: "JIT", "(still starting up)", "DisableFlipCount = 2", ….
	HeaderFlags []string

	// Detail line 1 (spec §2.2).
	Group                string // group=, without quotes
	SuspendCount         int    // sCount=
	DebugSuspendCount    int    // dsCount= (until 2020)
	UserCodeSuspendCount int    // ucsCount= (since Jul 2020)
	Flags                int    // flags= (ART thread flag bits, since Android 8)
	Obj                  string // obj=: address of the java.lang.Thread
	Self                 string // self=: address of the VM's native Thread
	// Detail line 2.
	SysTID int    // sysTid=: Linux thread id
	Nice   int    // nice=
	Cgroup string // cgrp=
	Sched  string // sched=: policy/priority
	Handle string // handle=: pthread_t
	// Detail line 3.
	KernelState string // state=: one letter from /proc (R, S, D …)
	SchedStat   string // schedstat=( … ) without the parentheses and padding
	Utime       int    // utm=: user-mode jiffies
	Stime       int    // stm=: kernel-mode jiffies
	Core        int    // core=: CPU last run on
	HZ          int    // HZ=: jiffies per second (ART)
	// Detail line 4 (ART).
	Stack     string // stack=: lowest-highest address
	StackSize string // stackSize=, e.g. "1039KB"
	// Detail line 5 (ART): each held runtime mutex as printed, e.g.
	// `"mutator lock"(shared held)`.
	HeldMutexes []string
	// ExtraDetails holds detail tokens with keys ddmtui does not know, or
	// values that did not parse, in input order.
	ExtraDetails []Detail

	// Frames in order: native/kernel frames first when printed, then Java.
	Frames []Frame
	// Locks are the `- …` lines; each records the frame it follows.
	Locks []Lock
	// Unknown holds the lines of the block that were not understood.
	Unknown []Line
	// Line is where the block starts.
	Line int
	// Truncated reports that the input ended inside this block.
	Truncated bool
}

// Detail is one `key=value` token of a `|` line; Value is as printed
// (quotes or parentheses included). Key is empty for a word without `=`.
type Detail struct {
	Key, Value string
}

// CPU returns utm+stm, the thread's CPU time in jiffies.
func (t *Thread) CPU() int { return t.Utime + t.Stime }

// StateInfo describes the thread's state (spec §3); unattached threads are
// described as native threads outside the VM.
func (t *Thread) StateInfo() StateInfo {
	if t.Unattached {
		return unattachedState
	}
	return LookupState(t.State)
}

// WaitingToLock returns the lock the thread is blocked on — a `waiting to
// lock` or `waiting for lock inflation of` line — or nil.
func (t *Thread) WaitingToLock() *Lock {
	for i := range t.Locks {
		if k := t.Locks[i].Kind; k == LockWaitingToLock || k == LockWaitingForInflation {
			return &t.Locks[i]
		}
	}
	return nil
}

// Waiting returns the first lock line that says what the thread waits for
// (to lock, on, sleeping on, for inflation), or nil.
func (t *Thread) Waiting() *Lock {
	for i := range t.Locks {
		if t.Locks[i].Kind != LockHeld {
			return &t.Locks[i]
		}
	}
	return nil
}

// Held returns the monitors the thread holds (`- locked` lines), in order.
func (t *Thread) Held() []Lock {
	var held []Lock
	for _, l := range t.Locks {
		if l.Kind == LockHeld {
			held = append(held, l)
		}
	}
	return held
}

// TopJavaFrame returns the index of the first Java frame, or -1.
func (t *Thread) TopJavaFrame() int {
	for i, f := range t.Frames {
		if f.Kind == FrameJava {
			return i
		}
	}
	return -1
}

// FrameKind says what a frame line is.
type FrameKind int

// Frame kinds (spec §2.3, §2.4).
const (
	FrameJava   FrameKind = iota // `at class.method(source)`
	FrameNative                  // `native: #NN pc …`, Dalvik's and debuggerd's `#NN pc …`
	FrameKernel                  // `kernel: …`
	FrameNote                    // "(no managed stack frames)", "... repeated N times", …
)

var frameKindNames = [...]string{FrameJava: "java", FrameNative: "native", FrameKernel: "kernel", FrameNote: "note"}

// String returns "java", "native", "kernel" or "note".
func (k FrameKind) String() string {
	if k < 0 || int(k) >= len(frameKindNames) {
		return "unknown"
	}
	return frameKindNames[k]
}

// Frame is one stack line. Which fields are set depends on Kind.
type Frame struct {
	Kind FrameKind
	// Java: Class and Method split at the last dot before the parenthesis;
	// Source is the text inside the parentheses ("Bank.java:31",
	// "Native method", "Unknown Source", "unavailable:12", "Bank.java:~31").
	Class, Method, Source string
	// Native: the frame number, the pc as printed (hex, no 0x), and the rest
	// of the line: mapping path, symbol and BuildId as printed.
	Index    int
	PC       string
	Location string
	// Kernel and Note: the text (after "kernel: " for kernel frames).
	Text string
}

// JavaFrame returns a Java frame for class.method(source).
func JavaFrame(class, method, source string) Frame {
	return Frame{Kind: FrameJava, Class: class, Method: method, Source: source}
}

// NativeFrame returns a native frame; location is "path (symbol+offset)".
func NativeFrame(index int, pc, location string) Frame {
	return Frame{Kind: FrameNative, Index: index, PC: pc, Location: location}
}

// String renders the frame without indentation or prefix: the Java
// "class.method(source)", the native "#NN pc PC  location", or the text.
func (f Frame) String() string {
	switch f.Kind {
	case FrameJava:
		return f.qualifiedMethod() + "(" + f.Source + ")"
	case FrameNative:
		return nativeFrameText(f, "#%02d pc %s  %s")
	}
	return f.Text
}

func (f Frame) qualifiedMethod() string {
	if f.Class == "" {
		return f.Method
	}
	return f.Class + "." + f.Method
}

// File returns the source file of a Java frame ("" when unknown).
func (f Frame) File() string {
	file, _, _ := strings.Cut(f.Source, ":")
	if f.Kind != FrameJava || f.IsNativeMethod() || strings.HasPrefix(file, "unavailable") || strings.HasPrefix(file, "Unknown Source") {
		return ""
	}
	return file
}

// Line returns the line number of a Java frame, and whether there is one.
// Dalvik's approximate "~31" reads as 31.
func (f Frame) Line() (int, bool) {
	if f.Kind != FrameJava {
		return 0, false
	}
	i := strings.LastIndexByte(f.Source, ':')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimPrefix(f.Source[i+1:], "~"))
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// IsNativeMethod reports a Java frame of a native method: ART's
// "(Native method)" or Dalvik's "(Native Method)".
func (f Frame) IsNativeMethod() bool {
	return f.Kind == FrameJava && strings.EqualFold(f.Source, "Native method")
}

// Symbol returns the "(function+offset)" part of a native frame's location
// without parentheses, or "".
func (f Frame) Symbol() string {
	if f.Kind != FrameNative {
		return ""
	}
	loc := stripBuildID(f.Location)
	if !strings.HasSuffix(loc, ")") {
		return ""
	}
	open := matchingOpen(loc)
	if open <= 0 || loc[open-1] != ' ' {
		return ""
	}
	return loc[open+1 : len(loc)-1]
}

// Library returns the mapping path of a native frame ("???" when unknown).
func (f Frame) Library() string {
	if f.Kind != FrameNative {
		return ""
	}
	loc := stripBuildID(f.Location)
	if sym := f.Symbol(); sym != "" {
		loc = loc[:len(loc)-len(sym)-3]
	}
	return loc
}

// BuildID returns the " (BuildId: …)" value of a native frame, or "".
func (f Frame) BuildID() string {
	const prefix = " (BuildId: "
	i := strings.LastIndex(f.Location, prefix)
	if f.Kind != FrameNative || i < 0 || !strings.HasSuffix(f.Location, ")") {
		return ""
	}
	return f.Location[i+len(prefix) : len(f.Location)-1]
}

func stripBuildID(loc string) string {
	if i := strings.LastIndex(loc, " (BuildId: "); i >= 0 && strings.HasSuffix(loc, ")") {
		return loc[:i]
	}
	return loc
}

// matchingOpen returns the index of the '(' matching the ')' that ends s.
func matchingOpen(s string) int {
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// LockKind says what a lock line states (spec §2.4).
type LockKind int

// Lock line kinds.
const (
	LockHeld                LockKind = iota // - locked <…>
	LockWaitingToLock                       // - waiting to lock <…> [held by …]
	LockWaitingOn                           // - waiting on <…>
	LockSleepingOn                          // - sleeping on <…>
	LockWaitingForInflation                 // - waiting for lock inflation of <…> [held by …]
)

var lockVerbs = [...]string{
	LockHeld:                "locked",
	LockWaitingToLock:       "waiting to lock",
	LockWaitingOn:           "waiting on",
	LockSleepingOn:          "sleeping on",
	LockWaitingForInflation: "waiting for lock inflation of",
}

// String returns the verb as printed, e.g. "waiting to lock".
func (k LockKind) String() string {
	if k < 0 || int(k) >= len(lockVerbs) {
		return "unknown"
	}
	return lockVerbs[k]
}

// Lock is one `- …` line under a frame.
type Lock struct {
	Kind LockKind
	// Object is the identity between < and >: ART's identity hash
	// ("0x0b5e7a21"), Dalvik's address, or ART's "@addr=0x…"; empty when
	// UnknownObject.
	Object string
	// UnknownObject is set for "an unknown object".
	UnknownObject bool
	// Type is the class from "(a …)", empty when not printed.
	Type string
	// HeldBy is the owner's VM thread id from "held by thread N" (ART) or
	// "held by tid=N (name)" (Dalvik); 0 when not printed.
	HeldBy int
	// HeldByName is the owner's name from Dalvik's "held by tid=N (name)".
	HeldByName string
	// Frame is the index in Thread.Frames of the frame this line follows, or
	// -1 when it comes before every frame.
	Frame int
}

// ObjectText renders the object as printed: "<0x0b5e7a21> (a T)" or "an
// unknown object".
func (l Lock) ObjectText() string {
	if l.UnknownObject {
		return "an unknown object"
	}
	s := "<" + l.Object + ">"
	if l.Type != "" {
		s += " (a " + l.Type + ")"
	}
	return s
}

// String renders the line without indentation, ART style: "waiting to lock
// <0x…> (a T) held by thread N".
func (l Lock) String() string {
	s := "- " + l.Kind.String() + " " + l.ObjectText()
	if l.HeldBy != 0 {
		s += " held by thread " + strconv.Itoa(l.HeldBy)
	}
	return s
}

// KeepNewest keeps only the last process block of pid (a traces file
// collects one block per SIGQUIT, oldest first). With no block of pid the
// dump is left as it is.
func (d *Dump) KeepNewest(pid int) {
	for i := len(d.Processes) - 1; i >= 0; i-- {
		if d.Processes[i].PID == pid {
			d.Processes = []*Process{d.Processes[i]}
			return
		}
	}
}
