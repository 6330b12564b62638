package cli

import (
	"math"
	"os"
	"runtime/debug"
	"testing"

	"github.com/ddmtui/ddmtui/hprof/scene"
)

// Issue 37 #13: the analysis of an HPROF file runs under a soft memory
// limit of twice the file plus a floor, so a dense dump's garbage does not
// grow by half its model again between collections (a 3 M-object chain,
// 63 MB: 272 MiB peak before, 210 MiB after); `hprof diff` adds the
// allowance of each of its two heaps.
func TestHprofAnalysisMemoryLimit(t *testing.T) {
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	debug.SetMemoryLimit(math.MaxInt64)
	path, _ := writeScene(t, t.TempDir(), "app.hprof", scene.Options{Seed: 3})
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	want := hprofMemoryFactor*fi.Size() + hprofMemoryFloor
	if out, err := runApp(t, "hprof", "analyze", "--json", path); err != nil {
		t.Fatalf("%v\n%.300s", err, out)
	}
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Errorf("analyze: limit %d, want %d (2 x %d + %d)", got, want, fi.Size(), hprofMemoryFloor)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if out, err := runApp(t, "hprof", "diff", "--json", path, path); err != nil {
		t.Fatalf("%v\n%.300s", err, out)
	}
	if got := debug.SetMemoryLimit(-1); got != 2*want {
		t.Errorf("diff: limit %d, want %d (both heaps' allowances)", got, 2*want)
	}
}
