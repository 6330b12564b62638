package sim

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/mapping/apply"
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

// TestReleaseHeapDumpIsMinified: the release build's heap dump names the
// app's classes as the build does; analysed through ReleaseMapping it is
// the same app's debug dump, every class known.
func TestReleaseHeapDumpIsMinified(t *testing.T) {
	spec := VMSpec{PID: 5150, App: "com.example.release", Package: "com.example.release", Family: ART, Release: true,
		API: 34, Threads: 5, HeapBytes: 32 << 20, Seed: 103}
	debug := spec
	debug.Release = false
	m, err := mapping.Parse([]byte(ReleaseMapping(spec.Package)))
	if err != nil || m.Skipped != 0 {
		t.Fatalf("ReleaseMapping: %v %s", err, m.Summary())
	}
	histogram := func(s VMSpec, m *mapping.Mapping) (map[string]heapdump.ClassRow, []string) {
		t.Helper()
		vm := NewVM(s)
		vm.mu.Lock()
		data, err := vm.hprofLocked("")
		vm.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
		h, err := heapdump.Analyze(data, heapdump.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		before := apply.Heap(m, h)
		rows := map[string]heapdump.ClassRow{}
		for _, r := range h.Histogram() {
			rows[r.Name] = r
		}
		return rows, before
	}
	src, _ := histogram(debug, nil)
	obf, _ := histogram(spec, nil)
	if _, ok := obf[spec.Package+".MainActivity"]; ok {
		t.Error("the release dump names MainActivity")
	}
	if _, ok := src[spec.Package+".MainActivity"]; !ok {
		t.Error("the debug dump lacks MainActivity")
	}
	got, names := histogram(spec, m)
	if !reflect.DeepEqual(got, src) {
		t.Errorf("the release dump through its mapping:\n%v\nthe debug build's:\n%v", got, src)
	}
	if c := m.Coverage(names); c.Known != c.Seen || c.Seen < 20 {
		var unknown []string
		for _, n := range names {
			if !mapping.Platform(n) && !m.Known(n) {
				unknown = append(unknown, n)
			}
		}
		t.Errorf("coverage %+v; unknown %q", c, unknown)
	}
}
