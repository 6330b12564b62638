package threaddump

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func parseFile(t *testing.T, name string) *Dump {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d
}

func parseString(t *testing.T, s string) *Dump {
	t.Helper()
	d, err := Parse(strings.NewReader(s))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// onlyProcess returns the dump's single process.
func onlyProcess(t *testing.T, d *Dump) *Process {
	t.Helper()
	if len(d.Processes) != 1 {
		t.Fatalf("got %d processes, want 1", len(d.Processes))
	}
	return d.Processes[0]
}

func threadNamed(t *testing.T, p *Process, name string) *Thread {
	t.Helper()
	for _, th := range p.Threads {
		if th.Name == name {
			return th
		}
	}
	t.Fatalf("pid %d has no thread %q", p.PID, name)
	return nil
}

func eq[T any](t *testing.T, what string, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", what, got, want)
	}
}

// The example of spec §5, with the values the spec says a parse yields.
func TestParseSpecExample(t *testing.T) {
	d := parseFile(t, "spec_example_art10.txt")
	eq(t, "truncated", d.Truncated, false)
	eq(t, "warnings", len(d.Warnings), 0)
	eq(t, "unknown", len(d.Unknown), 0)
	p := onlyProcess(t, d)
	eq(t, "pid", p.PID, 4242)
	eq(t, "date", p.Date, "2019-06-03 14:07:12")
	tm, ok := p.Time()
	eq(t, "time", tm, time.Date(2019, 6, 3, 14, 7, 12, 0, time.UTC))
	eq(t, "time ok", ok, true)
	eq(t, "cmdline", p.CmdLine, "com.example.deadlock")
	eq(t, "fingerprint", p.BuildFingerprint, "acme/hawk/hawk:10/QP1A.190711.020/5800535:user/release-keys")
	eq(t, "abi", p.ABI, "arm64")
	eq(t, "build type", p.BuildType, "optimized")
	eq(t, "vm", p.VM, VMART)
	eq(t, "declared", p.DeclaredThreads, 4)
	eq(t, "process line", p.Line, 2)
	eq(t, "runtime lines", len(p.RuntimeLines), 6)
	eq(t, "first runtime line", p.RuntimeLines[0], Line{7, "Zygote loaded classes=15686 post zygote classes=743"})
	eq(t, "last runtime line", p.RuntimeLines[5].Text, "suspend all histogram:\tSum: 312us 99% C.I. 2us-118us Avg: 26us Max: 121us")

	var names []string
	var tids, sysTids []int
	for _, th := range p.Threads {
		names = append(names, th.Name)
		tids = append(tids, th.TID)
		sysTids = append(sysTids, th.SysTID)
	}
	eq(t, "names", names, []string{"main", "Signal Catcher", "HeapTaskDaemon", "Transfer-Thread", "RenderThread"})
	eq(t, "tids", tids, []int{1, 3, 7, 12, 0})
	eq(t, "sysTids", sysTids, []int{4242, 4249, 4256, 4271, 4268})

	main := p.Threads[0]
	want := &Thread{
		Name: "main", Priority: 5, TID: 1, State: "Blocked",
		Group: "main", SuspendCount: 1, Flags: 1, Obj: "0x71d85ae8", Self: "0x7b4f810c00",
		SysTID: 4242, Nice: -10, Cgroup: "default", Sched: "0/0", Handle: "0x7b50d96ed0",
		KernelState: "S", SchedStat: "412735108 20193640 389", Utime: 33, Stime: 8, Core: 2, HZ: 100,
		Stack: "0x7fe6b14000-0x7fe6b16000", StackSize: "8192KB",
		Frames: []Frame{
			JavaFrame("com.example.deadlock.Bank", "transfer", "Bank.java:31"),
			JavaFrame("com.example.deadlock.MainActivity", "onPay", "MainActivity.java:58"),
			JavaFrame("com.example.deadlock.MainActivity$1", "onClick", "MainActivity.java:24"),
			JavaFrame("android.view.View", "performClick", "View.java:7140"),
			JavaFrame("android.view.View", "performClickInternal", "View.java:7117"),
			JavaFrame("android.os.Handler", "handleCallback", "Handler.java:883"),
			JavaFrame("android.os.Handler", "dispatchMessage", "Handler.java:100"),
			JavaFrame("android.os.Looper", "loop", "Looper.java:214"),
			JavaFrame("android.app.ActivityThread", "main", "ActivityThread.java:7356"),
			JavaFrame("java.lang.reflect.Method", "invoke", "Native method"),
			JavaFrame("com.android.internal.os.RuntimeInit$MethodAndArgsCaller", "run", "RuntimeInit.java:492"),
			JavaFrame("com.android.internal.os.ZygoteInit", "main", "ZygoteInit.java:930"),
		},
		Locks: []Lock{
			{Kind: LockWaitingToLock, Object: "0x0b5e7a21", Type: "com.example.deadlock.Account", HeldBy: 12, Frame: 0},
			{Kind: LockHeld, Object: "0x03c1f8e6", Type: "com.example.deadlock.Account", Frame: 0},
		},
		Line: 14,
	}
	eq(t, "main thread", main, want)

	sc := threadNamed(t, p, "Signal Catcher")
	eq(t, "signal catcher daemon", sc.Daemon, true)
	eq(t, "held mutexes", sc.HeldMutexes, []string{`"mutator lock"(shared held)`})
	eq(t, "signal catcher frames", len(sc.Frames), 10)
	eq(t, "frame 5", sc.Frames[5], NativeFrame(5, "000000000047e3dc", "/apex/com.android.runtime/lib64/libart.so (art::SignalCatcher::HandleSigQuit+1636)"))
	eq(t, "frame 5 symbol", sc.Frames[5].Symbol(), "art::SignalCatcher::HandleSigQuit+1636")
	eq(t, "frame 5 library", sc.Frames[5].Library(), "/apex/com.android.runtime/lib64/libart.so")
	eq(t, "last frame", sc.Frames[9], Frame{Kind: FrameNote, Text: "(no managed stack frames)"})

	heap := threadNamed(t, p, "HeapTaskDaemon")
	eq(t, "heap state", heap.State, "WaitingForTaskProcessor")
	eq(t, "heap kernel frame", heap.Frames[0], Frame{Kind: FrameKernel, Text: "(couldn't read /proc/self/task/4256/stack)"})
	eq(t, "heap top java frame", heap.TopJavaFrame(), 5)
	eq(t, "heap native method", heap.Frames[5].IsNativeMethod(), true)

	transfer := threadNamed(t, p, "Transfer-Thread")
	eq(t, "transfer locks", transfer.Locks, []Lock{
		{Kind: LockWaitingToLock, Object: "0x03c1f8e6", Type: "com.example.deadlock.Account", HeldBy: 1, Frame: 0},
		{Kind: LockHeld, Object: "0x0b5e7a21", Type: "com.example.deadlock.Account", Frame: 0},
	})

	render := p.Threads[4]
	eq(t, "render unattached", render.Unattached, true)
	eq(t, "render prio", render.Priority, 5)
	eq(t, "render nice", render.Nice, -10)
	eq(t, "render state", render.State, "")
	eq(t, "render class", render.StateInfo().Class, ClassNative)
	eq(t, "render frames", len(render.Frames), 3)
	eq(t, "render truncated", render.Truncated, false)
}

func TestParseThreadHeader(t *testing.T) {
	for _, tc := range []struct {
		line string
		want *Thread // nil: not a header
	}{
		{`"main" prio=5 tid=1 Native`, &Thread{Name: "main", Priority: 5, TID: 1, State: "Native"}},
		{`"FinalizerDaemon" daemon prio=5 tid=6 Waiting`, &Thread{Name: "FinalizerDaemon", Daemon: true, Priority: 5, TID: 6, State: "Waiting"}},
		{`"AsyncTask #1" prio=5 tid=12 RUNNABLE JIT`, &Thread{Name: "AsyncTask #1", Priority: 5, TID: 12, State: "RUNNABLE", HeaderFlags: []string{"JIT"}}},
		{`"Thread-9" daemon prio=5 tid=27 Native (still starting up)`, &Thread{Name: "Thread-9", Daemon: true, Priority: 5, TID: 27, State: "Native", HeaderFlags: []string{"(still starting up)"}}},
		{`"w" prio=5 tid=26 Runnable DisableFlipCount = 1`, &Thread{Name: "w", Priority: 5, TID: 26, State: "Runnable", HeaderFlags: []string{"DisableFlipCount = 1"}}},
		{`"RenderThread" prio=5 (not attached)`, &Thread{Name: "RenderThread", Priority: 5, Unattached: true}},
		{`"hwuiTask1" sysTid=1773 nice=0 sched=0/0 cgrp=apps`, &Thread{Name: "hwuiTask1", SysTID: 1773, Sched: "0/0", Cgroup: "apps", Unattached: true}},
		{`"Binder:612_1" sysTid=634`, &Thread{Name: "Binder:612_1", SysTID: 634, Unattached: true}},
		// Names with spaces, quotes, " daemon" and " prio=" inside.
		{`"pool "worker" #2 ✓" prio=5 tid=26 Runnable`, &Thread{Name: `pool "worker" #2 ✓`, Priority: 5, TID: 26, State: "Runnable"}},
		{`"x" daemon" prio=5 tid=4 Blocked`, &Thread{Name: `x" daemon`, Priority: 5, TID: 4, State: "Blocked"}},
		{`"x" daemon" daemon prio=5 tid=4 Blocked`, &Thread{Name: `x" daemon`, Daemon: true, Priority: 5, TID: 4, State: "Blocked"}},
		{`"a" prio=1 tid=2 Runnable" prio=7 tid=3 Sleeping`, &Thread{Name: `a" prio=1 tid=2 Runnable`, Priority: 7, TID: 3, State: "Sleeping"}},
		{`"" prio=5 tid=8 Waiting`, &Thread{Priority: 5, TID: 8, State: "Waiting"}},
		{`"[red]evil` + "\x1b[2J" + `" prio=5 tid=9 Runnable`, &Thread{Name: "[red]evil\x1b[2J", Priority: 5, TID: 9, State: "Runnable"}},
		{`"main" prio=5 tid=1`, &Thread{Name: "main", Priority: 5, TID: 1}},
		{`"neg" prio=-2 (not attached)`, &Thread{Name: "neg", Priority: -2, Unattached: true}},
		// Not headers.
		{`"main" prio=x tid=1 Native`, nil},
		{`"main" prio=5 tid=-1 Native`, nil},
		{`"main" prio=5 id=1 Native`, nil},
		{`main" prio=5 tid=1 Native`, nil},
		{`"main prio=5 tid=1 Native`, nil},
		{`"quoted text in a runtime section"`, nil},
		{`"x" sysTid=abc`, nil},
	} {
		got := parseThreadHeader(tc.line)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseThreadHeader(%q)\n got %#v\nwant %#v", tc.line, got, tc.want)
		}
	}
}

// The detail lines of every release (spec §2.2) give the same fields
// whatever their order.
func TestDetailLinesPerRelease(t *testing.T) {
	full := Thread{
		Group: "main", SuspendCount: 1, Obj: "0x12c43f30", Self: "0x7acaa2b000",
		SysTID: 4271, Nice: -4, Cgroup: "default", Sched: "0/0", Handle: "0x7aa94c0d50",
		KernelState: "S", SchedStat: "4710402 1984271 11", Utime: 7, Stime: 2, Core: 3,
	}
	with := func(f func(*Thread)) Thread { c := full; f(&c); return c }
	for _, tc := range []struct {
		name  string
		lines []string
		want  Thread
	}{
		{"dalvik", []string{
			`| group="main" sCount=1 dsCount=2 obj=0x12c43f30 self=0x7acaa2b000`,
			`| sysTid=4271 nice=-4 sched=0/0 cgrp=default handle=0x7aa94c0d50`,
			`| state=S schedstat=( 4710402 1984271 11 ) utm=7 stm=2 core=3`,
		}, with(func(t *Thread) { t.DebugSuspendCount = 2 })},
		{"old dalvik without state=", []string{
			`| group="main" sCount=1 dsCount=0 obj=0x12c43f30 self=0x7acaa2b000`,
			`| sysTid=4271 nice=-4 sched=0/0 cgrp=[n/a] handle=-256476304`,
			`| schedstat=( 4710402 1984271 11 ) utm=7 stm=2 core=3`,
		}, with(func(t *Thread) { t.KernelState, t.Cgroup, t.Handle = "", "[n/a]", "-256476304" })},
		{"art 2016", []string{
			`| group="main" sCount=1 dsCount=0 obj=0x12c43f30 self=0x7acaa2b000`,
			`| sysTid=4271 nice=-4 cgrp=default sched=0/0 handle=0x7aa94c0d50`,
			`| state=S schedstat=( 4710402 1984271 11 ) utm=7 stm=2 core=3 HZ=100`,
			`| stack=0x7aa93bd000-0x7aa93bf000 stackSize=1037KB`,
			`| held mutexes=`,
		}, with(func(t *Thread) { t.HZ, t.Stack, t.StackSize = 100, "0x7aa93bd000-0x7aa93bf000", "1037KB" })},
		{"art android 8-10", []string{
			`| group="main" sCount=1 dsCount=0 flags=1 obj=0x12c43f30 self=0x7acaa2b000`,
			`| sysTid=4271 nice=-4 cgrp=default sched=0/0 handle=0x7aa94c0d50`,
			`| state=S schedstat=( 4710402 1984271 11 ) utm=7 stm=2 core=3 HZ=100`,
			`| stack=0x7aa93bd000-0x7aa93bf000 stackSize=1039KB`,
			`| held mutexes= "mutator lock"(shared held) "thread list lock" "abort lock"(exclusive held)`,
		}, with(func(t *Thread) {
			t.Flags, t.HZ, t.Stack, t.StackSize = 1, 100, "0x7aa93bd000-0x7aa93bf000", "1039KB"
			t.HeldMutexes = []string{`"mutator lock"(shared held)`, `"thread list lock"`, `"abort lock"(exclusive held)`}
		})},
		{"art 2020+", []string{
			`| group="main" sCount=1 ucsCount=1 flags=5 obj=0x12c43f30 self=0x7acaa2b000`,
			`| sysTid=4271 nice=-4 cgrp=default sched=0/0 handle=0x7aa94c0d50`,
			`| state=S schedstat=( 4710402 1984271 11 ) utm=7 stm=2 core=3 HZ=100`,
			`| stack=0x7aa93bd000-0x7aa93bf000 stackSize=1039KB`,
			`| held mutexes=`,
		}, with(func(t *Thread) {
			t.UserCodeSuspendCount, t.Flags, t.HZ, t.Stack, t.StackSize = 1, 5, 100, "0x7aa93bd000-0x7aa93bf000", "1039KB"
		})},
		{"shuffled tokens, unknown keys and a group with quotes and spaces", []string{
			`| self=0x7acaa2b000 obj=0x12c43f30 sCount=1 group="my "odd" group" future=1`,
			`| handle=0x7aa94c0d50 sched=0/0 cgrp=default nice=-4 sysTid=4271`,
			`| core=3 stm=2 utm=7 schedstat=( 4710402 1984271 11 ) state=S utm=x stray`,
		}, with(func(t *Thread) {
			t.Group = `my "odd" group`
			t.ExtraDetails = []Detail{{"future", "1"}, {"utm", "x"}, {"", "stray"}}
		})},
	} {
		th := &Thread{}
		for _, l := range tc.lines {
			th.detailLine(strings.TrimPrefix(l, "| "))
		}
		if !reflect.DeepEqual(*th, tc.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", tc.name, *th, tc.want)
		}
	}
}

func TestParseFrame(t *testing.T) {
	for _, tc := range []struct {
		line    string
		want    Frame
		file    string
		lineNo  int
		library string
		symbol  string
		buildID string
	}{
		{line: "at com.example.Bank.transfer(Bank.java:31)", want: JavaFrame("com.example.Bank", "transfer", "Bank.java:31"), file: "Bank.java", lineNo: 31},
		{line: "at com.example.Bank.transfer(Bank.java:~31)", want: JavaFrame("com.example.Bank", "transfer", "Bank.java:~31"), file: "Bank.java", lineNo: 31},
		{line: "at java.lang.Object.wait(Native method)", want: JavaFrame("java.lang.Object", "wait", "Native method")},
		{line: "at java.lang.VMThread.sleep(Native Method)", want: JavaFrame("java.lang.VMThread", "sleep", "Native Method")},
		{line: "at java.lang.Object.wait!(Native method)", want: JavaFrame("java.lang.Object", "wait!", "Native method")},
		{line: "at a.b.C.d(Unknown Source)", want: JavaFrame("a.b.C", "d", "Unknown Source")},
		{line: "at a.b.C.d(unavailable:4)", want: JavaFrame("a.b.C", "d", "unavailable:4"), lineNo: 4},
		{line: "at a.b.C$$Lambda.run(D8$$SyntheticClass:0)", want: JavaFrame("a.b.C$$Lambda", "run", "D8$$SyntheticClass:0"), file: "D8$$SyntheticClass"},
		{line: "at topLevel(Top.kt:3)", want: JavaFrame("", "topLevel", "Top.kt:3"), file: "Top.kt", lineNo: 3},
		{
			line:    "native: #02 pc 0000000000017a2c  /system/lib64/libutils.so (android::Looper::pollOnce(int, int*, int*, void**)+60)",
			want:    NativeFrame(2, "0000000000017a2c", "/system/lib64/libutils.so (android::Looper::pollOnce(int, int*, int*, void**)+60)"),
			library: "/system/lib64/libutils.so", symbol: "android::Looper::pollOnce(int, int*, int*, void**)+60",
		},
		{
			line:    "native: #00 pc 00000000005a1b64  /apex/com.android.art/lib64/libart.so (art::DumpNativeStack+108) (BuildId: 9c4a0d7e)",
			want:    NativeFrame(0, "00000000005a1b64", "/apex/com.android.art/lib64/libart.so (art::DumpNativeStack+108) (BuildId: 9c4a0d7e)"),
			library: "/apex/com.android.art/lib64/libart.so", symbol: "art::DumpNativeStack+108", buildID: "9c4a0d7e",
		},
		{
			line:    "native: #04 pc 00000000020015c4  /memfd:jit-cache (deleted) (offset 2000000) (com.example.Probe.tick+100)",
			want:    NativeFrame(4, "00000000020015c4", "/memfd:jit-cache (deleted) (offset 2000000) (com.example.Probe.tick+100)"),
			library: "/memfd:jit-cache (deleted) (offset 2000000)", symbol: "com.example.Probe.tick+100",
		},
		{line: "native: #05 pc 00000000000766bc  ???", want: NativeFrame(5, "00000000000766bc", "???"), library: "???"},
		{line: "#05  pc 00021c25  /system/lib/libbinder.so", want: NativeFrame(5, "00021c25", "/system/lib/libbinder.so"), library: "/system/lib/libbinder.so"},
		{
			line:    "#00  pc 000220cc  /system/lib/libc.so (__ioctl+8)",
			want:    NativeFrame(0, "000220cc", "/system/lib/libc.so (__ioctl+8)"),
			library: "/system/lib/libc.so", symbol: "__ioctl+8",
		},
		{
			line:    "#06 pc 000000000007d798  /apex/com.android.runtime/lib64/bionic/libc.so (__libc_init+108) (BuildId: 2ff0)",
			want:    NativeFrame(6, "000000000007d798", "/apex/com.android.runtime/lib64/bionic/libc.so (__libc_init+108) (BuildId: 2ff0)"),
			library: "/apex/com.android.runtime/lib64/bionic/libc.so", symbol: "__libc_init+108", buildID: "2ff0",
		},
		{line: "kernel: __switch_to+0x8c/0x98", want: Frame{Kind: FrameKernel, Text: "__switch_to+0x8c/0x98"}},
		{line: "(no managed stack frames)", want: Frame{Kind: FrameNote, Text: "(no managed stack frames)"}},
		{line: "(native backtrace unavailable)", want: Frame{Kind: FrameNote, Text: "(native backtrace unavailable)"}},
		{line: "... repeated 37 times", want: Frame{Kind: FrameNote, Text: "... repeated 37 times"}},
	} {
		got, ok := parseFrame(tc.line)
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseFrame(%q) = %#v, %v; want %#v", tc.line, got, ok, tc.want)
			continue
		}
		eq(t, tc.line+" file", got.File(), tc.file)
		n, _ := got.Line()
		eq(t, tc.line+" line", n, tc.lineNo)
		eq(t, tc.line+" library", got.Library(), tc.library)
		eq(t, tc.line+" symbol", got.Symbol(), tc.symbol)
		eq(t, tc.line+" build id", got.BuildID(), tc.buildID)
	}
	for _, bad := range []string{"at ", "at a.b.c", "at a.b(c", "native: #x pc 1", "native: #1 pc ", "#1 xx 00", "kernel:", "(something else)"} {
		if f, ok := parseFrame(bad); ok {
			t.Errorf("parseFrame(%q) = %#v, want no frame", bad, f)
		}
	}
}

func TestParseLock(t *testing.T) {
	for _, tc := range []struct {
		line string
		want Lock
	}{
		{"locked <0x0b5e7a21> (a com.example.Account)", Lock{Kind: LockHeld, Object: "0x0b5e7a21", Type: "com.example.Account"}},
		{"waiting to lock <0x0b5e7a21> (a java.lang.Object) held by thread 12", Lock{Kind: LockWaitingToLock, Object: "0x0b5e7a21", Type: "java.lang.Object", HeldBy: 12}},
		{"waiting to lock <0x41a2b3c8> (a java.lang.Object) held by tid=7 (Worker (main) #1)", Lock{Kind: LockWaitingToLock, Object: "0x41a2b3c8", Type: "java.lang.Object", HeldBy: 7, HeldByName: "Worker (main) #1"}},
		{"waiting to lock <0x41a2b3c8> held by tid=3 (GC)", Lock{Kind: LockWaitingToLock, Object: "0x41a2b3c8", HeldBy: 3, HeldByName: "GC"}},
		{"waiting to lock <0x0a57f1e9> (a java.lang.Class<com.example.Cache>)", Lock{Kind: LockWaitingToLock, Object: "0x0a57f1e9", Type: "java.lang.Class<com.example.Cache>"}},
		{"waiting to lock an unknown object", Lock{Kind: LockWaitingToLock, UnknownObject: true}},
		{"waiting to lock <@addr=0x12c4f0a8> (a int[]) held by thread 4", Lock{Kind: LockWaitingToLock, Object: "@addr=0x12c4f0a8", Type: "int[]", HeldBy: 4}},
		{"waiting on <0x0d4b1e37> (a java.lang.ref.ReferenceQueue)", Lock{Kind: LockWaitingOn, Object: "0x0d4b1e37", Type: "java.lang.ref.ReferenceQueue"}},
		{"waiting on <0x41e50bd0> (a java.lang.VMThread) held by tid=9 (FinalizerWatchdogDaemon)", Lock{Kind: LockWaitingOn, Object: "0x41e50bd0", Type: "java.lang.VMThread", HeldBy: 9, HeldByName: "FinalizerWatchdogDaemon"}},
		{"sleeping on <0x0a9e1f55> (a java.lang.Object)", Lock{Kind: LockSleepingOn, Object: "0x0a9e1f55", Type: "java.lang.Object"}},
		{"waiting for lock inflation of <0x0c92e5d0> (a com.example.AuditTrail) held by thread 17", Lock{Kind: LockWaitingForInflation, Object: "0x0c92e5d0", Type: "com.example.AuditTrail", HeldBy: 17}},
	} {
		got, ok := parseLock(tc.line)
		if !ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseLock(%q) = %#v, %v; want %#v", tc.line, got, ok, tc.want)
		}
	}
	for _, bad := range []string{
		"holding <0x1>", "locked 0x1", "locked <0x1", "waiting to lock <0x1> (a T", "waiting to lock <0x1> held by thread x",
		"waiting to lock <0x1> (a T) held by tid=x (n)", "waiting to lock <0x1> (a T) held by tid=3 n", "locked <0x1> trailing",
	} {
		if l, ok := parseLock(bad); ok {
			t.Errorf("parseLock(%q) = %#v, want no lock", bad, l)
		}
	}
}

func TestParseART7(t *testing.T) {
	d := parseFile(t, "art7_idle_main.txt")
	p := onlyProcess(t, d)
	eq(t, "warnings", d.Warnings, []Warning(nil))
	eq(t, "threads", len(p.Threads), 9)
	eq(t, "declared", p.DeclaredThreads, 8)
	eq(t, "runtime lines", len(p.RuntimeLines), 13)

	main := threadNamed(t, p, "main")
	eq(t, "main frames", len(main.Frames), 17)
	eq(t, "main kernel 0", main.Frames[0], Frame{Kind: FrameKernel, Text: "__switch_to+0x8c/0x98"})
	eq(t, "main top java", main.TopJavaFrame(), 10)
	eq(t, "main stack size", main.StackSize, "8MB")
	eq(t, "main native symbol with parameters", main.Frames[7].Symbol(), "android::Looper::pollOnce(int, int*, int*, void**)+60")

	sc := threadNamed(t, p, "Signal Catcher")
	eq(t, "catcher symbol with nested parentheses", sc.Frames[0].Symbol(),
		"art::DumpNativeStack(std::__1::basic_ostream<char, std::__1::char_traits<char> >&, int, BacktraceMap*, char const*, art::ArtMethod*, void*)+220")
	eq(t, "catcher library", sc.Frames[0].Library(), "/system/lib64/libart.so")

	heap := threadNamed(t, p, "HeapTaskDaemon")
	eq(t, "heap locks", heap.Locks, []Lock{{Kind: LockWaitingToLock, UnknownObject: true, Frame: 11}})
	eq(t, "heap cgroup", heap.Cgroup, "bg_non_interactive")

	fin := threadNamed(t, p, "FinalizerDaemon")
	eq(t, "finalizer locks", fin.Locks, []Lock{
		{Kind: LockWaitingOn, Object: "0x0d4b1e37", Type: "java.lang.ref.ReferenceQueue", Frame: 0},
		{Kind: LockHeld, Object: "0x0d4b1e37", Type: "java.lang.ref.ReferenceQueue", Frame: 2},
	})
	eq(t, "finalizer held", fin.Held(), []Lock{{Kind: LockHeld, Object: "0x0d4b1e37", Type: "java.lang.ref.ReferenceQueue", Frame: 2}})
	eq(t, "finalizer waiting to lock", fin.WaitingToLock(), (*Lock)(nil))
	eq(t, "finalizer waiting", fin.Waiting(), &fin.Locks[0])

	watchdog := threadNamed(t, p, "FinalizerWatchdogDaemon")
	eq(t, "watchdog state", watchdog.StateInfo().Class, ClassSleeping)
	eq(t, "watchdog sleeping", watchdog.Locks[0].Kind, LockSleepingOn)

	binder := threadNamed(t, p, "Binder:2817_2")
	eq(t, "binder ??? symbol", binder.Frames[11].Symbol(), "???")
	eq(t, "binder frame count", len(binder.Frames), 17)

	hwui := threadNamed(t, p, "hwuiTask1")
	eq(t, "hwui", [4]any{hwui.Unattached, hwui.SysTID, hwui.Nice, hwui.Cgroup}, [4]any{true, 2874, -2, "default"})
	eq(t, "hwui frames", len(hwui.Frames), 11)
}

func TestParseART14(t *testing.T) {
	d := parseFile(t, "art14_deadlock3.txt")
	eq(t, "unknown lines outside the block", len(d.Unknown), 9)
	eq(t, "first unknown", d.Unknown[0].No, 1)
	eq(t, "subject", strings.HasPrefix(d.Unknown[0].Text, "Subject: Input dispatching timed out"), true)
	eq(t, "last unknown", d.Unknown[8], Line{10, "window_ms: 300000"})
	p := onlyProcess(t, d)
	eq(t, "date", p.Date, "2024-05-14 10:48:12.734561298+0200")
	tm, _ := p.Time()
	eq(t, "time", tm.UTC(), time.Date(2024, 5, 14, 8, 48, 12, 734561298, time.UTC))
	eq(t, "original cmdline", p.OriginalCmdLine, "/system/bin/app_process64 /system/bin --application --nice-name=com.example.ledger")
	eq(t, "threads", len(p.Threads), 13)
	eq(t, "runtime lines after the threads", len(p.RuntimeLines), 12)
	eq(t, "first runtime line", p.RuntimeLines[0], Line{199, "Zygote loaded classes=21973 post zygote classes=1402"})
	eq(t, "loader line", p.RuntimeLines[2].Text, "#0 dalvik.system.PathClassLoader: [], parent #1")

	main := threadNamed(t, p, "main")
	eq(t, "ucsCount", main.UserCodeSuspendCount, 0)
	eq(t, "sCount", main.SuspendCount, 1)
	eq(t, "self", main.Self, "0xb400007c1b6f0380")
	eq(t, "cgroup", main.Cgroup, "top-app")

	odd := threadNamed(t, p, `pool "worker" #2 ✓`)
	eq(t, "odd flags", odd.HeaderFlags, []string{"DisableFlipCount = 1"})
	eq(t, "odd repeat note", odd.Frames[4], Frame{Kind: FrameNote, Text: "... repeated 37 times"})
	eq(t, "odd unavailable", odd.Frames[5], JavaFrame("com.example.ledger.Hash", "digest", "unavailable:4"))

	starting := threadNamed(t, p, "Thread-9")
	eq(t, "starting flags", starting.HeaderFlags, []string{"(still starting up)"})
	eq(t, "starting group", starting.Group, "")
	eq(t, "starting unknown line kept", starting.Unknown, []Line{{166, "  Mutator lock held exclusively by tid=2"}})
	eq(t, "starting frames around the unknown line", len(starting.Frames), 3)

	inflater := threadNamed(t, p, "Inflater")
	eq(t, "inflation", inflater.WaitingToLock(), &Lock{Kind: LockWaitingForInflation, Object: "0x0c92e5d0", Type: "com.example.ledger.AuditTrail", HeldBy: 17, Frame: 0})

	saver := threadNamed(t, p, "Profile Saver")
	eq(t, "jit cache library", saver.Frames[4].Library(), "/memfd:jit-cache (deleted) (offset 2000000)")
	eq(t, "anon mapping", saver.Frames[3].Library(), "[anon:dalvik-jit-code-cache]")
}

func TestParseDalvik(t *testing.T) {
	d := parseFile(t, "dalvik_kitkat_deadlock.txt")
	p := onlyProcess(t, d)
	eq(t, "vm", p.VM, VMDalvik)
	eq(t, "declared", p.DeclaredThreads, 0)
	eq(t, "runtime lines", p.RuntimeLines, []Line{
		{6, "JNI: CheckJNI is off; workarounds are off; pins=0; globals=268 (plus 7 weak)"},
		{9, "(mutexes: tll=0 tsl=0 tscl=0 ghl=0)"},
	})
	eq(t, "threads", len(p.Threads), 13)

	main := threadNamed(t, p, "main")
	eq(t, "main", [7]any{main.State, main.SysTID, main.Sched, main.Cgroup, main.Handle, main.Utime, main.HZ},
		[7]any{"MONITOR", 1733, "0/0", "apps", "1074573652", 196, 0})
	eq(t, "main lock", main.Locks, []Lock{{Kind: LockWaitingToLock, Object: "0x41d2f6a0", Type: "com.example.kitkat.Shelf", HeldBy: 11, HeldByName: "Restocker", Frame: 0}})
	n, _ := main.Frames[0].Line()
	eq(t, "approximate line", n, 57)
	eq(t, "native method spelling", main.Frames[8].IsNativeMethod(), true)

	async := threadNamed(t, p, "AsyncTask #1")
	eq(t, "jit flag", async.HeaderFlags, []string{"JIT"})
	eq(t, "cgroup with slash", async.Cgroup, "apps/bg_non_interactive")

	binder := threadNamed(t, p, "Binder_2")
	eq(t, "binder frames", len(binder.Frames), 12)
	eq(t, "binder #05", binder.Frames[5], NativeFrame(5, "00021c25", "/system/lib/libbinder.so"))
	eq(t, "binder #02 symbol", binder.Frames[2].Symbol(), "android::IPCThreadState::talkWithDriver(bool)+140")

	watchdog := threadNamed(t, p, "FinalizerWatchdogDaemon")
	eq(t, "watchdog wait line held by itself", watchdog.Locks, []Lock{{Kind: LockWaitingOn, Object: "0x41e50bd0", Type: "java.lang.VMThread", HeldBy: 9, HeldByName: "FinalizerWatchdogDaemon", Frame: 4}})

	eq(t, "suspended dsCount", threadNamed(t, p, "Thread-142").DebugSuspendCount, 1)
	eq(t, "initializing note", threadNamed(t, p, "Thread-143").Frames, []Frame{{Kind: FrameNote, Text: "(native backtrace unavailable)"}})

	hwui := threadNamed(t, p, "hwuiTask1")
	eq(t, "native thread", *hwui, Thread{
		Name: "hwuiTask1", Unattached: true, SysTID: 1773, Sched: "0/0", Cgroup: "apps",
		KernelState: "S", SchedStat: "382114 116250 4", Core: 1, Line: 148,
	})
}

func TestParseOldDalvik(t *testing.T) {
	p := onlyProcess(t, parseFile(t, "dalvik_old_nostate.txt"))
	var states []string
	for _, th := range p.Threads {
		states = append(states, th.State+"/"+th.StateInfo().Class)
	}
	eq(t, "states", states, []string{"WAIT/wait", "NATIVE/native", "ZOMBIE/zombie"})
	t10 := threadNamed(t, p, "Thread-10")
	eq(t, "no state=", t10.KernelState, "")
	eq(t, "cgroup", t10.Cgroup, "[n/a]")
	eq(t, "negative handle", t10.Handle, "-259183504")
	eq(t, "cpu", t10.CPU(), 842)
	eq(t, "null group", threadNamed(t, p, "Thread-11").Group, "<NULL>")
	eq(t, "zombie frames", len(threadNamed(t, p, "Thread-11").Frames), 0)
}

func TestParseMultiProcess(t *testing.T) {
	d := parseFile(t, "multi_process_art10.txt")
	eq(t, "processes", len(d.Processes), 3)
	var got []string
	for _, p := range d.Processes {
		got = append(got, p.CmdLine+"/"+p.VM.String())
	}
	eq(t, "cmdlines", got, []string{"com.example.player/art", "system_server/art", "/system/bin/surfaceflinger/native"})
	eq(t, "truncated", d.Truncated, false)

	sf := d.Processes[2]
	eq(t, "native pid", sf.PID, 612)
	eq(t, "native threads", len(sf.Threads), 2)
	main := sf.Threads[0]
	eq(t, "native main", [3]any{main.Name, main.SysTID, main.Unattached}, [3]any{"surfaceflinger", 612, true})
	eq(t, "native frames", len(main.Frames), 7)
	eq(t, "native symbol", main.Frames[2].Symbol(), "android::Looper::pollOnce(int, int*, int*, void**)+56")
	eq(t, "native build id", main.Frames[2].BuildID(), "8b1e4f2a03c7d9e5b6a1c0f3e2d4b5a6")
	eq(t, "native state", main.StateInfo().Class, ClassNative)
}

func TestParseTruncated(t *testing.T) {
	d := parseFile(t, "truncated_art10.txt")
	eq(t, "dump truncated", d.Truncated, true)
	eq(t, "size limited", d.SizeLimited, false)
	eq(t, "no thread-count warning for a cut block", d.Warnings, []Warning(nil))
	p := onlyProcess(t, d)
	eq(t, "process truncated", p.Truncated, true)
	eq(t, "threads", len(p.Threads), 3)
	last := p.Threads[2]
	eq(t, "last thread", last.Name, "CameraHandler")
	eq(t, "last truncated", last.Truncated, true)
	eq(t, "earlier thread complete", p.Threads[1].Truncated, false)
	eq(t, "frames so far", len(last.Frames), 5)
	eq(t, "cut line kept", last.Unknown, []Line{{43, "  at android.os.Looper.lo"}})
	eq(t, "kernel state D", last.KernelState, "D")
}

func TestTruncatedAtEveryLine(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "spec_example_art10.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	for n := 2; n < len(lines)-2; n++ {
		d := parseString(t, strings.Join(lines[:n], ""))
		if !d.Truncated || len(d.Processes) != 1 || !d.Processes[0].Truncated {
			t.Fatalf("cut after %d lines: truncated=%v processes=%d", n, d.Truncated, len(d.Processes))
		}
	}
	if d := parseString(t, string(data)); d.Truncated {
		t.Fatal("whole file reported truncated")
	}
}

func TestProcessEndedByNextStart(t *testing.T) {
	d := parseString(t, "----- pid 1 at 2020-01-01 00:00:00 -----\nCmd line: a\n\n----- pid 2 at 2020-01-01 00:00:01 -----\nCmd line: b\n----- end 2 -----\n")
	eq(t, "processes", len(d.Processes), 2)
	eq(t, "first truncated", d.Processes[0].Truncated, true)
	eq(t, "second complete", d.Processes[1].Truncated, false)
	eq(t, "dump truncated", d.Truncated, true)
}

func TestWarnings(t *testing.T) {
	d := parseString(t, "----- pid 7 at x -----\nDALVIK THREADS (3):\n\"main\" prio=5 tid=1 Runnable\n\n----- end 8 -----\n")
	eq(t, "warnings", d.Warnings, []Warning{
		{5, "end line names pid 8 inside the block of pid 7"},
		{5, "pid 7 declares 3 threads but lists 1"},
	})
	eq(t, "truncated", d.Truncated, false)
}

func TestLimits(t *testing.T) {
	long := strings.Repeat("x", 300)
	in := "----- pid 1 at d -----\n" + long + "\n\"main\" prio=5 tid=1 Runnable\n  at a.B.c(B.java:1)\n\n----- end 1 -----\n"
	d, err := Options{MaxLineLength: 100}.Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	p := onlyProcess(t, d)
	eq(t, "cut line", p.RuntimeLines, []Line{{2, strings.Repeat("x", 100)}})
	eq(t, "warning", d.Warnings, []Warning{{2, "line longer than 100 bytes; the rest was dropped"}})
	eq(t, "thread after the long line", p.Threads[0].Frames, []Frame{JavaFrame("a.B", "c", "B.java:1")})

	d, err = Options{MaxBytes: int64(strings.Index(in, "  at"))}.Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "size limited", d.SizeLimited, true)
	eq(t, "truncated", d.Truncated, true)
	p = onlyProcess(t, d)
	eq(t, "thread read before the limit", p.Threads[0].Name, "main")
	eq(t, "no frames past the limit", len(p.Threads[0].Frames), 0)

	// A file exactly MaxBytes long is not size limited.
	d, _ = Options{MaxBytes: int64(len(in))}.Parse(strings.NewReader(in))
	eq(t, "exact size", [2]bool{d.SizeLimited, d.Truncated}, [2]bool{false, false})
}

func TestWarningsBounded(t *testing.T) {
	d := parseString(t, strings.Repeat("----- pid 1 at x -----\n----- end 2 -----\n", 1500))
	eq(t, "processes", len(d.Processes), 1500)
	eq(t, "warnings", len(d.Warnings), maxWarnings+1)
	eq(t, "last warning", d.Warnings[maxWarnings].Message, "more warnings not listed")
}

func TestCRLFAndNoFinalNewline(t *testing.T) {
	in := "----- pid 3 at d -----\r\nDALVIK THREADS (1):\r\n\"main\" prio=5 tid=1 Runnable\r\n  at a.B.c(B.java:1)\r\n\r\n----- end 3 -----"
	d := parseString(t, in)
	p := onlyProcess(t, d)
	eq(t, "truncated", d.Truncated, false)
	eq(t, "frames", p.Threads[0].Frames, []Frame{JavaFrame("a.B", "c", "B.java:1")})
}

type failingReader struct{ data string }

func (r *failingReader) Read(b []byte) (int, error) {
	if r.data == "" {
		return 0, os.ErrDeadlineExceeded
	}
	n := copy(b, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadErrorKeepsWhatWasParsed(t *testing.T) {
	d, err := Parse(&failingReader{data: "----- pid 3 at d -----\nCmd line: app\n"})
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	eq(t, "cmdline", onlyProcess(t, d).CmdLine, "app")
}

func TestStateTable(t *testing.T) {
	// Every state name of spec §3.1 and §3.2 with its class from §3.3.
	for name, class := range map[string]string{
		"Terminated": ClassZombie, "Runnable": ClassRunning, "TimedWaiting": ClassTimedWait,
		"Sleeping": ClassSleeping, "Blocked": ClassMonitor, "Waiting": ClassWait,
		"WaitingForLockInflation": ClassMonitor, "WaitingForTaskProcessor": ClassVMWait,
		"WaitingForGcToComplete": ClassVMWait, "WaitingForCheckPointsToRun": ClassVMWait,
		"WaitingPerformingGc": ClassVMWait, "WaitingForDebuggerSend": ClassVMWait,
		"WaitingForDebuggerToAttach": ClassVMWait, "WaitingInMainDebuggerLoop": ClassVMWait,
		"WaitingForDebuggerSuspension": ClassVMWait, "WaitingForJniOnLoad": ClassVMWait,
		"WaitingForSignalCatcherOutput": ClassVMWait, "WaitingInMainSignalCatcherLoop": ClassVMWait,
		"WaitingForDeoptimization": ClassVMWait, "WaitingForMethodTracingStart": ClassVMWait,
		"WaitingForVisitObjects": ClassVMWait, "WaitingForGetObjectsAllocated": ClassVMWait,
		"WaitingWeakGcRootRead": ClassVMWait, "WaitingForGcThreadFlip": ClassVMWait,
		"NativeForAbort": ClassVMWait, "Starting": ClassStarting, "Native": ClassNative,
		"Suspended": ClassSuspended, "ObsoleteRunnable": ClassUnknown,
		"ZOMBIE": ClassZombie, "RUNNABLE": ClassRunning, "TIMED_WAIT": ClassTimedWait,
		"MONITOR": ClassMonitor, "WAIT": ClassWait, "INITIALIZING": ClassStarting,
		"STARTING": ClassStarting, "NATIVE": ClassNative, "VMWAIT": ClassVMWait,
		"SUSPENDED": ClassSuspended, "UNKNOWN": ClassUnknown,
	} {
		info := LookupState(name)
		if info.Class != class || info.VM == VMUnknown || info.Explanation == "" || ClassLabel(info.Class) == "" {
			t.Errorf("LookupState(%q) = %+v, want class %q", name, info, class)
		}
	}
	if len(States) != 40 {
		t.Errorf("state table has %d rows, spec lists 40", len(States))
	}
	info := LookupState("WaitingForSomethingNew")
	eq(t, "unknown state", [2]any{info.Class, info.VM}, [2]any{ClassUnknown, VMUnknown})
	eq(t, "case matters", LookupState("native").Class, ClassUnknown)
}
