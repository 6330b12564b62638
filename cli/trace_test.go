package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
	"github.com/ddmtui/ddmtui/trace"
)

func writeSynthTrace(t *testing.T, s trace.Synth) (string, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if _, err := s.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "app.trace")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, buf.Bytes()
}

// decodeFirstJSON decodes the JSON document at the start of out (warnings
// may follow it, as stderr shares runApp's buffer).
func decodeFirstJSON(t *testing.T, out string, v any) {
	t.Helper()
	if err := json.NewDecoder(strings.NewReader(out)).Decode(v); err != nil {
		t.Fatalf("output is not JSON: %v\n%.400s", err, out)
	}
}

func TestTraceJSONEqualsLibraryProfile(t *testing.T) {
	path, data := writeSynthTrace(t, trace.Synth{Seed: 21, Records: 5000, Threads: 3})
	p, err := trace.ReadProfile(bytes.NewReader(data), trace.BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := p.JSON()
	// Flags after FILE (as documented) and before it both work.
	for _, args := range [][]string{{"trace", path, "--json"}, {"trace", "--json", path}} {
		out, err := runApp(t, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		var got trace.JSONProfile
		decodeFirstJSON(t, out, &got)
		if !reflect.DeepEqual(&got, want) {
			t.Fatalf("%v: JSON differs from the library's profile", args)
		}
		if got.Version != 3 || got.Clock != "dual" || len(got.Threads) != 3 || len(got.Methods) == 0 || got.Methods[0].InclusiveWallUsec == nil {
			t.Fatalf("%v: unexpected document: version %d clock %s", args, got.Version, got.Clock)
		}
	}
}

func TestTraceJSONLeavesOutMissingClock(t *testing.T) {
	path, _ := writeSynthTrace(t, trace.Synth{Seed: 22, Records: 2000, Version: 2})
	out, err := runApp(t, "trace", path, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	decodeFirstJSON(t, out, &doc)
	methods := doc["methods"].([]any)
	m := methods[0].(map[string]any)
	for _, k := range []string{"id", "class", "method", "signature", "calls", "recursive_calls", "inclusive_cpu_usec", "exclusive_cpu_usec"} {
		if _, ok := m[k]; !ok {
			t.Errorf("method lacks %s", k)
		}
	}
	if strings.Contains(out, "wall_usec") {
		t.Error("a thread-cpu trace's JSON mentions wall time")
	}
}

func TestTraceExportsToFiles(t *testing.T) {
	path, _ := writeSynthTrace(t, trace.Synth{Seed: 23, Records: 4000, Threads: 2})
	dir := t.TempDir()
	folded, chrome, dot := filepath.Join(dir, "out.folded"), filepath.Join(dir, "out.json"), filepath.Join(dir, "out.dot")
	out, err := runApp(t, "trace", path, "--folded", folded, "--chrome", chrome, "--dot", dot, "--clock", "wall")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "warnings (unmatched-exit") {
		t.Errorf("no warning summary on stderr:\n%s", out)
	}
	b, _ := os.ReadFile(folded)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) < 20 || !strings.Contains(string(b), "\nmain (4242);") || !strings.Contains(string(b), "\nRenderThread (4249);") {
		t.Fatalf("folded output: %.300s", b)
	}
	for _, l := range lines {
		if i := strings.LastIndexByte(l, ' '); i < 0 || strings.Count(l[i:], ";") != 0 {
			t.Fatalf("bad folded line %q", l)
		}
	}
	var ct struct {
		TraceEvents []map[string]any `json:"traceEvents"`
	}
	b, _ = os.ReadFile(chrome)
	if err := json.Unmarshal(b, &ct); err != nil || len(ct.TraceEvents) < 100 {
		t.Fatalf("chrome output (%v): %.300s", err, b)
	}
	b, _ = os.ReadFile(dot)
	if !bytes.HasPrefix(b, []byte("digraph g {\n")) || !bytes.Contains(b, []byte("node0[label = \"[0] (toplevel)")) || !bytes.Contains(b, []byte(" -> ")) {
		t.Fatalf("dot output: %s", b)
	}
	// "-" writes to standard output.
	out, err = runApp(t, "trace", path, "--folded", "-")
	if err != nil || !strings.Contains(out, "\nmain (4242);") {
		t.Fatalf("--folded -: %v\n%.200s", err, out)
	}
}

func TestTraceSplitKeyAndDataFiles(t *testing.T) {
	path, data := writeSynthTrace(t, trace.Synth{Seed: 24, Records: 3000})
	rd, err := trace.NewReader(bytes.NewReader(data), trace.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	n := rd.Header().KeyBytes
	dir := t.TempDir()
	key, dat := filepath.Join(dir, "app.key"), filepath.Join(dir, "app.data")
	os.WriteFile(key, data[:n], 0o644)
	os.WriteFile(dat, data[n:], 0o644)
	whole, err := runApp(t, "trace", path, "--json")
	if err != nil {
		t.Fatal(err)
	}
	split, err := runApp(t, "trace", key, "--data", dat, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var a, b trace.JSONProfile
	decodeFirstJSON(t, whole, &a)
	decodeFirstJSON(t, split, &b)
	// Warning offsets differ (relative to the data file); the profile does not.
	a.Warnings, b.Warnings = nil, nil
	if !reflect.DeepEqual(a, b) {
		t.Fatal("split key/data profile differs from the single file's")
	}
	if !strings.Contains(split, "data offset") {
		t.Errorf("warnings do not name the data part:\n%s", split[strings.LastIndex(split, "}"):])
	}
}

func TestTraceErrors(t *testing.T) {
	dir := t.TempDir()
	notTrace := filepath.Join(dir, "notes.txt")
	os.WriteFile(notTrace, []byte("hello\n"), 0o644)
	empty := filepath.Join(dir, "empty.trace")
	os.WriteFile(empty, nil, 0o644)
	cpuOnly, _ := writeSynthTrace(t, trace.Synth{Seed: 25, Records: 100, Version: 2})
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"trace", "--json"}, "want one FILE, got 0"},
		{[]string{"trace", notTrace, notTrace, "--json"}, "want one FILE, got 2"},
		{[]string{"trace", filepath.Join(dir, "missing.trace"), "--json"}, "no such file"},
		{[]string{"trace", notTrace, "--json"}, "not a method trace"},
		{[]string{"trace", empty, "--json"}, "empty.trace: empty file"},
		{[]string{"trace", cpuOnly, "--dot", filepath.Join(dir, "x.dot"), "--clock", "wall"}, "has no wall clock"},
		{[]string{"trace", cpuOnly, "--json", "--clock", "sundial"}, "want thread-cpu or wall"},
		{[]string{"trace", cpuOnly, "--json", "--data", filepath.Join(dir, "missing.data")}, "--data"},
	}
	for _, c := range cases {
		out, err := runApp(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: got %v, want an error with %q\n%s", c.args, err, c.want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.dot")); err == nil {
		t.Error("a failed export left a file behind")
	}
}

func TestTraceWarningsAreEscaped(t *testing.T) {
	tr := &trace.Trace{Header: trace.Header{Version: 2, Threads: []trace.Thread{{ID: 1, Name: "main"}},
		Methods: []trace.Method{{ID: 4, Class: "evil\x1b[2J", Name: "m", Signature: "()V"}}},
		Events: []trace.Event{{Thread: 1, Action: trace.Exit, MethodID: 4, Time: [2]uint32{3}}}}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "evil.trace")
	os.WriteFile(path, b, 0o644)
	out, err := runApp(t, "trace", path, "--dot", filepath.Join(t.TempDir(), "g.dot"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsRune(out, 0x1b) || !strings.Contains(out, `evil\x1b[2J.m`) {
		t.Fatalf("warning output not escaped:\n%q", out)
	}
}

// TestTraceViewerInTmux runs the real binary in a terminal: without an
// export flag `ddmtui trace FILE` opens the viewer, keys work, q quits.
func TestTraceViewerInTmux(t *testing.T) {
	tmux := testpeer.Require(t, "tmux")
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "ddmtui")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	path, _ := writeSynthTrace(t, trace.Synth{Seed: 26, Records: 3000})
	socket := fmt.Sprintf("ddmtui-trace-test-%d", os.Getpid()) // t.TempDir's base (001) is the same in every run
	run := func(args ...string) string {
		out, err := exec.Command(tmux, append([]string{"-L", socket}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("new-session", "-d", "-s", "v", "-x", "120", "-y", "30", bin+" trace "+path+"; echo viewer-exited; sleep 30")
	t.Cleanup(func() { exec.Command(tmux, "-L", socket, "kill-server").Run() })
	waitFor := func(want string) string {
		t.Helper()
		var screen string
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if screen = run("capture-pane", "-p", "-t", "v"); strings.Contains(screen, want) {
				return screen
			}
		}
		t.Fatalf("screen never showed %q:\n%s", want, screen)
		return ""
	}
	waitFor("Incl CPU ms ▼")
	run("send-keys", "-t", "v", "t")
	waitFor("All threads")
	// Escape alone: followed at once by a key, a terminal reads it as Alt.
	run("send-keys", "-t", "v", "Escape")
	waitFor("Incl CPU ms ▼")
	run("send-keys", "-t", "v", "j", "Enter")
	waitFor("Callers (")
	run("send-keys", "-t", "v", "q")
	waitFor("viewer-exited")
}
