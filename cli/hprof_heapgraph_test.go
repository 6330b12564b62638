package cli

import (
	"bytes"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

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

	// --analyze: saved, and the analysis says it is not in this build.
	an := filepath.Join(dir, "analyze.pftrace")
	text, err := runApp(t, "hprof", "--pid", "7001", "-o", an, "--analyze", "--adb", srv.Addr(), "--scan", "off", "--wait", "20s")
	if err == nil || !strings.Contains(err.Error(), "does not analyse heap graphs yet") {
		t.Errorf("--analyze: %v\n%s", err, text)
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
