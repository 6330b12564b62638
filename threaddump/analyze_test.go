package threaddump

import (
	"fmt"
	"strings"
	"testing"
)

// chain renders a deadlock as "tid:object->owner" steps in wait order.
func chain(p *Process, d Deadlock) string {
	var parts []string
	for _, e := range d {
		parts = append(parts, fmt.Sprintf("%d:%s->%d", p.Threads[e.Waiter].TID, e.Lock.Object, e.HeldBy))
	}
	return strings.Join(parts, " ")
}

func chains(p *Process, a *Analysis) []string {
	var out []string
	for _, d := range a.Deadlocks {
		out = append(out, chain(p, d))
	}
	return out
}

func TestDeadlocksInTestDumps(t *testing.T) {
	for _, tc := range []struct {
		file  string
		pid   int
		want  []string
		edges int
	}{
		// Spec §5: edges 1 → 12 (0x0b5e7a21) and 12 → 1 (0x03c1f8e6).
		{"spec_example_art10.txt", 4242, []string{"1:0x0b5e7a21->12 12:0x03c1f8e6->1"}, 2},
		// Dalvik's "held by tid=N (name)".
		{"dalvik_kitkat_deadlock.txt", 1733, []string{"1:0x41d2f6a0->11 11:0x41d2f5e8->1"}, 2},
		// Three threads listed as 21, 17, 14; the chain starts at tid 14, and
		// 14's owner comes from DbWriter's "- locked" line. main (1) and
		// Inflater (25) wait on cycle members without being in the cycle.
		{"art14_deadlock3.txt", 9146, []string{"14:0x04f1b3a7->21 21:0x0c92e5d0->17 17:0x0a57f1e9->14"}, 5},
		// Android 7's HeapTaskDaemon "waiting to lock an unknown object": an
		// edge with no owner, no deadlock.
		{"art7_idle_main.txt", 2817, nil, 1},
		{"multi_process_art10.txt", 5120, nil, 1},
		{"multi_process_art10.txt", 1432, nil, 1},
		{"multi_process_art10.txt", 612, nil, 0},
		{"truncated_art10.txt", 7731, nil, 0},
		{"dalvik_old_nostate.txt", 20714, nil, 0},
	} {
		d := parseFile(t, tc.file)
		for _, p := range d.Processes {
			if p.PID != tc.pid {
				continue
			}
			a := Analyze(p)
			eq(t, tc.file+" deadlocks", chains(p, a), tc.want)
			eq(t, tc.file+" edges", len(a.Edges), tc.edges)
		}
	}
}

func TestLockGraphEdges(t *testing.T) {
	p := onlyProcess(t, parseFile(t, "art14_deadlock3.txt"))
	a := Analyze(p)
	var got []string
	for _, e := range a.Edges {
		got = append(got, fmt.Sprintf("%s->%d(owner %d, from locked %v)", p.Threads[e.Waiter].Name, e.HeldBy, e.Owner, e.OwnerFromLocked))
	}
	eq(t, "edges", got, []string{
		"main->21(owner 4, from locked false)",
		"DbWriter->17(owner 5, from locked false)",
		"AuditLog->14(owner 6, from locked false)",
		"SyncWorker->21(owner 4, from locked true)",
		"Inflater->17(owner 5, from locked false)",
	})

	// Object identities are compared within one process only: the app's
	// 0x07c3e2a1 is not system_server's lock of the same number.
	d := parseFile(t, "multi_process_art10.txt")
	app := Analyze(d.Processes[0])
	eq(t, "cross-process owner", [2]int{app.Edges[0].Owner, app.Edges[0].HeldBy}, [2]int{-1, 0})
	ss := Analyze(d.Processes[1])
	eq(t, "system_server contention", [3]any{ss.Edges[0].HeldBy, d.Processes[1].Threads[ss.Edges[0].Owner].Name, len(ss.Deadlocks)}, [3]any{37, "android.display", 0})
}

// thread builds a blocked ART thread waiting for object held by owner (0:
// not named), holding the objects in held.
func blockedThread(tid int, object string, owner int, held ...string) *Thread {
	t := &Thread{Name: fmt.Sprintf("T%d", tid), TID: tid, State: "Blocked", Priority: 5}
	t.Frames = []Frame{JavaFrame("a.B", "c", "B.java:1")}
	t.Locks = []Lock{{Kind: LockWaitingToLock, Object: object, Type: "java.lang.Object", HeldBy: owner}}
	for _, h := range held {
		t.Locks = append(t.Locks, Lock{Kind: LockHeld, Object: h, Type: "java.lang.Object"})
	}
	return t
}

func TestFindDeadlocksSynthetic(t *testing.T) {
	for _, tc := range []struct {
		name    string
		threads []*Thread
		want    []string
	}{
		{"two separate cycles, ordered by lowest tid", []*Thread{
			blockedThread(40, "0xd", 30, "0xc"),
			blockedThread(30, "0xc", 40, "0xd"),
			blockedThread(9, "0xa", 5, "0xb"),
			blockedThread(5, "0xb", 9, "0xa"),
		}, []string{"5:0xb->9 9:0xa->5", "30:0xc->40 40:0xd->30"}},
		{"four-thread cycle entered from a tail", []*Thread{
			blockedThread(2, "0x7", 7),
			blockedThread(7, "0x8", 8, "0x7"),
			blockedThread(8, "0x9", 6, "0x8"),
			blockedThread(6, "0xa", 11, "0x9"),
			blockedThread(11, "0x6", 7, "0xa"),
		}, []string{"6:0xa->11 11:0x6->7 7:0x8->8 8:0x9->6"}},
		{"waiting for itself is not a deadlock", []*Thread{blockedThread(3, "0x1", 3, "0x1")}, nil},
		{"owner missing from the dump", []*Thread{blockedThread(3, "0x1", 99)}, nil},
		{"owner found only through locked lines", []*Thread{
			blockedThread(4, "0x1", 0, "0x2"),
			blockedThread(8, "0x2", 0, "0x1"),
		}, []string{"4:0x1->8 8:0x2->4"}},
		{"a chain without a cycle", []*Thread{
			blockedThread(1, "0x1", 2),
			blockedThread(2, "0x2", 3, "0x1"),
			{Name: "T3", TID: 3, State: "Runnable", Locks: []Lock{{Kind: LockHeld, Object: "0x2"}}},
		}, nil},
	} {
		p := &Process{PID: 1, VM: VMART, Threads: tc.threads}
		a := Analyze(p)
		eq(t, tc.name, chains(p, a), tc.want)
	}
}

// Spec §4 draws edges for Blocked/MONITOR threads only: a waiting-to-lock
// line on a thread in another state does not count.
func TestEdgesOnlyFromBlockedThreads(t *testing.T) {
	a := blockedThread(1, "0x1", 2, "0x2")
	b := blockedThread(2, "0x2", 1, "0x1")
	b.State = "Runnable"
	p := &Process{Threads: []*Thread{a, b}}
	an := Analyze(p)
	eq(t, "edges", len(an.Edges), 1)
	eq(t, "deadlocks", len(an.Deadlocks), 0)
	b.State = "MONITOR"
	eq(t, "dalvik state", chains(p, Analyze(p)), []string{"1:0x1->2 2:0x2->1"})
}

func TestStateGroups(t *testing.T) {
	p := onlyProcess(t, parseFile(t, "art7_idle_main.txt"))
	var got []string
	for _, g := range Analyze(p).States {
		var names []string
		for _, i := range g.Threads {
			names = append(names, p.Threads[i].Name)
		}
		var states []string
		for _, s := range g.States {
			states = append(states, fmt.Sprintf("%s×%d", s.Name, s.Count))
		}
		got = append(got, g.Class+" ["+strings.Join(states, ",")+"] "+strings.Join(names, ","))
	}
	eq(t, "groups", got, []string{
		"monitor [Blocked×1] HeapTaskDaemon",
		"running [Runnable×1] Signal Catcher",
		"native [Native×2,(not attached)×1] main,Binder:2817_2,hwuiTask1",
		"wait [Waiting×1] FinalizerDaemon",
		"timed-wait [TimedWaiting×1] NoteIndexer",
		"sleeping [Sleeping×1] FinalizerWatchdogDaemon",
		"vmwait [WaitingInMainDebuggerLoop×1] JDWP",
	})
}

func TestMainThread(t *testing.T) {
	for _, tc := range []struct {
		file, summary string
		pid           int
		frame         string
		idle, dead    bool
		owner         string
	}{
		{
			file: "spec_example_art10.txt", pid: 4242, frame: "com.example.deadlock.Bank.transfer(Bank.java:31)", dead: true, owner: "Transfer-Thread",
			summary: `"main" (tid 1) is Blocked: waiting to enter a synchronized block or method whose monitor another thread holds; at com.example.deadlock.Bank.transfer(Bank.java:31), waiting to lock <0x0b5e7a21> (a com.example.deadlock.Account) held by "Transfer-Thread" (tid 12); it is part of a deadlock`,
		},
		{
			file: "art14_deadlock3.txt", pid: 9146, frame: "com.example.ledger.Ledger.post(Ledger.java:88)", owner: "DbWriter",
			summary: `"main" (tid 1) is Blocked: waiting to enter a synchronized block or method whose monitor another thread holds; at com.example.ledger.Ledger.post(Ledger.java:88), waiting to lock <0x04f1b3a7> (a com.example.ledger.Ledger) held by "DbWriter" (tid 21)`,
		},
		{
			file: "art7_idle_main.txt", pid: 2817, frame: "android.os.MessageQueue.nativePollOnce(Native method)", idle: true,
			summary: `"main" (tid 1) is idle in its message loop, waiting for input; at android.os.MessageQueue.nativePollOnce(Native method)`,
		},
		{
			file: "multi_process_art10.txt", pid: 5120, frame: "java.lang.Thread.sleep(Native method)",
			summary: `"main" (tid 1) is Sleeping: in Thread.sleep(); at java.lang.Thread.sleep(Native method), sleeping on <0x0b3f4c12> (a java.lang.Object)`,
		},
		{
			file: "multi_process_art10.txt", pid: 612, frame: "#00 pc 00000000000d0f48  /apex/com.android.runtime/lib64/bionic/libc.so (__epoll_pwait+8) (BuildId: 2ff0ae2e9fb5d2f3e2e1d2ff2e0d29ad)",
			summary: `"surfaceflinger" is (not attached): native thread not attached to the VM: no Java stack; at #00 pc 00000000000d0f48  /apex/com.android.runtime/lib64/bionic/libc.so (__epoll_pwait+8) (BuildId: 2ff0ae2e9fb5d2f3e2e1d2ff2e0d29ad)`,
		},
		{
			file: "dalvik_old_nostate.txt", pid: 20714, frame: "java.lang.Object.wait(Native Method)",
			summary: `"main" (tid 1) is WAIT: in Object.wait() with no timeout, waiting for another thread's notify; at java.lang.Object.wait(Native Method), waiting on <0x40a2d4b8> (a java.lang.Thread)`,
		},
	} {
		for _, p := range parseFile(t, tc.file).Processes {
			if p.PID != tc.pid {
				continue
			}
			m := Analyze(p).Main
			if m == nil {
				t.Fatalf("%s: no main thread", tc.file)
			}
			th := p.Threads[m.Thread]
			eq(t, tc.file+" frame", th.Frames[m.Frame].String(), tc.frame)
			eq(t, tc.file+" idle", m.Idle, tc.idle)
			eq(t, tc.file+" deadlocked", m.Deadlocked, tc.dead)
			owner := ""
			if m.Owner >= 0 {
				owner = p.Threads[m.Owner].Name
			}
			eq(t, tc.file+" owner", owner, tc.owner)
			eq(t, tc.file+" summary", m.Summary, tc.summary)
		}
	}
	if m := Analyze(&Process{Threads: []*Thread{{Name: "worker", TID: 2}}}).Main; m != nil {
		t.Errorf("main found in a process without one: %+v", m)
	}
}

func TestCPURanking(t *testing.T) {
	p := onlyProcess(t, parseFile(t, "art14_deadlock3.txt"))
	var got []string
	for _, u := range Analyze(p).CPU[:5] {
		got = append(got, fmt.Sprintf("%s %d %.2fs", p.Threads[u.Thread].Name, u.Jiffies, u.Seconds))
	}
	eq(t, "top five", got, []string{
		`pool "worker" #2 ✓ 481 4.81s`, "main 183 1.83s", "DbWriter 71 0.71s",
		"SyncWorker 22 0.22s", "Jit thread pool worker thread 0 21 0.21s",
	})
	// Dalvik prints no HZ: jiffies only; threads without CPU time are left out.
	p = onlyProcess(t, parseFile(t, "dalvik_old_nostate.txt"))
	cpu := Analyze(p).CPU
	eq(t, "dalvik ranking", len(cpu), 2)
	eq(t, "dalvik top", [3]any{p.Threads[cpu[0].Thread].Name, cpu[0].Jiffies, cpu[0].Seconds}, [3]any{"Thread-10", 842, 0.0})
}
