package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// Issue 29 items 12 and 13: an output that cannot be written is refused
// before any work (no VM is looked for, nothing is recorded), and the
// error names the user's path, never a temporary file.
func TestOutputCheckedBeforeWork(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexistent")
	for _, args := range [][]string{
		{"profile", "--duration", "1h", "-o", filepath.Join(missing, "p.trace")},
		{"hprof", "-o", filepath.Join(missing, "x.hprof")},
		{"dump", "-o", filepath.Join(missing, "d.txt")},
		{"heap", "--png", filepath.Join(missing, "h.png")},
	} {
		start := time.Now()
		out, err := runApp(t, append(args, "--adb", "off", "--scan", "off", "--pid", "4242", "--wait", "1h")...)
		path := args[len(args)-1]
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "does not exist") ||
			strings.Contains(err.Error(), ".ddmtui-") {
			t.Errorf("%s: %v\n%s", args[0], err, out)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: failed only after %v", args[0], d)
		}
	}
}

// Progress on a stderr that is not a terminal is one line, without a
// carriage return, however long the dump takes.
func TestHprofProgressOnceWhenPiped(t *testing.T) {
	leakcheck.Check(t)
	dump := bigHPROF(t)
	port, err := freeLocalRange(39720, 1)
	if err != nil {
		t.Fatal(err)
	}
	serveDumpVM(t, port, 4345, dump, 0)
	dir := t.TempDir()
	path := filepath.Join(dir, "p.hprof")
	out, err := runApp(t, "hprof", "--adb", "off", "--scan", fmt.Sprint(port), "--pid", "4345", "--android", "-o", path)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.Contains(out, "\r") || strings.Count(out, "heap dump of pid 4345…\n") != 1 || strings.Contains(out, "received") {
		t.Errorf("progress on a pipe: %q", out)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries", len(ents))
	}
}
