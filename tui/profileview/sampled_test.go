package profileview

import (
	"bytes"
	"strconv"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/simpleperf"
	"github.com/ddmtui/ddmtui/trace"
)

func sampledProfile(t *testing.T) *trace.Profile {
	t.Helper()
	var buf bytes.Buffer
	if _, err := simpleperf.Gen(&buf, simpleperf.GenOptions{Threads: 2, Duration: 300 * time.Millisecond, Frequency: 1000, Depth: 8, Stacks: 6, Seed: 9}); err != nil {
		t.Fatal(err)
	}
	p, err := simpleperf.Load(&buf, simpleperf.LoadOptions{CallIndex: true})
	if err != nil {
		t.Fatal(err)
	}
	return p.Trace
}

// TestSampledProfile: a sampled profile shows sample counts and time in
// its columns and header, and J keeps its Java frames only.
func TestSampledProfile(t *testing.T) {
	p := sampledProfile(t)
	hs := newHarness(t, p)
	hs.w = 240 // the header's whole line
	hs.screen.SetSize(hs.w, hs.h)
	hs.contains("Incl Samples", "Excl Time ms", "600 samples of cpu-clock, all frames (J)", "Samples 600 samples")
	var native string
	for _, ms := range p.All.Methods {
		if ms.Index >= 2 && !p.Sampling.JavaMethods[ms.Index] && ms.Exclusive[trace.ClockCPU] > 0 {
			native = p.Name(ms.Index)
			break
		}
	}
	if native == "" {
		t.Fatal("no native method with self samples")
	}
	hs.runes("n") // sort by name: every method on screen is not guaranteed, so filter
	hs.runes("/" + native)
	hs.key(13)
	hs.contains(native)
	hs.runes("J")
	hs.contains("Java only (J)", "Samples "+strconv.Itoa(600)+" samples")
	hs.lacks(native + " ")
	hs.runes("J")
	hs.contains("all frames (J)")
}
