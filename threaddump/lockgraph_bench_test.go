package threaddump

import (
	"bytes"
	"fmt"
	"testing"
)

// lockCycleDump is an ART dump of n threads in one deadlock cycle: thread i
// holds <i> and waits for <i+1>, held by the next thread. With named set,
// waiting lines say "held by thread N"; without, the owner is found through
// the `- locked` lines (the slower path of spec §4).
func lockCycleDump(n int, named bool) []byte {
	var b bytes.Buffer
	b.WriteString("----- pid 4242 at 2024-05-14 10:48:12.734561298+0200 -----\nCmd line: com.example.locks\n\n")
	fmt.Fprintf(&b, "DALVIK THREADS (%d):\n", n)
	for i := 1; i <= n; i++ {
		next := i%n + 1
		fmt.Fprintf(&b, "\"worker-%d\" prio=5 tid=%d Blocked\n", i, i)
		fmt.Fprintf(&b, "  | group=\"main\" sCount=1 ucsCount=0 flags=1 obj=0x12c%05x self=0xb400%08x\n", i, i)
		fmt.Fprintf(&b, "  | sysTid=%d nice=0 cgrp=top-app sched=0/0 handle=0x7d%08x\n", 10000+i, i)
		b.WriteString("  | state=S schedstat=( 0 0 0 ) utm=1 stm=0 core=0 HZ=100\n")
		b.WriteString("  at com.example.Locks.take(Locks.java:10)\n")
		if named {
			fmt.Fprintf(&b, "  - waiting to lock <0x%08x> (a java.lang.Object) held by thread %d\n", next, next)
		} else {
			fmt.Fprintf(&b, "  - waiting to lock <0x%08x> (a java.lang.Object)\n", next)
		}
		b.WriteString("  at com.example.Locks.run(Locks.java:20)\n")
		fmt.Fprintf(&b, "  - locked <0x%08x> (a java.lang.Object)\n\n", i)
	}
	b.WriteString("----- end 4242 -----\n")
	return b.Bytes()
}

// BenchmarkAnalyzeLockCycle is issue 16 item 6: Analyze of a dump with n
// threads in one deadlock cycle must grow linearly with n (ns/op and B/op
// per thread roughly constant across sizes). Parse is outside the timer.
func BenchmarkAnalyzeLockCycle(b *testing.B) {
	for _, named := range []bool{true, false} {
		for _, n := range []int{1000, 10000, 100000} {
			name := fmt.Sprintf("threads=%d/heldby=%v", n, named)
			b.Run(name, func(b *testing.B) {
				d, err := Parse(bytes.NewReader(lockCycleDump(n, named)))
				if err != nil {
					b.Fatal(err)
				}
				p := d.Processes[0]
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					a := Analyze(p)
					if len(a.Deadlocks) != 1 || len(a.Deadlocks[0]) != n {
						b.Fatalf("%d deadlocks", len(a.Deadlocks))
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/thread")
			})
		}
	}
}

// BenchmarkAnrLockCycle measures what `ddmtui anr --json` does with such a
// dump: parse, analyse and build the report, per input byte.
func BenchmarkAnrLockCycle(b *testing.B) {
	for _, n := range []int{10000, 100000} {
		in := lockCycleDump(n, false)
		b.Run(fmt.Sprintf("threads=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for i := 0; i < b.N; i++ {
				d, err := Parse(bytes.NewReader(in))
				if err != nil {
					b.Fatal(err)
				}
				if r := NewReport(d); len(r.Processes) != 1 {
					b.Fatal("no process")
				}
			}
		})
	}
}
