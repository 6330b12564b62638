package threaddump

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"
)

// withoutPositions returns a copy of d with line numbers, truncation flags
// and declared counts cleared: what Format does not write.
func withoutPositions(d *Dump) *Dump {
	c := &Dump{Unknown: clearLines(d.Unknown)}
	for _, p := range d.Processes {
		cp := *p
		cp.Line, cp.Truncated, cp.DeclaredThreads = 0, false, 0
		cp.RuntimeLines = clearLines(p.RuntimeLines)
		cp.Threads = nil
		for _, t := range p.Threads {
			ct := *t
			ct.Line, ct.Truncated = 0, false
			ct.Unknown = clearLines(t.Unknown)
			cp.Threads = append(cp.Threads, &ct)
		}
		c.Processes = append(c.Processes, &cp)
	}
	return c
}

func clearLines(lines []Line) []Line {
	var out []Line
	for _, l := range lines {
		out = append(out, Line{Text: l.Text})
	}
	return out
}

// styleFor picks the release a test file was written as.
var styleFor = map[string]Style{
	"spec_example_art10.txt":     StyleART10,
	"multi_process_art10.txt":    StyleART10,
	"truncated_art10.txt":        StyleART10,
	"art7_idle_main.txt":         StyleART7,
	"art14_deadlock3.txt":        StyleART14,
	"dalvik_kitkat_deadlock.txt": StyleDalvik,
	"dalvik_old_nostate.txt":     StyleDalvik,
}

// Every test dump, written back in its release's style, parses to the same
// model; a second Format gives the same text.
func TestRoundTripTestDumps(t *testing.T) {
	for file, style := range styleFor {
		d := parseFile(t, file)
		var out bytes.Buffer
		if err := FormatDump(&out, d, style); err != nil {
			t.Fatal(err)
		}
		again, err := Parse(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if again.Truncated || len(again.Warnings) != 0 {
			t.Errorf("%s: written dump truncated=%v warnings=%v", file, again.Truncated, again.Warnings)
		}
		want, got := withoutPositions(d), withoutPositions(again)
		if !reflect.DeepEqual(got, want) {
			for i := range want.Processes {
				for j := range want.Processes[i].Threads {
					if j < len(got.Processes[i].Threads) && !reflect.DeepEqual(got.Processes[i].Threads[j], want.Processes[i].Threads[j]) {
						t.Errorf("%s: thread %d differs:\n got %#v\nwant %#v", file, j, got.Processes[i].Threads[j], want.Processes[i].Threads[j])
					}
				}
			}
			t.Fatalf("%s: model changed in a round trip\n%s", file, out.String())
		}
		var second bytes.Buffer
		FormatDump(&second, again, style)
		if second.String() != out.String() {
			t.Errorf("%s: second Format differs", file)
		}
	}
}

// sampleProcess builds a process that uses only the fields style prints.
func sampleProcess(style Style) *Process {
	ts := time.Date(2025, 3, 9, 17, 4, 55, 120000000, time.FixedZone("", -5*3600))
	p := &Process{
		PID: 3001, Date: FormatDate(ts, style), CmdLine: "com.example.sim", VM: style.VM(),
		RuntimeLines: []Line{{Text: "JNI: CheckJNI is off; globals=12 (plus 1 weak)"}},
	}
	if style != StyleDalvik {
		p.BuildFingerprint, p.ABI, p.BuildType = "sim/sim/sim:14/SIM1/1:userdebug/test-keys", "x86_64", "optimized"
	}
	native := "Native method"
	if style == StyleDalvik {
		native = "Native Method"
	}
	main := &Thread{
		Name: "main", Priority: 5, TID: 1, State: "Blocked", Group: "main", SuspendCount: 1,
		Obj: "0x71d85ae8", Self: "0x7b4f810c00", SysTID: 3001, Nice: -10, Cgroup: "default", Sched: "0/0",
		Handle: "0x7b50d96ed0", KernelState: "S", SchedStat: "412735108 20193640 389", Utime: 33, Stime: 8, Core: 2,
		Frames: []Frame{
			JavaFrame("com.example.sim.Store", "put", "Store.java:40"),
			JavaFrame("com.example.sim.Main", "run", "Main.java:12"),
			JavaFrame("java.lang.reflect.Method", "invoke", native),
		},
		Locks: []Lock{
			{Kind: LockWaitingToLock, Object: "0x0b5e7a21", Type: "com.example.sim.Store", HeldBy: 9, Frame: 0},
			{Kind: LockHeld, Object: "0x03c1f8e6", Type: "com.example.sim.Index", Frame: 1},
		},
	}
	worker := &Thread{
		Name: `Worker "A" #1`, Daemon: true, Priority: 4, TID: 9, State: "Blocked", Group: "main",
		Obj: "0x12c43f30", Self: "0x7acaa2b000", SysTID: 3017, Cgroup: "default", Sched: "0/0", Handle: "0x7aa94c0d50",
		KernelState: "S", SchedStat: "4710402 1984271 11", Utime: 120, Stime: 7, Core: 1,
		Frames: []Frame{
			NativeFrame(0, "000000000004e2cc", "/system/lib64/libc.so (syscall+28)"),
			JavaFrame("com.example.sim.Index", "update", "Index.java:77"),
			JavaFrame("com.example.sim.Store", "flush", "Store.java:90"),
		},
		Locks: []Lock{
			{Kind: LockWaitingToLock, Object: "0x03c1f8e6", Type: "com.example.sim.Index", HeldBy: 1, Frame: 1},
			{Kind: LockHeld, Object: "0x0b5e7a21", Type: "com.example.sim.Store", Frame: 2},
		},
		Unknown: []Line{{Text: "  something only a future release prints"}},
	}
	unattached := &Thread{
		Name: "RenderThread", Priority: 0, Unattached: true, SysTID: 3020, Nice: -10, Cgroup: "default",
		KernelState: "S", SchedStat: "1812503 431202 12", Core: 2,
		Frames: []Frame{NativeFrame(0, "00000000000d1ea8", "/system/lib64/libc.so (__epoll_pwait+8)")},
	}
	switch style {
	case StyleDalvik:
		main.State, worker.State = "MONITOR", "MONITOR"
		main.Locks[0].HeldByName, worker.Locks[0].HeldByName = worker.Name, main.Name
		main.Locks = main.Locks[:1] // Dalvik prints no "- locked" lines
		worker.Locks = worker.Locks[:1]
		main.Handle, worker.Handle = "1074573652", "1564167952"
		unattached.Sched = "0/0"
		unattached.Nice = 0
	case StyleART7:
		main.DebugSuspendCount = 1
	case StyleART10:
		main.Flags, worker.Flags = 1, 1
	case StyleART14:
		main.UserCodeSuspendCount, main.Flags = 1, 1
	}
	if style != StyleDalvik {
		for _, th := range []*Thread{main, worker} {
			th.HZ, th.Stack, th.StackSize = 100, "0x7fe6b14000-0x7fe6b16000", "8192KB"
		}
		unattached.HZ = 100
		worker.HeldMutexes = []string{`"mutator lock"(shared held)`}
		unattached.Priority = 7
	}
	p.Threads = []*Thread{main, worker, unattached}
	return p
}

func TestFormatRoundTripPerStyle(t *testing.T) {
	for _, style := range []Style{StyleDalvik, StyleART7, StyleART10, StyleART14} {
		p := sampleProcess(style)
		var out bytes.Buffer
		if err := Format(&out, p, style); err != nil {
			t.Fatal(err)
		}
		d, err := Parse(&out)
		if err != nil {
			t.Fatal(err)
		}
		got := withoutPositions(d)
		want := withoutPositions(&Dump{Processes: []*Process{p}})
		if !reflect.DeepEqual(got, want) {
			for i, th := range want.Processes[0].Threads {
				if i < len(got.Processes[0].Threads) {
					eq(t, style.String()+" thread", got.Processes[0].Threads[i], th)
				}
			}
			t.Fatalf("%s: round trip changed the model", style)
		}
		a := Analyze(d.Processes[0])
		eq(t, style.String()+" deadlock", chains(d.Processes[0], a), []string{"1:0x0b5e7a21->9 9:0x03c1f8e6->1"})
	}
}

// The lines that differ between releases, exactly as spec §1–§2 show them.
func TestFormatLayoutPerStyle(t *testing.T) {
	for _, tc := range []struct {
		style     Style
		want, not []string
	}{
		{StyleDalvik, []string{
			"\n----- pid 3001 at 2025-03-09 17:04:55 -----\nCmd line: com.example.sim\n\nJNI: CheckJNI is off; globals=12 (plus 1 weak)\n\nDALVIK THREADS:\n\n\"main\" prio=5 tid=1 MONITOR\n",
			"  | group=\"main\" sCount=1 dsCount=0 obj=0x71d85ae8 self=0x7b4f810c00\n",
			"  | sysTid=3001 nice=-10 sched=0/0 cgrp=default handle=1074573652\n",
			"  | state=S schedstat=( 412735108 20193640 389 ) utm=33 stm=8 core=2\n",
			"  at com.example.sim.Store.put(Store.java:40)\n  - waiting to lock <0x0b5e7a21> (a com.example.sim.Store) held by tid=9 (Worker \"A\" #1)\n",
			"  at java.lang.reflect.Method.invoke(Native Method)\n",
			"\"Worker \"A\" #1\" daemon prio=4 tid=9 MONITOR\n",
			"  #00  pc 000000000004e2cc  /system/lib64/libc.so (syscall+28)\n",
			"NATIVE THREADS:\n\"RenderThread\" sysTid=3020 nice=0 sched=0/0 cgrp=default\n  | state=S schedstat=( 1812503 431202 12 ) utm=0 stm=0 core=2\n",
			"\n----- end 3001 -----\n",
		}, []string{"HZ=", "held mutexes", "Build fingerprint"}},
		{StyleART7, []string{
			"Build fingerprint: 'sim/sim/sim:14/SIM1/1:userdebug/test-keys'\nABI: 'x86_64'\nBuild type: optimized\nJNI: CheckJNI is off; globals=12 (plus 1 weak)\nDALVIK THREADS (2):\n",
			"  | group=\"main\" sCount=1 dsCount=1 obj=0x71d85ae8 self=0x7b4f810c00\n",
			"  | sysTid=3001 nice=-10 cgrp=default sched=0/0 handle=0x7b50d96ed0\n",
			"  | state=S schedstat=( 412735108 20193640 389 ) utm=33 stm=8 core=2 HZ=100\n  | stack=0x7fe6b14000-0x7fe6b16000 stackSize=8192KB\n  | held mutexes=\n",
			"  - waiting to lock <0x0b5e7a21> (a com.example.sim.Store) held by thread 9\n  at com.example.sim.Main.run(Main.java:12)\n  - locked <0x03c1f8e6> (a com.example.sim.Index)\n",
			"  native: #00 pc 000000000004e2cc  /system/lib64/libc.so (syscall+28)\n",
			"  | held mutexes= \"mutator lock\"(shared held)\n",
			"\"RenderThread\" prio=7 (not attached)\n  | sysTid=3020 nice=-10 cgrp=default\n  | state=S schedstat=( 1812503 431202 12 ) utm=0 stm=0 core=2 HZ=100\n",
		}, []string{"flags=", "ucsCount", "tid=9 (", "NATIVE THREADS"}},
		{StyleART10, []string{
			"  | group=\"main\" sCount=1 dsCount=0 flags=1 obj=0x71d85ae8 self=0x7b4f810c00\n",
			"  something only a future release prints\n\n",
		}, []string{"ucsCount"}},
		{StyleART14, []string{
			"----- pid 3001 at 2025-03-09 17:04:55.120000000-0500 -----\n",
			"Build type: optimized\nDALVIK THREADS (2):\n",
			"  | group=\"main\" sCount=1 ucsCount=1 flags=1 obj=0x71d85ae8 self=0x7b4f810c00\n",
			"  native: #00 pc 00000000000d1ea8  /system/lib64/libc.so (__epoll_pwait+8)\n\nJNI: CheckJNI is off; globals=12 (plus 1 weak)\n\n----- end 3001 -----\n",
		}, []string{"dsCount"}},
	} {
		var out bytes.Buffer
		if err := Format(&out, sampleProcess(tc.style), tc.style); err != nil {
			t.Fatal(err)
		}
		text := out.String()
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s output lacks %q:\n%s", tc.style, w, text)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(text, n) {
				t.Errorf("%s output has %q", tc.style, n)
			}
		}
	}
}

func TestFormatNativeProcess(t *testing.T) {
	d := parseFile(t, "multi_process_art10.txt")
	var out bytes.Buffer
	if err := Format(&out, d.Processes[2], StyleART14); err != nil {
		t.Fatal(err)
	}
	want := "\n----- pid 612 at 2019-11-05 21:14:04 -----\nCmd line: /system/bin/surfaceflinger\nABI: 'arm64'\n\n\"surfaceflinger\" sysTid=612\n    #00 pc 00000000000d0f48  /apex/com.android.runtime/lib64/bionic/libc.so (__epoll_pwait+8) (BuildId: 2ff0ae2e9fb5d2f3e2e1d2ff2e0d29ad)\n"
	if !strings.HasPrefix(out.String(), want) {
		t.Errorf("native block starts\n%q\nwant\n%q", out.String()[:min(len(want), out.Len())], want)
	}
}

func TestStyleNamesAndDates(t *testing.T) {
	for _, s := range []Style{StyleDalvik, StyleART7, StyleART10, StyleART14} {
		back, ok := ParseStyle(s.String())
		eq(t, "style "+s.String(), [2]any{back, ok}, [2]any{s, true})
	}
	if _, ok := ParseStyle("art99"); ok {
		t.Error("unknown style accepted")
	}
	ts := time.Date(2024, 5, 14, 10, 48, 12, 734561298, time.FixedZone("", 2*3600))
	eq(t, "art14 date", FormatDate(ts, StyleART14), "2024-05-14 10:48:12.734561298+0200")
	eq(t, "art10 date", FormatDate(ts, StyleART10), "2024-05-14 10:48:12")
	p := &Process{Date: FormatDate(ts, StyleART14)}
	got, ok := p.Time()
	eq(t, "parsed back", [2]any{got.Equal(ts), ok}, [2]any{true, true})
	p.Date = "yesterday"
	_, ok = p.Time()
	eq(t, "bad date", ok, false)
}
