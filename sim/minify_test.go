package sim

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/threaddump"
)

// TestReleaseBuildIsMinified: the release build's thread dump and crash
// log carry obfuscated names, and ReleaseMapping turns them back into
// exactly what the same app built without minification shows.
func TestReleaseBuildIsMinified(t *testing.T) {
	spec := VMSpec{PID: 5150, App: "com.example.release", Package: "com.example.release", Family: ART, Release: true,
		API: 34, Threads: 5, HeapBytes: 32 << 20, Seed: 103, Deadlock: true}
	debug := spec
	debug.Release = false
	m, err := mapping.Parse([]byte(ReleaseMapping(spec.Package)))
	if err != nil {
		t.Fatal(err)
	}
	if m.Skipped != 0 {
		t.Fatalf("ReleaseMapping: %s", m.Summary())
	}
	at := time.Date(2026, 12, 7, 4, 0, 0, 0, time.UTC)
	dump := func(s VMSpec) string {
		var b bytes.Buffer
		if err := threaddump.Format(&b, NewVM(s).ThreadDump(at), threaddump.StyleART14); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	obf, src := dump(spec), dump(debug)
	for _, name := range []string{spec.Package + ".data.Repository", spec.Package + ".data.Account", spec.Package + ".data.Store"} {
		if strings.Contains(obf, name) {
			t.Errorf("the release dump names %s", name)
		}
		if !strings.Contains(src, name) {
			t.Errorf("the debug dump lacks %s", name)
		}
	}
	if got := m.RetraceString(obf); got != src {
		t.Errorf("retraced release dump differs from the debug build's:\n%s\n----\n%s", got, src)
	}
	crash, want := crashReport(spec, 5150), crashReport(debug, 5150)
	if strings.Contains(crash, "TileCache") {
		t.Errorf("the crash log names the source:\n%s", crash)
	}
	if got := m.RetraceString(crash); got != want {
		t.Errorf("retraced crash:\n%s\nwant\n%s", got, want)
	}
}
