package threaddump

// Tests that kill the mutants scripts/mutation.sh found alive in this
// package (docs/TESTING.md, "Mutation testing"). Each states exact values.

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// edgeOf returns (Owner, HeldBy, OwnerFromLocked) of the edge whose waiter
// is thread index w.
func edgeOf(t *testing.T, a *Analysis, w int) (int, int, bool) {
	t.Helper()
	for _, e := range a.Edges {
		if e.Waiter == w {
			return e.Owner, e.HeldBy, e.OwnerFromLocked
		}
	}
	t.Fatalf("no edge from thread %d in %+v", w, a.Edges)
	return 0, 0, false
}

// TestOwnerFromLockedLines: a waiter whose lock line names no owner gets
// the first other thread with a `- locked` line for the object: not itself
// (monitors are re-entrant), and not a thread without a VM thread id.
func TestOwnerFromLockedLines(t *testing.T) {
	other := &Thread{Name: "other", TID: 7, State: "Runnable"}
	// The waiter holds the object itself and so does thread index 2.
	self := blockedThread(3, "0x1", 0, "0x1")
	holder := &Thread{Name: "holder", TID: 9, State: "Runnable", Locks: []Lock{{Kind: LockHeld, Object: "0x1"}}}
	a := Analyze(&Process{VM: VMART, Threads: []*Thread{self, other, holder}})
	if o, h, f := edgeOf(t, a, 0); o != 2 || h != 9 || !f {
		t.Fatalf("second holder: owner %d held by %d from locked %v; want 2 9 true", o, h, f)
	}
	// Only the waiter holds it: no owner.
	a = Analyze(&Process{VM: VMART, Threads: []*Thread{blockedThread(3, "0x1", 0, "0x1"), other}})
	if o, h, f := edgeOf(t, a, 0); o != -1 || h != 0 || f {
		t.Fatalf("waiter alone holds it: owner %d held by %d from locked %v; want -1 0 false", o, h, f)
	}
	// A thread with tid 0 (none) that holds it is not an owner.
	noTID := &Thread{Name: "no tid", TID: 0, State: "Runnable", Locks: []Lock{{Kind: LockHeld, Object: "0x1"}}}
	a = Analyze(&Process{VM: VMART, Threads: []*Thread{blockedThread(3, "0x1", 0), noTID}})
	if o, h, f := edgeOf(t, a, 0); o != -1 || h != 0 || f {
		t.Fatalf("tid 0 holder: owner %d held by %d from locked %v; want -1 0 false", o, h, f)
	}
}

// waiters lists the waiter indices of a deadlock in order.
func waiters(d Deadlock) []int {
	var w []int
	for _, e := range d {
		w = append(w, e.Waiter)
	}
	return w
}

// TestCycleStartsAtLowestTIDThenIndex: two threads of a cycle share a tid
// (owners found through `- locked` lines); the cycle starts at the lower
// index of the two, whichever the walk met first.
func TestCycleStartsAtLowestTIDThenIndex(t *testing.T) {
	x := blockedThread(5, "0x1", 0, "0x2")
	y := blockedThread(5, "0x2", 0, "0x1")
	a := Analyze(&Process{VM: VMART, Threads: []*Thread{x, y}})
	if len(a.Deadlocks) != 1 || !equalInts(waiters(a.Deadlocks[0]), []int{0, 1}) {
		t.Fatalf("walk from the first: deadlocks %+v, want waiters [0 1]", a.Deadlocks)
	}
	// A thread outside the cycle waits for y, so the walk enters the cycle
	// at y (index 2) and meets x (index 1) after it.
	w := blockedThread(20, "0x3", 0)
	x = blockedThread(5, "0x1", 0, "0x2")
	y = blockedThread(5, "0x2", 0, "0x1", "0x3")
	a = Analyze(&Process{VM: VMART, Threads: []*Thread{w, x, y}})
	if len(a.Deadlocks) != 1 || !equalInts(waiters(a.Deadlocks[0]), []int{1, 2}) {
		t.Fatalf("walk entering at the higher index: deadlocks %+v, want waiters [1 2]", a.Deadlocks)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestMainThreadIsTID1First: the attached thread with tid 1 is the main
// thread even at index 0 and even when another thread is named "main".
func TestMainThreadIsTID1First(t *testing.T) {
	p := &Process{VM: VMART, Threads: []*Thread{
		{Name: "ui", TID: 1, State: "Runnable"},
		{Name: "main", TID: 2, State: "Runnable"},
	}}
	if i := MainThreadIndex(p); i != 0 {
		t.Fatalf("main thread index %d, want 0", i)
	}
	if m := Analyze(p).Main; m == nil || m.Thread != 0 {
		t.Fatalf("Analyze main %+v, want thread 0", m)
	}
}

// TestMainThreadFirstFrameAndFirstOwner: indices 0 count: a main thread
// whose only frame (index 0) is nativePollOnce is idle, and a main thread
// blocked on a monitor held by thread index 0 names that thread.
func TestMainThreadFirstFrameAndFirstOwner(t *testing.T) {
	idle := &Thread{Name: "main", TID: 1, State: "Native",
		Frames: []Frame{JavaFrame("android.os.MessageQueue", "nativePollOnce", "Native method")}}
	m := Analyze(&Process{VM: VMART, Threads: []*Thread{idle}}).Main
	const idleSummary = `"main" (tid 1) is idle in its message loop, waiting for input; at android.os.MessageQueue.nativePollOnce(Native method)`
	if m == nil || m.Frame != 0 || !m.Idle || m.Summary != idleSummary {
		t.Fatalf("idle main: %+v", m)
	}

	holder := &Thread{Name: "T5", TID: 5, State: "Runnable", Locks: []Lock{{Kind: LockHeld, Object: "0x1", Type: "java.lang.Object"}}}
	blocked := blockedThread(1, "0x1", 5)
	blocked.Name = "main"
	m = Analyze(&Process{VM: VMART, Threads: []*Thread{holder, blocked}}).Main
	const blockedSummary = `"main" (tid 1) is Blocked: waiting to enter a synchronized block or method whose monitor another thread holds; at a.B.c(B.java:1), waiting to lock <0x1> (a java.lang.Object) held by "T5" (tid 5)`
	if m == nil || m.Thread != 1 || m.Owner != 0 || m.Idle || m.Summary != blockedSummary {
		t.Fatalf("blocked main: %+v", m)
	}
}

// TestNamesOutOfRange: styles, VM, frame and lock kinds past their tables have a
// numbered or "unknown" name; the last in each table has its own.
func TestNamesOutOfRange(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{Style(-1).String(), "style(-1)"}, {Style(4).String(), "style(4)"}, {StyleART14.String(), "art14"}, {StyleDalvik.String(), "dalvik"},
		{VM(-1).String(), "unknown"}, {VM(4).String(), "unknown"}, {VMNative.String(), "native"}, {VMUnknown.String(), "unknown"},
		{FrameKind(-1).String(), "unknown"}, {FrameKind(4).String(), "unknown"}, {FrameNote.String(), "note"}, {FrameJava.String(), "java"},
		{LockKind(-1).String(), "unknown"}, {LockKind(5).String(), "unknown"}, {LockWaitingForInflation.String(), "waiting for lock inflation of"}, {LockHeld.String(), "locked"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}

// TestFormatEdges writes, in the ART 14 style, a process without runtime
// lines (no blank line before the end line), a lock line whose frame index
// is past the last frame (written after the last frame), and unattached
// threads with and without held mutexes (the line only when there are
// some).
func TestFormatEdges(t *testing.T) {
	p := &Process{PID: 42, Date: "2024-01-01 00:00:00", VM: VMART, Threads: []*Thread{
		{Name: "main", TID: 1, State: "Runnable", Priority: 5, Frames: []Frame{JavaFrame("a.B", "c", "B.java:1")},
			Locks: []Lock{{Kind: LockHeld, Object: "0x1", Type: "java.lang.Object", Frame: 5}}},
		{Name: "bare", Unattached: true},
		{Name: "mutexed", Unattached: true, HeldMutexes: []string{`"mutator lock"(shared held)`}},
	}}
	const want = `
----- pid 42 at 2024-01-01 00:00:00 -----
DALVIK THREADS (1):
"main" prio=5 tid=1 Runnable
  | group="" sCount=0 ucsCount=0 flags=0 obj= self=
  | sysTid=0 nice=0 cgrp= sched= handle=
  | state= schedstat=(  ) utm=0 stm=0 core=0 HZ=0
  | stack= stackSize=
  | held mutexes=
  at a.B.c(B.java:1)
  - locked <0x1> (a java.lang.Object)

"bare" prio=0 (not attached)
  | sysTid=0 nice=0 cgrp=
  | state= schedstat=(  ) utm=0 stm=0 core=0 HZ=0

"mutexed" prio=0 (not attached)
  | sysTid=0 nice=0 cgrp=
  | state= schedstat=(  ) utm=0 stm=0 core=0 HZ=0
  | held mutexes= "mutator lock"(shared held)

----- end 42 -----
`
	var b bytes.Buffer
	if err := Format(&b, p, StyleART14); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// TestDalvikLockOwnerName: Dalvik's "held by tid=N (name)" takes the name
// from the lock line when it has one, else from the dump's thread N, else
// prints none.
func TestDalvikLockOwnerName(t *testing.T) {
	p := &Process{VM: VMDalvik, Threads: []*Thread{{Name: "Worker", TID: 11}}}
	for _, tc := range []struct {
		l    Lock
		want string
	}{
		{Lock{Kind: LockWaitingToLock, Object: "0x41d2f6a0", Type: "java.lang.Object", HeldBy: 11}, "- waiting to lock <0x41d2f6a0> (a java.lang.Object) held by tid=11 (Worker)"},
		{Lock{Kind: LockWaitingToLock, Object: "0x41d2f6a0", Type: "java.lang.Object", HeldBy: 11, HeldByName: "Named"}, "- waiting to lock <0x41d2f6a0> (a java.lang.Object) held by tid=11 (Named)"},
		{Lock{Kind: LockWaitingToLock, Object: "0x41d2f6a0", Type: "java.lang.Object", HeldBy: 12}, "- waiting to lock <0x41d2f6a0> (a java.lang.Object) held by tid=12"},
	} {
		if got := lockText(p, tc.l, StyleDalvik); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

// TestProcessThreadByTID: Thread finds the first attached thread with the
// tid, at index 0 too; tid 0 and below find nothing even when a thread has
// tid 0.
func TestProcessThreadByTID(t *testing.T) {
	first := &Thread{Name: "first", TID: 2}
	zero := &Thread{Name: "zero", TID: 0}
	unattached := &Thread{Name: "native", TID: 3, Unattached: true}
	three := &Thread{Name: "three", TID: 3}
	p := &Process{Threads: []*Thread{first, zero, unattached, three}}
	for _, tc := range []struct {
		tid  int
		want *Thread
	}{{2, first}, {3, three}, {0, nil}, {-1, nil}, {4, nil}} {
		if got := p.Thread(tc.tid); got != tc.want {
			t.Errorf("Thread(%d) = %+v, want %+v", tc.tid, got, tc.want)
		}
	}
}

// TestFrameLineEdges: a line number right after a leading colon, and line
// 0, are line numbers; a negative one is not.
func TestFrameLineEdges(t *testing.T) {
	for _, tc := range []struct {
		source string
		line   int
		ok     bool
	}{{":12", 12, true}, {"B.java:0", 0, true}, {"B.java:-1", 0, false}, {"B.java:~7", 7, true}, {"Native method", 0, false}} {
		n, ok := JavaFrame("a.B", "c", tc.source).Line()
		if n != tc.line || ok != tc.ok {
			t.Errorf("Line of %q = %d %v, want %d %v", tc.source, n, ok, tc.line, tc.ok)
		}
	}
}

// TestNativeFrameBuildIDAtStart: a location that is only " (BuildId: …)"
// has that BuildId, no symbol and an empty library.
func TestNativeFrameBuildIDAtStart(t *testing.T) {
	f := NativeFrame(0, "000000000001f2a4", " (BuildId: 2ff0ae2e)")
	if f.BuildID() != "2ff0ae2e" || f.Library() != "" || f.Symbol() != "" {
		t.Fatalf("build id %q library %q symbol %q; want \"2ff0ae2e\" \"\" \"\"", f.BuildID(), f.Library(), f.Symbol())
	}
	f = NativeFrame(1, "000000000001f2a4", "/system/lib64/libc.so (read+4) (BuildId: 2ff0ae2e)")
	if f.BuildID() != "2ff0ae2e" || f.Library() != "/system/lib64/libc.so" || f.Symbol() != "read+4" {
		t.Fatalf("build id %q library %q symbol %q", f.BuildID(), f.Library(), f.Symbol())
	}
}

// TestKeepNewestFirstBlock: the only block of the pid is the first one.
func TestKeepNewestFirstBlock(t *testing.T) {
	a, b := &Process{PID: 5}, &Process{PID: 6}
	d := &Dump{Processes: []*Process{a, b}}
	d.KeepNewest(5)
	if len(d.Processes) != 1 || d.Processes[0] != a {
		t.Fatalf("kept %d blocks, want only pid 5's", len(d.Processes))
	}
}

// TestSymbolUnbalanced: a location ending in ')' without a matching '('
// has no symbol.
func TestSymbolUnbalanced(t *testing.T) {
	f := NativeFrame(0, "0000000000001000", " libx.so)")
	if f.Symbol() != "" || f.Library() != " libx.so)" {
		t.Fatalf("symbol %q library %q", f.Symbol(), f.Library())
	}
}

// TestLineLengthLimitExact: a line of exactly MaxLineLength bytes is kept
// whole and not reported; a line longer than the reader's 16 KiB buffer is
// cut at MaxLineLength counting the fragments already kept.
func TestLineLengthLimitExact(t *testing.T) {
	block := func(line string) string {
		return "----- pid 1 at d -----\n" + line + "\n----- end 1 -----\n"
	}
	d, err := Options{MaxLineLength: 100}.Parse(strings.NewReader(block(strings.Repeat("x", 100))))
	if err != nil {
		t.Fatal(err)
	}
	p := onlyProcess(t, d)
	if len(p.RuntimeLines) != 1 || p.RuntimeLines[0].Text != strings.Repeat("x", 100) || len(d.Warnings) != 0 {
		t.Fatalf("line of exactly the limit: %d lines, warnings %v", len(p.RuntimeLines), d.Warnings)
	}
	d, err = Options{MaxLineLength: 20000}.Parse(strings.NewReader(block(strings.Repeat("y", 30000))))
	if err != nil {
		t.Fatal(err)
	}
	p = onlyProcess(t, d)
	if len(p.RuntimeLines) != 1 || p.RuntimeLines[0].Text != strings.Repeat("y", 20000) {
		t.Fatalf("30000-byte line: %d lines of %d bytes", len(p.RuntimeLines), len(p.RuntimeLines[0].Text))
	}
	eq(t, "warning", d.Warnings, []Warning{{2, "line longer than 20000 bytes; the rest was dropped"}})
}

// TestBlockKinds: a block without threads stays of unknown kind (it is not
// "all threads native"); "DALVIK THREADS (0):" is ART declaring no thread.
func TestBlockKinds(t *testing.T) {
	p := onlyProcess(t, parseString(t, "----- pid 1 at d -----\n----- end 1 -----\n"))
	if p.VM != VMUnknown || len(p.Threads) != 0 {
		t.Fatalf("empty block: %v with %d threads, want unknown", p.VM, len(p.Threads))
	}
	p = onlyProcess(t, parseString(t, "----- pid 2 at d -----\nDALVIK THREADS (0):\n----- end 2 -----\n"))
	if p.VM != VMART || p.DeclaredThreads != 0 {
		t.Fatalf("DALVIK THREADS (0): %v declaring %d", p.VM, p.DeclaredThreads)
	}
}

// TestQuotedHeaderFields: a quoted value of one character is a value; two
// quotes alone are not, and the line stays with the runtime lines.
func TestQuotedHeaderFields(t *testing.T) {
	p := onlyProcess(t, parseString(t, "----- pid 1 at d -----\nABI: 'x'\nBuild fingerprint: ''\nDALVIK THREADS (0):\n----- end 1 -----\n"))
	if p.ABI != "x" || p.BuildFingerprint != "" {
		t.Fatalf("ABI %q fingerprint %q, want \"x\" \"\"", p.ABI, p.BuildFingerprint)
	}
	eq(t, "runtime lines", p.RuntimeLines, []Line{{3, "Build fingerprint: ''"}})
}

// TestSplitMutexesGluedText: text glued to a mutex's closing quote or
// parenthesis stays in that token; a blank of any kind ends it.
func TestSplitMutexesGluedText(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`"a"b "c"(shared held)x "d"` + "\t" + `"e"` + "\r" + `"f"`, []string{`"a"b`, `"c"(shared held)x`, `"d"`, `"e"`, `"f"`}},
		{`"mutator lock"(shared held) "thread list lock"`, []string{`"mutator lock"(shared held)`, `"thread list lock"`}},
		{`"" "b"`, []string{`""`, `"b"`}},
		{`"c"(x ) "d"`, []string{`"c"(x )`, `"d"`}},
	} {
		eq(t, tc.in, splitMutexes(tc.in), tc.want)
	}
}

// TestEndLineTooShortForItsAffixes: "----- end -----" shares its dashes
// between the prefix and the suffix; it is no end line and stays a runtime
// line.
func TestEndLineTooShortForItsAffixes(t *testing.T) {
	d := parseString(t, "----- pid 1 at d -----\n----- end -----\n----- end 1 -----\n")
	p := onlyProcess(t, d)
	eq(t, "runtime lines", p.RuntimeLines, []Line{{2, "----- end -----"}})
	if p.Truncated {
		t.Fatal("block truncated")
	}
}

// TestCutField splits at the first blank, also when that is the first byte.
func TestCutField(t *testing.T) {
	for _, tc := range []struct{ in, field, rest string }{
		{" x", "", "x"}, {"a b c", "a", "b c"}, {"a\tb", "a", "b"}, {"ab", "ab", ""}, {"", "", ""},
	} {
		f, r := cutField(tc.in)
		if f != tc.field || r != tc.rest {
			t.Errorf("cutField(%q) = %q, %q; want %q, %q", tc.in, f, r, tc.field, tc.rest)
		}
	}
}

// TestParseUintTenDigits: ten digits within int32 are a number; more
// digits, or a value past int32, are not.
func TestParseUintTenDigits(t *testing.T) {
	for _, tc := range []struct {
		in string
		n  int
		ok bool
	}{{"2147483647", 2147483647, true}, {"2147483648", 0, false}, {"02147483647", 0, false}, {"0", 0, true}, {"", 0, false}} {
		n, ok := parseUint(tc.in)
		if ok != tc.ok || (ok && n != tc.n) {
			t.Errorf("parseUint(%q) = %d %v, want %d %v", tc.in, n, ok, tc.n, tc.ok)
		}
	}
}

// TestThreadHeaderEdges: flags after "(not attached)" are flags; text glued
// to it makes no header; a sysTid thread may have an empty name.
func TestThreadHeaderEdges(t *testing.T) {
	th := parseThreadHeader(`"hwuiTask1" prio=10 (not attached) JIT`)
	if th == nil || !th.Unattached || th.Name != "hwuiTask1" || th.Priority != 10 {
		t.Fatalf("unattached with a flag: %+v", th)
	}
	eq(t, "flags", th.HeaderFlags, []string{"JIT"})
	if th := parseThreadHeader(`"a" prio=5 (not attached)X`); th != nil {
		t.Fatalf("glued text: %+v, want no header", th)
	}
	th = parseThreadHeader(`"" sysTid=5`)
	if th == nil || th.Name != "" || th.SysTID != 5 || !th.Unattached {
		t.Fatalf("empty sysTid name: %+v", th)
	}
}

// TestClosingQuote: a quote closes a value at the end of the text or before
// " key="; a quote followed by a bare word, or by "=" without a key, is
// inside the value.
func TestClosingQuote(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want int
	}{{`"a" b`, 4}, {`"a" =x`, 5}, {`"a" b=1`, 2}, {`"a"`, 2}, {`"a" "b"`, 6}, {`"a`, 1}} {
		if got := closingQuote(tc.v); got != tc.want {
			t.Errorf("closingQuote(%q) = %d, want %d", tc.v, got, tc.want)
		}
	}
}

// TestIdentLen: letters of both cases from A to Z, '_', and digits after
// the first byte.
func TestIdentLen(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want int
	}{{"A=1", 1}, {"Z", 1}, {"a", 1}, {"z_", 2}, {"_x09=", 4}, {"0x", 0}, {"@", 0}, {"x[", 1}, {"x`", 1}, {"x{", 1}, {"x/", 1}, {"x:", 1}, {"", 0}} {
		if got := identLen(tc.s); got != tc.want {
			t.Errorf("identLen(%q) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

// TestParseFrameAndLockEdges: a Java frame with nothing before its '(' or
// before its last '.', lock lines with an unknown verb or none, and one with an empty type.
func TestParseFrameAndLockEdges(t *testing.T) {
	f, ok := parseJavaFrame("(x)")
	if !ok || f != JavaFrame("", "", "x") {
		t.Fatalf("(x): %+v %v", f, ok)
	}
	f, ok = parseJavaFrame(".m(B.java:1)")
	if !ok || f != JavaFrame("", "m", "B.java:1") {
		t.Fatalf(".m(B.java:1): %+v %v", f, ok)
	}
	for _, line := range []string{"frobbing <0x1> (a java.lang.Object)", "<0x1> (a java.lang.Object)"} {
		if l, ok := parseLock(line); ok {
			t.Fatalf("%q parsed: %+v", line, l)
		}
	}
	// An empty type closes at once.
	if l, ok := parseLock("locked <0x1> (a )"); !ok || l != (Lock{Kind: LockHeld, Object: "0x1"}) {
		t.Fatalf("empty type: %+v %v", l, ok)
	}
}

// TestReportMainHeldBy: the report names the main thread's monitor owner
// by tid when the owner is thread 0 found through its `- locked` line, and
// when the owner is only a tid on the lock line.
func TestReportMainHeldBy(t *testing.T) {
	holder := &Thread{Name: "T5", TID: 5, State: "Runnable", Locks: []Lock{{Kind: LockHeld, Object: "0x1", Type: "java.lang.Object"}}}
	main := blockedThread(1, "0x1", 0)
	main.Name = "main"
	lone := blockedThread(1, "0x2", 99)
	lone.Name = "main"
	for _, tc := range []struct {
		name string
		p    *Process
		want int
	}{
		{"owner 0 from locked", &Process{PID: 1, VM: VMART, Threads: []*Thread{holder, main}}, 5},
		{"owner not in the dump", &Process{PID: 2, VM: VMART, Threads: []*Thread{lone}}, 99},
	} {
		r := NewReport(&Dump{Processes: []*Process{tc.p}})
		m := r.Processes[0].MainThread
		if m == nil || m.HeldByTID == nil || *m.HeldByTID != tc.want {
			t.Errorf("%s: main %+v, want held by tid %d", tc.name, m, tc.want)
		}
	}
}

// TestReportCPUSeconds: seconds only when the dump prints HZ.
func TestReportCPUSeconds(t *testing.T) {
	p := &Process{PID: 1, VM: VMART, Threads: []*Thread{
		{Name: "a", TID: 2, Utime: 100, Stime: 50, HZ: 100},
		{Name: "b", TID: 3, Utime: 10},
	}}
	cpu := NewReport(&Dump{Processes: []*Process{p}}).Processes[0].CPURanking
	if len(cpu) != 2 || cpu[0].Seconds == nil || *cpu[0].Seconds != 1.5 || cpu[0].Jiffies != 150 || cpu[1].Seconds != nil || cpu[1].Jiffies != 10 {
		t.Fatalf("cpu ranking %+v", cpu)
	}
}

// TestThreadReportLocks: a lock line whose frame index is past the last
// frame is kept (not dropped, no panic); the waiting-on object is that of
// the first waiting-on or sleeping-on line; a waiting-to-lock line outside
// the lock graph (its thread is not blocked) still names the owner's tid.
func TestThreadReportLocks(t *testing.T) {
	a := &Thread{Name: "a", TID: 2, State: "Waiting", Frames: []Frame{JavaFrame("a.B", "c", "B.java:1")},
		Locks: []Lock{{Kind: LockHeld, Object: "0x1", Frame: 1}, {Kind: LockWaitingOn, Object: "0x2", Frame: 0}}}
	b := &Thread{Name: "b", TID: 3, State: "Sleeping", Locks: []Lock{{Kind: LockHeld, Object: "0x3", Frame: -1}, {Kind: LockSleepingOn, Object: "0x4", Frame: -1}}}
	c := &Thread{Name: "c", TID: 4, State: "Runnable", Locks: []Lock{{Kind: LockHeld, Object: "0x5", Frame: -1}}}
	d := blockedThread(5, "0x6", 99)
	d.State = "Runnable" // no lock graph edge: the line alone names the owner
	r := NewReport(&Dump{Processes: []*Process{{PID: 1, VM: VMART, Threads: []*Thread{a, b, c, d}}}})
	th := r.Processes[0].Threads
	locks := 0
	for _, f := range th[0].Frames {
		locks += len(f.Locks)
	}
	if locks != 2 || len(th[0].Locked) != 1 || th[0].Locked[0] != "0x1" {
		t.Fatalf("thread a: %d lock lines, locked %v; want 2, [0x1]", locks, th[0].Locked)
	}
	for i, want := range []string{"0x2", "0x4", ""} {
		got := ""
		if th[i].WaitingOn != nil {
			got = *th[i].WaitingOn
		}
		if got != want {
			t.Errorf("thread %d waiting on %q, want %q", i, got, want)
		}
	}
	if th[3].HeldByTID == nil || *th[3].HeldByTID != 99 {
		t.Fatalf("thread d held by %v, want 99", th[3].HeldByTID)
	}
}

// TestLockGraphReportEdges: an edge to thread 0 names it; an edge's frame
// is its lock line's frame, frame 0 included, and none past the last frame.
func TestLockGraphReportEdges(t *testing.T) {
	holder := &Thread{Name: "T5", TID: 5, State: "Runnable"}
	w := blockedThread(6, "0x1", 5) // lock line on frame 0
	past := blockedThread(7, "0x2", 99)
	past.Locks[0].Frame = 1 // one frame only
	p := &Process{PID: 1, VM: VMART, Threads: []*Thread{holder, w, past}}
	g := NewReport(&Dump{Processes: []*Process{p}}).Processes[0].LockGraph
	if len(g) != 2 {
		t.Fatalf("lock graph %+v", g)
	}
	if g[0].HeldByName != "T5" || g[0].HeldByTID != 5 || g[0].Frame != "a.B.c(B.java:1)" {
		t.Errorf("edge to thread 0: %+v", g[0])
	}
	if g[1].HeldByName != "" || g[1].HeldByTID != 99 || g[1].Frame != "" {
		t.Errorf("edge with its lock past the last frame: %+v", g[1])
	}
}

// TestWriteJSONWithoutProcesses: a report of no process (Processes nil or
// empty), or of processes whose arrays are nil or empty, is written exactly
// as the JSON encoder writes it.
func TestWriteJSONWithoutProcesses(t *testing.T) {
	for _, r := range []*Report{{}, {Processes: []ProcessReport{}}, NewReport(&Dump{}), {Processes: []ProcessReport{{}}}, {Processes: []ProcessReport{{Threads: []ThreadReport{}}}}, {Processes: []ProcessReport{{Deadlocks: [][]LockEdgeReport{nil, {}}}}}} {
		var want, got bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("got\n%s\nwant\n%s", got.String(), want.String())
		}
	}
}
