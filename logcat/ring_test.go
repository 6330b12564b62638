package logcat

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/ddmtui/ddmtui/internal/budget"
)

func TestRingBoundsAndCursor(t *testing.T) {
	r := NewRing(4)
	if r.Cap() != 4 || NewRing(0).Cap() != DefaultRingSize {
		t.Fatal("capacity")
	}
	changed := r.Changed()
	for i := 1; i <= 3; i++ {
		if seq := r.Append(Entry{Message: fmt.Sprint(i)}); seq != uint64(i) {
			t.Fatalf("seq %d, want %d", seq, i)
		}
	}
	select {
	case <-changed:
	default:
		t.Fatal("Changed not closed by Append")
	}
	got, next, missed := r.Read(nil, 1, 0)
	if len(got) != 3 || next != 4 || missed != 0 || got[0].Message != "1" || got[2].Seq != 3 {
		t.Fatalf("read %v next %d missed %d", got, next, missed)
	}
	for i := 4; i <= 10; i++ {
		r.Append(Entry{Message: fmt.Sprint(i)})
	}
	if first, nxt := r.Bounds(); first != 7 || nxt != 11 || r.Len() != 4 {
		t.Fatalf("bounds %d %d len %d", first, nxt, r.Len())
	}
	// A reader at 4 missed 4, 5 and 6.
	got, next, missed = r.Read(nil, 4, 2)
	if missed != 3 || len(got) != 2 || got[0].Message != "7" || got[1].Message != "8" || next != 9 {
		t.Fatalf("read %v next %d missed %d", got, next, missed)
	}
	got, next, _ = r.Read(nil, next, 0)
	if len(got) != 2 || got[1].Message != "10" || next != 11 {
		t.Fatalf("rest %v next %d", got, next)
	}
	if got, _, _ := r.Read(nil, next, 0); len(got) != 0 {
		t.Fatalf("read past the end: %v", got)
	}
}

func TestRingClassifies(t *testing.T) {
	r := NewRing(10)
	r.Append(Entry{PID: 5, Tag: "AndroidRuntime", Priority: Error, Message: "FATAL EXCEPTION: main"})
	got, _, _ := r.Read(nil, 1, 0)
	if !got[0].Has(FlagCrash | FlagCrashStart) {
		t.Fatalf("flags %b", got[0].Flags)
	}
}

func TestClassifier(t *testing.T) {
	var c Classifier
	log := []struct {
		e    Entry
		want Flags
	}{
		{Entry{PID: 10, Tag: "MyApp", Priority: Info, Message: "hello"}, 0},
		{Entry{PID: 10, Tag: "AndroidRuntime", Priority: Error, Message: "FATAL EXCEPTION: main"}, FlagCrash | FlagCrashStart},
		{Entry{PID: 11, Tag: "Other", Priority: Info, Message: "interleaved"}, 0},
		{Entry{PID: 10, Tag: "AndroidRuntime", Priority: Error, Message: "Process: com.x, PID: 10"}, FlagCrash},
		{Entry{PID: 10, Tag: "AndroidRuntime", Priority: Error, Message: "\tat com.x.Main.run(Main.java:1)"}, FlagCrash | FlagStackTrace},
		{Entry{PID: 10, Tag: "Process", Priority: Info, Message: "Sending signal. PID: 10 SIG: 9"}, 0},
		{Entry{PID: 10, Tag: "AndroidRuntime", Priority: Error, Message: "after the crash ended"}, 0},
		{Entry{PID: 1400, Tag: "ActivityManager", Priority: Error, Message: "ANR in com.example.mail"}, FlagCrash | FlagCrashStart},
		{Entry{PID: 1400, Tag: "ActivityManager", Priority: Error, Message: "Reason: Input dispatching timed out"}, FlagCrash},
		{Entry{PID: 1400, Tag: "ActivityManager", Priority: Error, Message: "Load: 2.41 / 1.97 / 1.03"}, FlagCrash},
		{Entry{PID: 1400, Tag: "ActivityManager", Priority: Info, Message: "Start proc"}, 0}, // another level ends it
		{Entry{PID: 1400, Tag: "ActivityManager", Priority: Error, Message: "after the report"}, 0},
		{Entry{PID: 900, Tag: "DEBUG", Priority: Fatal, Message: nativeBanner}, FlagCrash | FlagCrashStart},
		{Entry{PID: 900, Tag: "DEBUG", Priority: Fatal, Message: "      #00 pc 000000000004e6a8  /system/lib64/libc.so (abort+164)"}, FlagCrash | FlagStackTrace},
		{Entry{PID: 77, Tag: "libc", Priority: Fatal, Message: "Fatal signal 6 (SIGABRT), code -1"}, FlagCrash | FlagCrashStart},
		{Entry{PID: 78, Tag: "x", Priority: Error, Buffer: Crash, Message: "from the crash buffer"}, FlagCrash | FlagCrashStart},
		{Entry{PID: 79, Tag: "W", Priority: Warn, Message: "java.lang.Exception\n  at a.b.C.d(C.java:3)"}, FlagStackTrace},
		{Entry{PID: 79, Tag: "W", Priority: Warn, Message: "Caused by: java.io.IOException"}, FlagStackTrace},
		{Entry{PID: 79, Tag: "W", Priority: Warn, Message: "look at this (not a frame"}, 0},
		{Entry{PID: 80, Tag: "AndroidRuntime", Priority: Info, Message: "FATAL EXCEPTION at info level"}, 0},
	}
	for i, l := range log {
		e := l.e
		c.Classify(&e)
		if e.Flags != l.want {
			t.Errorf("entry %d (%s: %q): flags %b, want %b", i, e.Tag, e.Message, e.Flags, l.want)
		}
	}
}

func TestClassifierBounded(t *testing.T) {
	var c Classifier
	for pid := int32(0); pid < 1000; pid++ {
		e := Entry{PID: pid, Tag: "libc", Priority: Fatal, Message: "Fatal signal 11"}
		c.Classify(&e)
	}
	if len(c.open) != maxCrashPIDs {
		t.Fatalf("%d open crashes, want %d", len(c.open), maxCrashPIDs)
	}
}

// TestRingBoundedByBytes: issue 30 #12. A ring bounded only by entries held
// 200,000 entries of 4 KB (800 MB); the bytes of their text now bound it
// too: the oldest entries go first, readers learn what they missed, and the
// strings of dropped entries are let go.
func TestRingBoundedByBytes(t *testing.T) {
	r := NewRing(1000)
	big := string(make([]byte, 4000))
	cost := (&Entry{Tag: "T", Message: big}).Cost()
	r.SetLimit(10*cost, nil, "")
	for range 100 {
		r.Append(Entry{Tag: "T", Message: big})
	}
	first, next := r.Bounds()
	if next-first != 10 || first != 91 || r.Bytes() != 10*cost {
		t.Fatalf("held [%d, %d), %d bytes; want the last 10 entries, %d bytes", first, next, r.Bytes(), 10*cost)
	}
	// Small entries push out a big one only as far as needed.
	r.Append(Entry{Tag: "T", Message: "small"})
	if first, next := r.Bounds(); next-first != 10 || first != 92 {
		t.Fatalf("after a small entry: [%d, %d)", first, next)
	}
	_, _, missed := r.Read(nil, 1, 0)
	if missed != 91 {
		t.Fatalf("a reader from 1 missed %d, want 91", missed)
	}
	for i, e := range r.buf {
		if seq := uint64(i); e.Message != "" && (e.Seq < 92) {
			t.Fatalf("slot %d keeps dropped entry %d's text", seq, e.Seq)
		}
	}
	// An entry larger than the whole bound is still kept, alone.
	r.SetLimit(100, nil, "")
	r.Append(Entry{Message: big})
	if first, next := r.Bounds(); next-first != 1 {
		t.Fatalf("an entry over the bound: [%d, %d)", first, next)
	}
}

// TestRingsShareBudget: the rings of one process draw from one budget; a
// device that floods takes its own oldest entries out, then other rings'
// room, and never more than the budget plus one entry per ring.
func TestRingsShareBudget(t *testing.T) {
	msg := string(make([]byte, 1000))
	cost := (&Entry{Message: msg}).Cost()
	b := budget.New(50 * cost)
	quiet, flood := NewRing(1000), NewRing(1000)
	quiet.SetLimit(40*cost, b, "quiet")
	flood.SetLimit(40*cost, b, "flood")
	for range 20 {
		quiet.Append(Entry{Message: msg})
	}
	for range 500 {
		flood.Append(Entry{Message: msg})
		if b.Used() > 50*cost {
			t.Fatalf("budget passed: %d > %d", b.Used(), 50*cost)
		}
	}
	if flood.Len() != 30 || quiet.Len() != 20 {
		t.Fatalf("flood holds %d, quiet %d; want 30 and 20", flood.Len(), quiet.Len())
	}
	if b.Used() != quiet.Bytes()+flood.Bytes() {
		t.Fatalf("budget %d, rings %d", b.Used(), quiet.Bytes()+flood.Bytes())
	}
	// The quiet ring's next entries now find the budget spent: it drops
	// its own oldest, never grows past it.
	for range 10 {
		quiet.Append(Entry{Message: msg})
	}
	if quiet.Len() != 20 || b.Used() != 50*cost {
		t.Fatalf("quiet holds %d, budget %d", quiet.Len(), b.Used())
	}
	quiet.Close()
	flood.Close()
	if b.Used() != 0 {
		t.Fatalf("%d bytes charged after Close", b.Used())
	}
}

// picture is a cheaper holder of the process-wide budget than a log: a
// decoded picture kept for drawing.
type picture struct {
	mu   sync.Mutex
	b    *budget.Budget
	held int64
}

func (p *picture) reclaim(int64) (int64, string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := p.held
	p.b.Give(n)
	p.held = 0
	return n, "a picture"
}

// TestRingUnderProcessBudget: a ring charges its entries to its share of
// the process-wide budget; when the process is full it makes room by
// dropping cheaper things first (a picture), then its own oldest entries;
// a take of others (a packet) makes it give back its oldest entries, with
// a note naming its device, and a reader learns what it missed. Close
// gives everything back and leaves the reclaimers.
func TestRingUnderProcessBudget(t *testing.T) {
	msg := strings.Repeat("m", 4000)
	cost := (&Entry{Message: msg}).Cost()
	process := budget.New(100 * cost)
	pic := &picture{b: process.Child(0), held: 30 * cost}
	pic.b.Take(pic.held)
	defer pic.b.Reclaimer(budget.RankPicture, pic.reclaim)()
	r := NewRing(1000)
	r.SetLimit(1000*cost, process.Child(0), "emulator-5554")
	for range 80 {
		r.Append(Entry{Message: msg})
	}
	if pic.held != 0 || r.Len() != 80 || process.Used() != 80*cost {
		t.Fatalf("picture holds %d, ring %d entries, process %d: the cheaper picture should have gone first", pic.held, r.Len(), process.Used())
	}
	for range 40 {
		r.Append(Entry{Message: msg})
	}
	if r.Len() != 100 || process.Used() != 100*cost {
		t.Fatalf("ring %d entries, process %d of %d", r.Len(), process.Used(), 100*cost)
	}
	drops := process.Stats().Drops
	if drops != 1 {
		t.Fatalf("%d drops noted; the ring's own oldest entries are its own business, not a drop", drops)
	}
	if !process.Take(50 * cost) {
		t.Fatal("a packet found no room although the log could give way")
	}
	// It gave back at least what was needed and at least reclaimStep.
	if gone := 100 - int64(r.Len()); gone != (max(50*cost, reclaimStep)+cost-1)/cost || process.Used() != int64(r.Len())*cost+50*cost {
		t.Fatalf("ring %d entries, process %d", r.Len(), process.Used())
	}
	note := process.LastDrop().Note()
	if !strings.Contains(note, "oldest entries of emulator-5554's log") {
		t.Fatalf("note %q", note)
	}
	if _, _, missed := r.Read(nil, 1, 0); missed != 120-uint64(r.Len()) {
		t.Fatalf("missed %d", missed)
	}
	process.Give(50 * cost)
	held := r.Len()
	r.Detach()
	if process.Used() != 0 || process.Reclaimers() != 1 || r.Len() != held {
		t.Fatalf("after Detach: %d bytes held, %d reclaimers, %d of %d entries", process.Used(), process.Reclaimers(), r.Len(), held)
	}
	r.Append(Entry{Message: msg}) // bounded by the ring alone now
	r.Close()
	if process.Used() != 0 || process.Reclaimers() != 1 {
		t.Fatalf("after Close: %d bytes held, %d reclaimers", process.Used(), process.Reclaimers())
	}
}
