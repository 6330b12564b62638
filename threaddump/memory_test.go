package threaddump

import (
	"bytes"
	"fmt"
	"io"
	"runtime"
	"testing"
)

// deepDump is a dump of n threads with 20 native and 40 Java frames each,
// the frames repeating across threads as a real dump's do.
func deepDump(n int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "\n----- pid 77 at 2019-06-03 14:07:12 -----\nCmd line: com.example.deep\nDALVIK THREADS (%d):\n", n)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "\"w-%d\" prio=5 tid=%d Native\n  | group=\"main\" sCount=1 dsCount=0 flags=1 obj=0x71d85ae8 self=0x7b4f810c00\n"+
			"  | sysTid=%d nice=0 cgrp=default sched=0/0 handle=0x7b50d96ed0\n"+
			"  | state=S schedstat=( 412735108 20193640 389 ) utm=1 stm=2 core=2 HZ=100\n"+
			"  | stack=0x7fe6b14000-0x7fe6b16000 stackSize=8192KB\n  | held mutexes=\n", i, i, 10000+i)
		for f := range 20 {
			fmt.Fprintf(&b, "  native: #%02d pc 000000000001f0ec  /system/lib64/libc.so (syscall+28)\n", f)
		}
		for f := range 40 {
			fmt.Fprintf(&b, "  at a.b%d.C.m(C.java:%d)\n", f, f)
		}
		b.WriteString("\n")
	}
	b.WriteString("----- end 77 -----\n")
	return b.Bytes()
}

func heapAlloc() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestDumpMemoryProportional: issue 30 #17. `anr --json` on a 53 MB dump
// took 2.85 GB: the model kept every line alive through its fields and
// held a report of every thread (several times the frames) while the JSON
// was written, with a new encoder per element. Now the parsed dump retains
// under 3 times the file, the streaming report adds almost nothing, and
// writing the JSON allocates a few times the file.
func TestDumpMemoryProportional(t *testing.T) {
	in := deepDump(2000) // 5.5 MB
	size := uint64(len(in))
	base := heapAlloc()
	d, err := Parse(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	parsed := heapAlloc() - base
	r := NewStreamingReport(d)
	reported := heapAlloc() - base
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := r.WriteJSON(io.Discard); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	written := after.TotalAlloc - before.TotalAlloc
	t.Logf("file %d B: parsed dump %.2fx, with the report %.2fx, JSON allocations %.2fx",
		size, float64(parsed)/float64(size), float64(reported)/float64(size), float64(written)/float64(size))
	if parsed > 3*size {
		t.Errorf("the parsed dump retains %d bytes, %.2f times the file (bound 3)", parsed, float64(parsed)/float64(size))
	}
	if reported > parsed+size/4 {
		t.Errorf("the streaming report retains %d bytes beside the dump's %d", reported-parsed, parsed)
	}
	if written > 12*size && !raceOn {
		t.Errorf("writing the JSON allocated %d bytes, %.1f times the file (bound 12)", written, float64(written)/float64(size))
	}
	runtime.KeepAlive(in) // counted in the baseline
	runtime.KeepAlive(d)
	runtime.KeepAlive(r)
}
