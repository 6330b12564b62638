package tui

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/tui/style"
)

// H saves the dump and opens the heap dump viewer on it; a second dump of
// the same app opens on the diff against the first; q comes back.
func TestHeapDumpOpensTheViewerAndTheDiff(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, 'H')
	hs.waitText(".hprof — 1.0.3 · ")
	hs.waitText("1 Classes (heap app)") // Android's HPROF, its heaps kept
	hs.waitText("RETAINED ▼")
	first, _ := filepath.Glob(filepath.Join(hs.dash.cfg.TraceDir, "com.example.mail-*.hprof"))
	if len(first) != 1 {
		t.Fatalf("saved dumps: %v", first)
	}
	hs.key(tcell.KeyRune, 'q')
	hs.waitText("Binder:1234_1")
	time.Sleep(1100 * time.Millisecond) // dumps are named to the second
	hs.key(tcell.KeyRune, 'H')
	hs.waitText(" vs " + filepath.Base(first[0]) + " — ")
	hs.waitText("6 Diff")
	if s := strings.Join(hs.text(), "\n"); !strings.Contains(s, "no class changed between the two dumps") {
		t.Errorf("two dumps of the same heap differ:\n%s", s)
	}
	hs.key(tcell.KeyRune, 'q')
	hs.waitText("Binder:1234_1")
}
