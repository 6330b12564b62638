package sim

import (
	"bytes"
	"errors"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
)

// perfettoCmd is the capture command of spec/perfetto-heapgraph.md, with
// the java_hprof config on stdin.
func perfettoCmd(sel, path string, background bool) string {
	cfg := `buffers { size_kb: 262144 fill_policy: DISCARD } data_sources { config { name: "android.java_hprof" java_hprof_config { ` +
		sel + ` } } } data_sources { config { name: "android.packages_list" } } duration_ms: 20000`
	cmd := "echo '" + cfg + "' | perfetto --txt -c - -o " + path
	if background {
		cmd += " -d"
	}
	return cmd + " 2>&1"
}

// TestPerfettoHeapGraph: from API 30 a profileable release app and a
// debuggable app are dumped as heap graphs of the planted scene; other
// processes are skipped without a word; Android 9–10 have perfetto without
// heap graphs, older releases no perfetto.
func TestPerfettoHeapGraph(t *testing.T) {
	d := NewDevice("t")
	defer d.Close()
	d.SetAPI(30)
	d.Add(NewVM(VMSpec{PID: 20, App: "com.example.release", Package: "com.example.release", Family: ART, Modern: true, Release: true, Threads: 2, Seed: 3}))
	d.Add(NewVM(VMSpec{PID: 21, App: "com.example.debug", Package: "com.example.debug", Family: ART, Modern: true, Threads: 2, Seed: 4}))
	d.Add(NewVM(VMSpec{PID: 22, App: "jvm", Family: JVM, Threads: 2, Seed: 5}))

	read := func(path string) (*heapgraph.Trace, error) {
		b, err := fs.ReadFile(d.Files(), strings.TrimPrefix(path, "/"))
		if err != nil {
			t.Fatal(err)
		}
		return heapgraph.Read(bytes.NewReader(b), heapgraph.Options{})
	}
	// Background: a pid, alive until the trace is written.
	out, code := shellOut(t, d, perfettoCmd("pid: 20", "/data/misc/perfetto-traces/a", true))
	pid, err := strconv.Atoi(strings.TrimSpace(out))
	if code != 0 || err != nil {
		t.Fatalf("perfetto -d: %d %q", code, out)
	}
	if out, code := shellOut(t, d, "kill -0 "+strconv.Itoa(pid)); code != 0 || out != "" {
		t.Fatalf("kill -0 of a running session: %d %q", code, out)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		out, code := shellOut(t, d, "kill -0 "+strconv.Itoa(pid))
		if code != 0 && strings.Contains(out, "No such process") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the session never ended")
		}
		time.Sleep(20 * time.Millisecond)
	}
	tr, err := read("/data/misc/perfetto-traces/a")
	if err != nil {
		t.Fatal(err)
	}
	g := tr.Dumps[0]
	if len(tr.Dumps) != 1 || g.PID != 20 || g.NumObjects() < 100 || tr.Skipped != 1 {
		t.Fatalf("trace: %v, skipped %d", g, tr.Skipped)
	}
	// The planted scene's MainActivity, by the minified name the release
	// build gives it.
	m, err := mapping.Parse([]byte(ReleaseMapping("com.example.release")))
	if err != nil {
		t.Fatal(err)
	}
	var leak bool
	for _, ty := range g.Types {
		leak = leak || (m.Type(ty.Name) == "com.example.release.MainActivity" && ty.Name != m.Type(ty.Name))
	}
	if !leak {
		t.Error("the heap graph does not hold the planted scene")
	}
	// Foreground, by process name: the debuggable app.
	if out, code := shellOut(t, d, perfettoCmd(`process_cmdline: "com.example.debug"`, "/data/misc/perfetto-traces/b", false)); code != 0 || out != "" {
		t.Fatalf("perfetto: %d %q", code, out)
	}
	if tr, err := read("/data/misc/perfetto-traces/b"); err != nil || tr.Dumps[0].PID != 21 {
		t.Fatalf("debuggable app: %v", err)
	}
	// A JVM and an unknown pid: a trace without a heap graph.
	for _, sel := range []string{"pid: 22", "pid: 99"} {
		shellOut(t, d, perfettoCmd(sel, "/data/misc/perfetto-traces/c", false))
		if _, err := read("/data/misc/perfetto-traces/c"); !errors.Is(err, heapgraph.ErrNoHeapGraph) {
			t.Errorf("%s: %v", sel, err)
		}
	}
	// Refusals.
	for cmd, want := range map[string]string{
		perfettoCmd("pid: 20", "/sdcard/x", false):                                        "Permission denied",
		"perfetto --txt -c /data/misc/perfetto-configs/x -o /data/misc/perfetto-traces/x": "Could not open",
		"echo 'nothing' | perfetto --txt -c - -o /data/misc/perfetto-traces/x":            "invalid",
		perfettoCmd("pid: 20", "/data/misc/perfetto-traces/x", false) + " --bogus":        "unrecognized option",
	} {
		if out, code := shellOut(t, d, cmd); code == 0 || !strings.Contains(out, want) {
			t.Errorf("%q: %d %q, want %q", cmd, code, out, want)
		}
	}
	// Android 10: perfetto, but no java_hprof.
	d.SetAPI(29)
	shellOut(t, d, perfettoCmd("pid: 20", "/data/misc/perfetto-traces/d", false))
	if _, err := read("/data/misc/perfetto-traces/d"); !errors.Is(err, heapgraph.ErrNoHeapGraph) {
		t.Errorf("API 29: %v", err)
	}
	d.SetAPI(27)
	if out, code := shellOut(t, d, perfettoCmd("pid: 20", "/data/misc/perfetto-traces/e", false)); code != 127 || !strings.Contains(out, "not found") {
		t.Errorf("API 27: %d %q", code, out)
	}
}

// TestPerfettoKilled: a background session killed before it ends writes
// nothing.
func TestPerfettoKilled(t *testing.T) {
	d := NewDevice("t")
	defer d.Close()
	d.SetAPI(34)
	d.Add(NewVM(VMSpec{PID: 20, App: "com.example.release", Package: "com.example.release", Family: ART, Modern: true, Release: true, Threads: 2, Seed: 3}))
	out, _ := shellOut(t, d, perfettoCmd("pid: 20", "/data/misc/perfetto-traces/k", true))
	if out, code := shellOut(t, d, "kill "+strings.TrimSpace(out)); code != 0 {
		t.Fatalf("kill: %d %q", code, out)
	}
	time.Sleep(2 * perfettoRunTime)
	if _, err := fs.Stat(d.Files(), "data/misc/perfetto-traces/k"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a killed session wrote its trace: %v", err)
	}
}
