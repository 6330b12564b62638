package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/simpleperf"
	"github.com/ddmtui/ddmtui/testkit/treejson"
	"github.com/google/pprof/profile"
)

// writeSampled writes a generated recording under a name that says nothing
// of its format (the command sniffs it).
func writeSampled(t *testing.T) string {
	t.Helper()
	var buf bytes.Buffer
	if _, err := simpleperf.Gen(&buf, simpleperf.GenOptions{Threads: 2, Duration: 500 * time.Millisecond, Frequency: 1000, Depth: 10, Stacks: 8, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "capture.bin")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// sampling is the "sampling" section of a sampled profile's tree JSON.
type sampling struct {
	Samples    int64  `json:"samples"`
	EventCount uint64 `json:"event_count"`
	Event      string `json:"event"`
	Unit       string `json:"time_unit"`
}

// decodeSampledJSON reads a sampled profile's tree JSON and its sampling
// section.
func decodeSampledJSON(t *testing.T, out string) (*treejson.Doc, sampling) {
	t.Helper()
	doc := decodeTreeJSON(t, out)
	var s sampling
	if err := json.Unmarshal(doc.Sampling, &s); err != nil {
		t.Fatalf("sampling %.200s: %v", doc.Sampling, err)
	}
	return doc, s
}

func sumSelf(ns []treejson.Node, keep func(string) bool) (self uint64) {
	for _, n := range ns {
		if !keep(n.Method) {
			return 1 << 62 // poisons the sum
		}
		self += n.SelfSamples + sumSelf(n.Children, keep)
	}
	return self
}

// TestTraceSampledJSON: `trace FILE --json` on a report-sample file prints
// the trees in the --tree --json shape with sample counts; every sample is
// in exactly one path; --java-only keeps Java frames only.
func TestTraceSampledJSON(t *testing.T) {
	path := writeSampled(t)
	for _, javaOnly := range []bool{false, true} {
		args := []string{"trace", path, "--json"}
		if javaOnly {
			args = append(args, "--java-only")
		}
		out, err := runApp(t, args...)
		if err != nil {
			t.Fatalf("%v\n%.300s", err, out)
		}
		doc, smp := decodeSampledJSON(t, out)
		if doc.Clock != "time" || smp.Samples != 1000 || smp.Event != "cpu-clock" || smp.Unit != "µs" || len(doc.Threads) != 2 || doc.Threads[0].Name != "main" {
			t.Fatalf("head: %+v %+v", doc, smp)
		}
		keep := func(string) bool { return true }
		if javaOnly {
			keep = func(m string) bool {
				return !strings.Contains(m, "::") && !strings.HasPrefix(m, "kernel_") && !strings.Contains(m, ".so+")
			}
		}
		if got := sumSelf(doc.Merged.TopDown, keep); got != 1000 {
			t.Fatalf("java-only %v: self samples sum to %d, want 1000", javaOnly, got)
		}
		var incl uint64
		for _, n := range doc.Merged.TopDown {
			incl += n.Inclusive
		}
		// Each call path's self time is rounded down to the µs: at most
		// a µs lost per path (a few dozen here).
		if want := smp.EventCount / 1000; incl+100 < want || incl > want {
			t.Fatalf("time %d µs, event count %d ns", incl, smp.EventCount)
		}
	}
}

// TestTraceSampledExports: folded stacks count samples, Chrome JSON is
// valid with a complete event per call, pprof reads back with the same
// sample total.
func TestTraceSampledExports(t *testing.T) {
	path := writeSampled(t)
	dir := t.TempDir()
	folded, chrome, pprofOut := filepath.Join(dir, "f.txt"), filepath.Join(dir, "c.json"), filepath.Join(dir, "p.pb.gz")
	if out, err := runApp(t, "trace", path, "--folded", folded, "--chrome", chrome, "--pprof", pprofOut, "--clock", "samples"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	b, _ := os.ReadFile(folded)
	var total int64
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		i := strings.LastIndexByte(line, ' ')
		var n int64
		if _, err := fmt.Sscan(line[i+1:], &n); err != nil {
			t.Fatalf("line %q", line)
		}
		total += n
	}
	if total != 1000 {
		t.Fatalf("folded stacks count %d samples", total)
	}
	var events struct {
		TraceEvents []struct {
			Ph  string  `json:"ph"`
			Dur float64 `json:"dur"`
		} `json:"traceEvents"`
	}
	cb, _ := os.ReadFile(chrome)
	if err := json.Unmarshal(cb, &events); err != nil {
		t.Fatalf("chrome: %v", err)
	}
	calls := 0
	for _, e := range events.TraceEvents {
		if e.Ph == "X" {
			calls++
		}
	}
	if calls == 0 {
		t.Fatalf("chrome: no calls in %d events", len(events.TraceEvents))
	}
	f, err := os.Open(pprofOut)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	prof, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var samples int64
	for _, s := range prof.Sample {
		samples += s.Value[0]
	}
	if samples != 1000 || prof.SampleType[1].Unit != "nanoseconds" {
		t.Fatalf("pprof: %d samples, types %v", samples, prof.SampleType)
	}
}

func TestTraceSampledErrors(t *testing.T) {
	path := writeSampled(t)
	b, _ := os.ReadFile(path)
	cut := filepath.Join(t.TempDir(), "cut.trace")
	os.WriteFile(cut, b[:len(b)/2], 0o644)
	out, err := runApp(t, "trace", cut, "--json")
	if err == nil || !strings.Contains(err.Error(), "record ") {
		t.Fatalf("truncated: %v\n%.200s", err, out)
	}
	if _, err := runApp(t, "trace", path, "--data", path); err == nil {
		t.Fatal("--data accepted")
	}
}
