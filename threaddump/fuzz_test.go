package threaddump

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary text to the parser and checks that nothing
// panics, that the analysis is internally consistent, and that Format then
// Parse reaches a fixed point in every style. Seeds: testdata/*.txt and
// testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(checkInput)
}

// checkInput is the body of FuzzParse.
func checkInput(t *testing.T, data []byte) {
	opts := Options{MaxLineLength: 512, MaxBytes: 1 << 16}
	d, err := opts.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("parse of in-memory data failed: %v", err)
	}
	checkDump(t, d)
	if _, err := json.Marshal(NewReport(d)); err != nil {
		t.Fatalf("report does not marshal: %v", err)
	}
	for _, style := range []Style{StyleDalvik, StyleART7, StyleART10, StyleART14} {
		var first bytes.Buffer
		if err := FormatDump(&first, d, style); err != nil {
			t.Fatal(err)
		}
		d2, _ := Options{MaxBytes: 1 << 24, MaxLineLength: 1 << 20}.Parse(bytes.NewReader(first.Bytes()))
		checkDump(t, d2)
		var second bytes.Buffer
		FormatDump(&second, d2, style)
		if first.String() != second.String() {
			t.Fatalf("%s: Format∘Parse is not a fixed point for input %q\nfirst:\n%q\nsecond:\n%q", style, data, first.String(), second.String())
		}
	}
}

// TestMutatedDumps runs checkInput over a fixed set of random mutations of
// the test dumps (bytes changed, cut out, duplicated elsewhere), so the
// properties FuzzParse checks are also checked without -fuzz.
func TestMutatedDumps(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.txt"))
	var seeds [][]byte
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	n := 1500
	if testing.Short() {
		n = 200
	}
	for range n {
		in := append([]byte(nil), seeds[rng.IntN(len(seeds))]...)
		for range 1 + rng.IntN(4) {
			at := rng.IntN(len(in))
			switch rng.IntN(3) {
			case 0:
				in[at] = byte(rng.IntN(256))
			case 1:
				in = append(in[:at], in[min(len(in), at+rng.IntN(60)):]...)
			default:
				from := rng.IntN(len(in))
				piece := append([]byte(nil), in[from:min(len(in), from+rng.IntN(90))]...)
				in = append(in[:at], append(piece, in[at:]...)...)
			}
			if len(in) == 0 {
				in = []byte{'"'}
			}
		}
		checkInput(t, in)
		if t.Failed() {
			return
		}
	}
}

// checkDump asserts the invariants every parse and analysis must keep.
func checkDump(t *testing.T, d *Dump) {
	t.Helper()
	truncated := d.SizeLimited
	for _, p := range d.Processes {
		truncated = truncated || p.Truncated
		for _, th := range p.Threads {
			if th.Truncated && !p.Truncated {
				t.Fatalf("thread %q truncated in a complete process", th.Name)
			}
			if th.Unattached && th.TID != 0 {
				t.Fatalf("unattached thread %q has tid %d", th.Name, th.TID)
			}
			for _, l := range th.Locks {
				if l.Frame < -1 || l.Frame >= len(th.Frames) {
					t.Fatalf("thread %q: lock after frame %d of %d", th.Name, l.Frame, len(th.Frames))
				}
			}
		}
		checkAnalysis(t, p, Analyze(p))
	}
	if truncated != d.Truncated {
		t.Fatalf("dump truncated=%v but processes/size say %v", d.Truncated, truncated)
	}
}

func checkAnalysis(t *testing.T, p *Process, a *Analysis) {
	t.Helper()
	n := len(p.Threads)
	grouped := 0
	for _, g := range a.States {
		grouped += len(g.Threads)
	}
	if grouped != n {
		t.Fatalf("state groups hold %d threads of %d", grouped, n)
	}
	for _, e := range a.Edges {
		if e.Waiter < 0 || e.Waiter >= n || e.Owner < -1 || e.Owner >= n {
			t.Fatalf("edge out of range: %+v", e)
		}
		if e.Owner >= 0 && p.Threads[e.Owner].TID != e.HeldBy {
			t.Fatalf("edge owner tid %d but HeldBy %d", p.Threads[e.Owner].TID, e.HeldBy)
		}
	}
	inCycle := map[int]bool{}
	for ci, cycle := range a.Deadlocks {
		if len(cycle) < 2 {
			t.Fatalf("deadlock %d has %d members", ci, len(cycle))
		}
		for i, e := range cycle {
			if e.Waiter < 0 || e.Waiter >= n || e.Owner < 0 || e.Owner >= n {
				t.Fatalf("deadlock edge refers to a missing thread: %+v", e)
			}
			waiter := p.Threads[e.Waiter]
			if waiter.WaitingToLock() != e.Lock {
				t.Fatalf("deadlock edge lock is not the waiter's waiting line")
			}
			if waiter.StateInfo().Class != ClassMonitor {
				t.Fatalf("deadlock member %q is %s", waiter.Name, waiter.State)
			}
			if next := cycle[(i+1)%len(cycle)]; e.Owner != next.Waiter {
				t.Fatalf("deadlock %d is not a cycle at step %d", ci, i)
			}
			if inCycle[e.Waiter] {
				t.Fatalf("thread %d is in two deadlocks or twice in one", e.Waiter)
			}
			inCycle[e.Waiter] = true
			first := p.Threads[cycle[0].Waiter]
			if waiter.TID < first.TID {
				t.Fatalf("deadlock %d does not start at its lowest tid", ci)
			}
		}
	}
	if m := a.Main; m != nil {
		if m.Thread < 0 || m.Thread >= n || m.Frame < -1 || m.Frame >= len(p.Threads[m.Thread].Frames) || m.Owner < -1 || m.Owner >= n {
			t.Fatalf("main thread report out of range: %+v", m)
		}
	}
	for i, u := range a.CPU {
		if u.Jiffies != p.Threads[u.Thread].CPU() || u.Jiffies <= 0 || (i > 0 && a.CPU[i-1].Jiffies < u.Jiffies) {
			t.Fatalf("cpu ranking wrong at %d: %+v", i, u)
		}
	}
}
