package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// `profile --sampler simpleperf` through the real adb to a simulated
// Android 14 device: a profileable release app (no JDWP) is sampled and
// saved, `trace FILE --json` reads the file; on an Android 9 device a
// debuggable app is
// refused with the reason, and the target is not written.
func TestProfileSamplesThroughRealADB(t *testing.T) {
	leakcheck.Check(t)
	r := startADBRig(t, []sim.VMSpec{{PID: 3400, App: "com.example.release", Package: "com.example.release", Family: sim.ART, API: 34, Release: true, Threads: 2, Seed: 4},
		{PID: 3401, App: "com.example.debug", Package: "com.example.debug", Family: sim.ART, API: 34, Threads: 2, Seed: 5}})
	r.dev.SetAPI(34)
	out := filepath.Join(t.TempDir(), "cpu.trace")
	text, err := runApp(t, "profile", "--pid", "3400", "--sampler", "simpleperf", "--duration", "300ms", "--frequency", "500",
		"-o", out, "--adb", r.server.Addr(), "--scan", "off")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if !strings.Contains(text, "wrote "+out) || !strings.Contains(text, "samples of cpu-clock") {
		t.Fatalf("output %q", text)
	}
	js, err := runApp(t, "trace", out, "--json")
	if err != nil {
		t.Fatalf("%v\n%.300s", err, js)
	}
	doc, smp := decodeSampledJSON(t, js)
	if smp.Samples == 0 || len(doc.Merged.TopDown) == 0 {
		t.Fatalf("%+v", smp)
	}

	r.dev.SetAPI(28)
	out2 := filepath.Join(t.TempDir(), "old.trace")
	text, err = runApp(t, "profile", "--pid", "3401", "--sampler", "simpleperf", "--duration", "100ms", "-o", out2,
		"--adb", r.server.Addr(), "--scan", "off")
	if err == nil || !strings.Contains(err.Error(), "API 29") {
		t.Fatalf("API 28: %v\n%s", err, text)
	}
	if _, err := os.Stat(out2); err == nil {
		t.Fatal("a refused recording left its target")
	}
}
