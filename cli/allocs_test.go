package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/allocs"
	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// allocsOut is what `ddmtui allocs --json` prints.
type allocsOut struct {
	Tracking bool           `json:"tracking"`
	Order    string         `json:"order"`
	Count    int            `json:"count"`
	Bytes    uint64         `json:"bytes"`
	Entries  []allocs.Entry `json:"entries"`
	ByClass  []struct {
		Class   string  `json:"class"`
		Count   int     `json:"count"`
		Bytes   uint64  `json:"bytes"`
		Mean    float64 `json:"mean"`
		TopSite string  `json:"top_site"`
	} `json:"by_class"`
	BySite []struct {
		Site     string        `json:"site"`
		Frame    *allocs.Frame `json:"frame"`
		Count    int           `json:"count"`
		Bytes    uint64        `json:"bytes"`
		TopClass string        `json:"top_class"`
	} `json:"by_site"`
}

// allocsRig serves simulated VMs on loopback and steps them.
type allocsRig struct {
	dev  *sim.Device
	scan string
	stop func()
}

func newAllocsRig(t *testing.T, specs ...sim.VMSpec) *allocsRig {
	t.Helper()
	dev := sim.NewDevice("t")
	for _, s := range specs {
		dev.Add(sim.NewVM(s))
	}
	base := freePorts(t, len(specs))
	if _, err := dev.ServeLocal("127.0.0.1", base); err != nil {
		dev.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); dev.Run(ctx, 20*time.Millisecond) }()
	r := &allocsRig{dev: dev, scan: fmt.Sprintf("%d-%d", base, base+len(specs)-1)}
	r.stop = func() { cancel(); wg.Wait(); dev.Close() }
	t.Cleanup(r.stop)
	return r
}

func (r *allocsRig) run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runApp(t, append([]string{"allocs", "--adb", "off", "--scan", r.scan, "--scan-interval", "100ms"}, args...)...)
}

func (r *allocsRig) json(t *testing.T, args ...string) allocsOut {
	t.Helper()
	text, err := r.run(t, append(args, "--json")...)
	if err != nil {
		t.Fatalf("%v: %v\n%s", args, err, text)
	}
	// Progress lines go to the same buffer; the JSON starts at the first '{'.
	var out allocsOut
	if err := json.Unmarshal([]byte(text[strings.Index(text, "{"):]), &out); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, text)
	}
	return out
}

// checkReport checks a report against the VM it came from: every entry is
// in Java form with 1–16 frames and a thread of the VM, numbered in
// allocation order, and the groups add up.
func checkReport(t *testing.T, out allocsOut, vm *sim.VM) {
	t.Helper()
	if out.Count == 0 || out.Count != len(out.Entries) {
		t.Fatalf("count %d, %d entries", out.Count, len(out.Entries))
	}
	tids := map[uint16]bool{}
	for _, th := range vm.Threads() {
		if vm.Spec().Family == sim.Dalvik {
			tids[uint16(th.ID)] = true
		} else {
			tids[uint16(th.SysTID)] = true
		}
	}
	var total uint64
	live := 0
	for i, e := range out.Entries {
		want := out.Count - i // ART: newest first
		if vm.Spec().Family == sim.Dalvik {
			want = i + 1
		}
		if e.Index != want {
			t.Fatalf("entry %d has index %d, want %d (%s)", i, e.Index, want, out.Order)
		}
		if strings.ContainsAny(e.Class, "/;") || e.Class == "" {
			t.Fatalf("class %q is not in Java form", e.Class)
		}
		if len(e.Frames) < 1 || len(e.Frames) > 16 {
			t.Fatalf("entry %d has %d frames", i, len(e.Frames))
		}
		for _, f := range e.Frames {
			if strings.ContainsAny(f.Class, "/;") || f.Method == "" {
				t.Fatalf("frame %+v", f)
			}
		}
		// Threads that died since keep their records: ids must be in the
		// VM's range (ART: Linux tids from the pid up; Dalvik: VM thread
		// ids from 1), and some records belong to live threads.
		lo := 1
		if vm.Spec().Family != sim.Dalvik {
			lo = vm.PID()
		}
		if int(e.ThreadID) < lo || int(e.ThreadID) >= lo+500 {
			t.Fatalf("thread id %d is outside the VM's", e.ThreadID)
		}
		if tids[e.ThreadID] {
			live++
		}
		total += uint64(e.Size)
	}
	if live == 0 {
		t.Fatalf("none of %d allocations is by a live thread", out.Count)
	}
	if total != out.Bytes {
		t.Fatalf("entries add up to %d bytes, report says %d", total, out.Bytes)
	}
	n, b := 0, uint64(0)
	for i, g := range out.ByClass {
		n += g.Count
		b += g.Bytes
		if i > 0 && g.Count > out.ByClass[i-1].Count {
			t.Fatalf("by_class not sorted by count: %+v", out.ByClass)
		}
	}
	if n != out.Count || b != out.Bytes {
		t.Fatalf("by_class adds up to %d, %d", n, b)
	}
	n = 0
	for _, g := range out.BySite {
		n += g.Count
		if g.Frame == nil || g.Frame.String() != g.Site {
			t.Fatalf("site %q with frame %+v", g.Site, g.Frame)
		}
	}
	if n != out.Count {
		t.Fatalf("by_site adds up to %d", n)
	}
}

func TestAllocsCommandJSON(t *testing.T) {
	leakcheck.Check(t)
	r := newAllocsRig(t,
		sim.VMSpec{PID: 5101, App: "com.example.art", Package: "com.example.art", Family: sim.ART, Threads: 3, Seed: 1},
		sim.VMSpec{PID: 5102, App: "com.example.dalvik", Family: sim.Dalvik, Threads: 3, Seed: 2},
	)
	art, dalvik := r.dev.VM(5101), r.dev.VM(5102)

	out := r.json(t, "--pid", "5101", "--duration", "300ms")
	if !out.Tracking || out.Order != "newest_first" || !art.AllocTracking() {
		t.Fatalf("tracking %v order %q, VM tracking %v", out.Tracking, out.Order, art.AllocTracking())
	}
	checkReport(t, out, art)
	var app bool
	for _, g := range out.ByClass {
		app = app || g.Class == "com.example.art.data.Item"
	}
	if !app {
		t.Errorf("no app class among %+v", out.ByClass)
	}
	// Tracking stayed on: a second run fetches at once, with the newer
	// allocations too.
	text, err := r.run(t, "--pid", "5101", "--json")
	if err != nil || strings.Contains(text, "recording allocations") {
		t.Fatalf("second run: %v\n%.300s", err, text)
	}
	if again := r.json(t, "--pid", "5101"); again.Count <= out.Count {
		t.Errorf("second fetch has %d entries, first %d", again.Count, out.Count)
	}

	// Dalvik: oldest first; --stop turns tracking off (and the VM drops
	// its records).
	out = r.json(t, "--pid", "5102", "--duration", "300ms", "--stop")
	if out.Tracking || out.Order != "oldest_first" || dalvik.AllocTracking() {
		t.Fatalf("tracking %v order %q, VM tracking %v", out.Tracking, out.Order, dalvik.AllocTracking())
	}
	checkReport(t, out, dalvik)

	// --filter keeps matching allocations only.
	out = r.json(t, "--pid", "5101", "--filter", "byte[]")
	for _, e := range out.Entries {
		if e.Class != "byte[]" {
			t.Fatalf("--filter byte[] kept %q", e.Class)
		}
	}
	if len(out.ByClass) != 1 || out.ByClass[0].Class != "byte[]" {
		t.Fatalf("by_class after filter: %+v", out.ByClass)
	}
}

func TestAllocsCommandStartStopAndText(t *testing.T) {
	leakcheck.Check(t)
	r := newAllocsRig(t, sim.VMSpec{PID: 5201, App: "com.example.text", Family: sim.ART, Threads: 2, Seed: 4})
	vm := r.dev.VM(5201)

	text, err := r.run(t, "--pid", "5201", "--start")
	if err != nil || !strings.Contains(text, "allocation tracking of com.example.text (pid 5201) is now on") || !vm.AllocTracking() {
		t.Fatalf("--start: %v %v\n%s", err, vm.AllocTracking(), text)
	}
	if text, err = r.run(t, "--pid", "5201", "--start"); err != nil || !strings.Contains(text, "was already on") {
		t.Fatalf("--start again: %v\n%s", err, text)
	}
	time.Sleep(200 * time.Millisecond)

	// Standard output is not a terminal here: a text table.
	text, err = r.run(t, "--pid", "5201")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"com.example.text (pid 5201): tracking on;", "grouped by class, sorted by count",
		"TOP SITE", "java.lang.String"} {
		if !strings.Contains(text, want) {
			t.Fatalf("text lacks %q:\n%s", want, text)
		}
	}
	if !regexp.MustCompile(`(?m)^COUNT +BYTES +MEAN +% +CLASS +TOP SITE$`).MatchString(text) {
		t.Fatalf("no column titles:\n%s", text)
	}
	text, err = r.run(t, "--pid", "5201", "--group", "site", "--top", "2")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[2], "COUNT") || !strings.HasPrefix(lines[5], "… ") ||
		!strings.Contains(lines[5], "more rows") {
		t.Fatalf("--group site --top 2:\n%s", text)
	}
	text, err = r.run(t, "--pid", "5201", "--group", "flat", "--sort", "bytes", "--top", "1", "--stop")
	if err != nil || !strings.Contains(text, "tracking off") || !regexp.MustCompile(`(?m)^ *# +SIZE +TID +CLASS +SITE$`).MatchString(text) || vm.AllocTracking() {
		t.Fatalf("--group flat --stop: %v, VM tracking %v\n%s", err, vm.AllocTracking(), text)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--pid", "5201", "--start", "--stop"}, "exclude each other"},
		{[]string{"--pid", "5201", "--group", "size"}, "--group"},
		{[]string{"--pid", "5201", "--sort", "x"}, "--sort"},
		{[]string{"--pid", "5201", "--top", "-1"}, "--top"},
		{[]string{"--pid", "9999", "--wait", "300ms"}, "no VM with pid 9999"},
	} {
		if _, err := r.run(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}

// Modern ART leaves REAE unanswered: the request's timeout counts as done.
func TestAllocsCommandModernART(t *testing.T) {
	leakcheck.Check(t)
	r := newAllocsRig(t, sim.VMSpec{PID: 5301, App: "com.example.modern", Package: "com.example.modern", Family: sim.ART, Modern: true, Threads: 2, Seed: 5})
	out := r.json(t, "--pid", "5301", "--duration", "100ms")
	if !out.Tracking || !r.dev.VM(5301).AllocTracking() {
		t.Fatalf("tracking %v", out.Tracking)
	}
	checkReport(t, out, r.dev.VM(5301))
}

// The text table escapes names from the VM and lays out every grouping.
func TestAllocsText(t *testing.T) {
	tab := allocs.New(&ddm.Allocations{Entries: []ddm.Allocation{
		{Size: 24, ThreadID: 1, Class: "Ljava/lang/String;", Frames: []ddm.AllocFrame{
			{Class: "Lcom/example/Foo;", Method: "bar", File: "Foo.java", Line: 42},
			{Class: "Lcom/example/Main;", Method: "run", File: "Main.java", Line: 7}}},
		{Size: 100, ThreadID: 2, Class: "[B", Frames: []ddm.AllocFrame{{Class: "Lcom/example/Buf;", Method: "grow", File: "Buf.java", Line: 10}}},
		{Size: 8, ThreadID: 2, Class: "[red]x\x1b[2J"},
	}}, allocs.NewestFirst)
	for _, c := range []struct {
		by   allocs.GroupBy
		key  allocs.SortKey
		top  int
		want string
	}{
		{allocs.ByClass, allocs.SortBytes, 0, `app (pid 1): tracking on; 3 allocations, 132 B; grouped by class, sorted by bytes

COUNT  BYTES     MEAN     %  CLASS             TOP SITE
    1  100 B  100.0 B  75.8  byte[]            com.example.Buf.grow(Buf.java:10)
    1   24 B   24.0 B  18.2  java.lang.String  com.example.Foo.bar(Foo.java:42)
    1    8 B    8.0 B   6.1  [red]x\x1b[2J     (no stack)
`},
		{allocs.ByStack, allocs.SortName, 0, `app (pid 1): tracking on; 3 allocations, 132 B; grouped by stack, sorted by name

COUNT  BYTES     MEAN     %  STACK                              TOP CLASS
    1    8 B    8.0 B   6.1  (no stack)                         [red]x\x1b[2J
    1  100 B  100.0 B  75.8  com.example.Buf.grow(Buf.java:10)  byte[]
    1   24 B   24.0 B  18.2  com.example.Foo.bar(Foo.java:42)   java.lang.String
                               at com.example.Main.run(Main.java:7)
`},
		{allocs.ByThread, allocs.SortCount, 1, `app (pid 1): tracking on; 3 allocations, 132 B; grouped by thread, sorted by count

COUNT  BYTES    MEAN     %  THREAD  TOP CLASS
    2  108 B  54.0 B  81.8  tid 2   [red]x\x1b[2J
… 1 more rows (--top 0 shows all)
`},
		{allocs.Flat, allocs.SortOrder, 0, `app (pid 1): tracking on; 3 allocations, 132 B; grouped by flat, sorted by order

#   SIZE  TID  CLASS             SITE
3   24 B    1  java.lang.String  com.example.Foo.bar(Foo.java:42)
2  100 B    2  byte[]            com.example.Buf.grow(Buf.java:10)
1    8 B    2  [red]x\x1b[2J     (no stack)
`},
	} {
		var b bytes.Buffer
		if err := writeAllocsText(&b, tab, tab.Filter(""), "app (pid 1)", true, c.by, c.key, c.top); err != nil {
			t.Fatal(err)
		}
		if b.String() != c.want {
			t.Errorf("%v by %v:\n%s\nwant\n%s", c.by, c.key, b.String(), c.want)
		}
	}
	var b bytes.Buffer
	if err := writeAllocsText(&b, tab, tab.Filter("zzz"), "app", false, allocs.ByClass, allocs.SortCount, 0); err != nil {
		t.Fatal(err)
	}
	if want := "app: tracking off; 0 allocations, 0 B (of 3, 132 B); grouped by class, sorted by count\n\nno allocations recorded\n"; b.String() != want {
		t.Errorf("empty:\n%q\nwant\n%q", b.String(), want)
	}
}
