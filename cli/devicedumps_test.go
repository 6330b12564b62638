package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/threaddump"
)

// A VM that answers no heap-dump chunk, as on recent Android: `ddmtui hprof`
// falls back to the device's am dumpheap (pulled with sync:, deleted, and
// converted), and `ddmtui dump` gets its stacks from debuggerd -j.
func TestModernDeviceDumpsThroughRealADB(t *testing.T) {
	leakcheck.Check(t)
	r := startADBRig(t, []sim.VMSpec{{PID: 7001, App: "com.example.modern", Package: "com.example.modern", Family: sim.ART,
		Modern: true, HeapDumpSilent: true, Threads: 3, HeapBytes: 1 << 20, Seed: 71}})
	dir := t.TempDir()
	out := filepath.Join(dir, "m.hprof")
	text, err := runApp(t, "hprof", "--pid", "7001", "-o", out, "--adb", r.server.Addr(), "--scan", "off")
	if err != nil || !strings.Contains(text, "wrote "+out) || !strings.Contains(text, "com.example.modern") {
		t.Fatalf("hprof: %v\n%s", err, text)
	}
	if h := readHeader(t, out); h.Version != "JAVA PROFILE 1.0.2" {
		t.Fatalf("converted file is %q", h.Version)
	}

	raw := filepath.Join(dir, "traces.txt")
	text, err = runApp(t, "dump", "--pid", "7001", "-o", raw, "--json", "--adb", r.server.Addr(), "--scan", "off")
	if err != nil {
		t.Fatalf("dump: %v\n%s", err, text)
	}
	b, err := os.ReadFile(raw)
	if err != nil || !bytes.Contains(b, []byte("----- pid 7001 ")) {
		t.Fatalf("raw dump: %v", err)
	}
	d, err := threaddump.Parse(bytes.NewReader(b))
	if err != nil || len(d.Processes) != 1 || len(d.Processes[0].Threads) != len(r.dev.VM(7001).Threads()) {
		t.Fatalf("dump parses to %v, %v", d, err)
	}
	if !strings.Contains(text, fmt.Sprintf(`"pid": %d`, 7001)) {
		t.Errorf("json output lacks the pid:\n%.300s", text)
	}
}
