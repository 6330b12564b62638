package threaddump_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ddmtui/ddmtui/threaddump"
)

// A simulated VM answers `kill -3` by building a Process from its threads
// and writing it with Format.
func ExampleFormat() {
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	p := &threaddump.Process{
		PID: 4321, Date: threaddump.FormatDate(at, threaddump.StyleART10),
		CmdLine: "com.example.sim", ABI: "x86_64", VM: threaddump.VMART,
		Threads: []*threaddump.Thread{{
			Name: "main", Priority: 5, TID: 1, State: "Sleeping", Group: "main", SuspendCount: 1,
			Flags: 1, Obj: "0x12c00000", Self: "0x7f0000001000", SysTID: 4321, Cgroup: "default",
			Sched: "0/0", Handle: "0x7f0000002000", KernelState: "S", SchedStat: "1000 200 3",
			Utime: 4, Stime: 1, HZ: 100, Stack: "0x7ff0000000-0x7ff0002000", StackSize: "8192KB",
			Frames: []threaddump.Frame{
				threaddump.JavaFrame("java.lang.Thread", "sleep", "Native method"),
				threaddump.JavaFrame("com.example.sim.Main", "main", "Main.java:7"),
			},
			Locks: []threaddump.Lock{{Kind: threaddump.LockSleepingOn, Object: "0x0a1b2c3d", Type: "java.lang.Object", Frame: 0}},
		}},
	}
	var out strings.Builder
	if err := threaddump.Format(&out, p, threaddump.StyleART10); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	fmt.Print(out.String())

	d, _ := threaddump.Parse(strings.NewReader(out.String()))
	fmt.Println(d.Processes[0].Threads[0].Waiting())
	// Output:
	// ----- pid 4321 at 2025-01-02 03:04:05 -----
	// Cmd line: com.example.sim
	// ABI: 'x86_64'
	// DALVIK THREADS (1):
	// "main" prio=5 tid=1 Sleeping
	//   | group="main" sCount=1 dsCount=0 flags=1 obj=0x12c00000 self=0x7f0000001000
	//   | sysTid=4321 nice=0 cgrp=default sched=0/0 handle=0x7f0000002000
	//   | state=S schedstat=( 1000 200 3 ) utm=4 stm=1 core=0 HZ=100
	//   | stack=0x7ff0000000-0x7ff0002000 stackSize=8192KB
	//   | held mutexes=
	//   at java.lang.Thread.sleep(Native method)
	//   - sleeping on <0x0a1b2c3d> (a java.lang.Object)
	//   at com.example.sim.Main.main(Main.java:7)
	//
	// ----- end 4321 -----
	// - sleeping on <0x0a1b2c3d> (a java.lang.Object)
}
