package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/heapfile"
	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/sim/adbd"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/testkit/testadb"
)

// heapGraphDevice is a simulated device of the given API level with a
// debuggable VM (pid base) and a profileable release build (base+1),
// served by the simulated adbd.
func heapGraphDevice(t *testing.T, api, base int) (*sim.Device, string) {
	t.Helper()
	dev := sim.NewDevice(fmt.Sprintf("api%d", api))
	dev.SetAPI(api)
	dev.Add(sim.NewVM(sim.VMSpec{PID: base, App: "com.example.debug", Package: "com.example.debug", Family: sim.ART, Modern: true,
		API: api, Threads: 2, Seed: uint64(base)}))
	dev.Add(sim.NewVM(sim.VMSpec{PID: base + 1, App: "com.example.release", Package: "com.example.release", Family: sim.ART, Modern: true,
		API: api, Threads: 2, Release: true, Seed: uint64(base + 1)}))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d := adbd.New(dev, adbd.Options{})
	go d.Serve(ln)
	t.Cleanup(func() { d.Close(); dev.Close() })
	return dev, ln.Addr().String()
}

// Through Debian's adb server and the simulated adbd: `hprof` on a
// profileable release app of an Android 14 device takes a Java heap graph
// with the device's perfetto (config on stdin), pulls it and deletes it;
// the saved trace decodes to the app's planted heap. --format heapgraph
// does the same for a debuggable VM; an Android 10 device is refused with
// the reason.
func TestHeapGraphThroughRealADB(t *testing.T) {
	leakcheck.Check(t)
	srv := testadb.New(t)
	dev34, addr34 := heapGraphDevice(t, 34, 7000)
	_, addr29 := heapGraphDevice(t, 29, 8000)
	srv.Start()
	srv.Connect(addr34)
	srv.Connect(addr29)
	defer srv.Kill()
	dir := t.TempDir()
	release, err := mapping.Parse([]byte(sim.ReleaseMapping("com.example.release")))
	if err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		pid  int
		args []string
	}{
		{7001, nil}, // profileable, not debuggable: a heap graph on its own
		{7000, []string{"--format", "heapgraph"}}, // debuggable, asked for
	} {
		out := filepath.Join(dir, fmt.Sprintf("%d.pftrace", c.pid))
		args := append([]string{"hprof", "--pid", fmt.Sprint(c.pid), "-o", out, "--adb", srv.Addr(), "--scan", "off", "--wait", "20s"}, c.args...)
		text, err := runApp(t, args...)
		if err != nil {
			t.Fatalf("pid %d: %v\n%s", c.pid, err, text)
		}
		if !strings.Contains(text, fmt.Sprintf("Java heap graph (Perfetto trace) of pid %d", c.pid)) {
			t.Errorf("pid %d: output\n%s", c.pid, text)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := heapgraph.Read(bytes.NewReader(b), heapgraph.Options{})
		if err != nil {
			t.Fatalf("pid %d: the saved trace: %v", c.pid, err)
		}
		g := tr.Dumps[0]
		var planted bool
		for _, ty := range g.Types { // the release build's by its minified name
			planted = planted || ty.Name == "com.example.debug.MainActivity" || release.Type(ty.Name) == "com.example.release.MainActivity"
		}
		if len(tr.Dumps) != 1 || int(g.PID) != c.pid || !planted {
			t.Errorf("pid %d: %v, planted scene %v", c.pid, g, planted)
		}
		if ents, _ := fs.ReadDir(dev34.Files(), "data/misc/perfetto-traces"); len(ents) != 0 {
			t.Errorf("pid %d: left on the device: %v", c.pid, ents)
		}
	}

	// --analyze: saved and analysed; what a heap graph cannot carry is
	// said unavailable. The release build's heap graph names its classes
	// as the build does: --mapping renames them.
	an := filepath.Join(dir, "analyze.pftrace")
	mf := filepath.Join(dir, "mapping.txt")
	if err := os.WriteFile(mf, []byte(sim.ReleaseMapping("com.example.release")), 0o644); err != nil {
		t.Fatal(err)
	}
	text, err := runApp(t, "hprof", "--pid", "7001", "-o", an, "--analyze", "--json", "--mapping", mf, "--adb", srv.Addr(), "--scan", "off", "--wait", "20s")
	if err != nil {
		t.Errorf("--analyze: %v\n%s", err, text)
	}
	var rep heapdump.Report
	if i := strings.Index(text, "{"); i < 0 || json.Unmarshal([]byte(text[i:]), &rep) != nil {
		t.Errorf("--analyze --json: not a report:\n%s", text)
	} else {
		var activity bool
		for _, c := range rep.Classes {
			activity = activity || c.Name == "com.example.release.MainActivity" && c.Instances > 0
		}
		if rep.Version != heapfile.Version || !activity || rep.Unavailable["duplicate_strings"] == "" || rep.Mapping == nil || rep.Mapping.Known == 0 {
			t.Errorf("--analyze --json: version %q, MainActivity %v, unavailable %v, mapping %+v", rep.Version, activity, rep.Unavailable, rep.Mapping)
		}
	}
	if _, err := os.Stat(an); err != nil {
		t.Errorf("--analyze: the trace was not saved: %v", err)
	}

	out := filepath.Join(dir, "old.pftrace")
	text, err = runApp(t, "hprof", "--pid", "8000", "-o", out, "--format", "heapgraph", "--adb", srv.Addr(), "--scan", "off", "--wait", "20s")
	if err == nil || !strings.Contains(err.Error(), "Android 11 (API 30)") || !strings.Contains(err.Error(), "API 29") {
		t.Errorf("Android 10: %v\n%s", err, text)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused capture left a file")
	}
	if _, err := runApp(t, "hprof", "--pid", "8000", "-o", out, "--format", "pprof"); err == nil || !strings.Contains(err.Error(), "want auto, hprof or heapgraph") {
		t.Errorf("--format pprof: %v", err)
	}
}

// `hprof analyze|path|diff` read a heap graph as they read HPROF, told
// apart by content (the trace is named .hprof here): the JSON of both
// forms of one heap agrees section by section where a heap graph carries
// the answer, and the sections it empties say why. A trace with two
// processes' dumps lists them (exit status 2) until --pid chooses.
func TestHprofCommandsOnHeapGraph(t *testing.T) {
	dir := t.TempDir()
	graph, hp, e, err := heapgraph.Scene(scene.Options{Seed: 3, API: 34}, heapgraph.WriterOptions{API: 34, PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	gf, hf := filepath.Join(dir, "graph.hprof"), filepath.Join(dir, "dump.hprof")
	if err := os.WriteFile(gf, graph, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hf, hp, 0o644); err != nil {
		t.Fatal(err)
	}
	report := func(file string, args ...string) heapdump.Report {
		t.Helper()
		out, err := runApp(t, append([]string{"hprof", "analyze", "--json", "--top", "1000"}, append(args, file)...)...)
		if err != nil {
			t.Fatalf("analyze %s: %v\n%s", file, err, out)
		}
		var r heapdump.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("analyze %s: %v\n%s", file, err, out)
		}
		return r
	}
	a, b := report(hf), report(gf)
	same := func(what string, x, y any) {
		t.Helper()
		xj, _ := json.Marshal(x)
		yj, _ := json.Marshal(y)
		if !bytes.Equal(xj, yj) {
			t.Errorf("%s: HPROF %s\nheap graph %s", what, xj, yj)
		}
	}
	same("heaps", a.Heaps, b.Heaps)
	same("classes", a.Classes, b.Classes)
	same("dominators", a.Dominators, b.Dominators)
	var fragments []heapdump.LeakJSON
	for _, l := range a.Leaks {
		if l.Kind == "fragment" {
			fragments = append(fragments, l)
		}
	}
	same("leaks (detached Fragments)", fragments, b.Leaks)
	if len(fragments) == 0 {
		t.Error("the scene planted no detached Fragment")
	}
	for _, s := range []string{"leaks", "duplicate_strings", "bitmaps"} {
		if b.Unavailable[s] == "" {
			t.Errorf("heap graph: %s not said unavailable: %v", s, b.Unavailable)
		}
	}
	if len(e.Duplicates) == 0 || len(a.DuplicateStrings) == 0 || len(b.DuplicateStrings) != 0 {
		t.Errorf("duplicate strings: HPROF %d, heap graph %d", len(a.DuplicateStrings), len(b.DuplicateStrings))
	}

	// path: the leak's path, the same from both forms.
	id := fragments[0].ID
	pa, err := runApp(t, "hprof", "path", "--json", hf, id)
	if err != nil {
		t.Fatal(err)
	}
	pb, err := runApp(t, "hprof", "path", "--json", gf, id)
	if err != nil || pa != pb {
		t.Errorf("path %s: HPROF\n%s\nheap graph (%v)\n%s", id, pa, err, pb)
	}
	// diff: the two forms of one heap differ in nothing.
	if out, err := runApp(t, "hprof", "diff", "--json", hf, gf); err != nil || strings.TrimSpace(out) != `{"diff":[]}` && strings.TrimSpace(out) != "{\n  \"diff\": []\n}" {
		t.Errorf("diff of the two forms: %v\n%s", err, out)
	}
	// text report
	if out, err := runApp(t, "hprof", "analyze", gf); err != nil || !strings.Contains(out, "com.example.mail") {
		t.Errorf("text: %v\n%s", err, out)
	}

	// Two processes in one trace.
	other, _, _, err := heapgraph.Scene(scene.Options{Seed: 4, API: 31}, heapgraph.WriterOptions{API: 31, PID: 5151})
	if err != nil {
		t.Fatal(err)
	}
	two := filepath.Join(dir, "two.pftrace")
	if err := os.WriteFile(two, append(append([]byte(nil), graph...), other...), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runApp(t, "hprof", "analyze", "--json", two)
	if ExitStatus(err) != 2 || !strings.Contains(err.Error(), "pid 4242") || !strings.Contains(err.Error(), "pid 5151") || !strings.Contains(err.Error(), "--pid") {
		t.Errorf("two dumps: status %d, %v\n%s", ExitStatus(err), err, out)
	}
	if r := report(two, "--pid", "5151"); r.Objects == 0 || r.Version != heapfile.Version {
		t.Errorf("--pid 5151: %d objects, %q", r.Objects, r.Version)
	}
	if _, err := runApp(t, "hprof", "analyze", "--json", "--pid", "77", two); err == nil || !strings.Contains(err.Error(), "no Java heap graph") {
		t.Errorf("--pid 77: %v", err)
	}
}
