package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/analysis"
	"github.com/ddmtui/ddmtui/internal/heapgen"
	"github.com/ddmtui/ddmtui/internal/leakcheck"
	"github.com/ddmtui/ddmtui/sim"
)

func writeScenario(t *testing.T, dir, name string, o heapgen.ScenarioOptions) (string, *heapgen.Scenario) {
	t.Helper()
	var buf bytes.Buffer
	sc, err := heapgen.AndroidScenario(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, sc
}

// `hprof analyze --json` prints the spec's shape with the planted leaks.
func TestHprofAnalyzeJSON(t *testing.T) {
	file, sc := writeScenario(t, t.TempDir(), "a.hprof", heapgen.ScenarioOptions{})
	out, err := runApp(t, "hprof", "analyze", "--json", "--top", "3", file)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var r struct {
		Heaps   []map[string]any `json:"heaps"`
		Classes []map[string]any `json:"classes"`
		Doms    []map[string]any `json:"dominators"`
		Leaks   []struct {
			ID, Class, Kind, Reason string
			Retained                uint64
			Path                    []struct {
				Class, ID string
				Field     *string
			}
		} `json:"leaks"`
		Dups    []map[string]any `json:"duplicate_strings"`
		Bitmaps []map[string]any `json:"bitmaps"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(r.Doms) != 3 || len(r.Leaks) != 3 || len(r.Dups) != 2 || len(r.Bitmaps) != 3 || len(r.Heaps) != 2 {
		t.Fatalf("counts: %d dominators, %d leaks, %d dups, %d bitmaps, %d heaps", len(r.Doms), len(r.Leaks), len(r.Dups), len(r.Bitmaps), len(r.Heaps))
	}
	l := r.Leaks[0]
	if l.ID != fmt.Sprintf("%#x", sc.LeakedStatic) || l.Kind != "activity" || l.Reason != "destroyed" || l.Retained != 1120 || len(l.Path) != 4 {
		t.Fatalf("first leak %+v", l)
	}
	var fields []string
	for _, s := range l.Path {
		if s.Field == nil {
			fields = append(fields, "null")
		} else {
			fields = append(fields, *s.Field)
		}
	}
	if strings.Join(fields, ",") != "null,sInstance,mListener,this$0" {
		t.Errorf("path fields %v", fields)
	}
}

// Piped, `hprof analyze` writes the text report; a terminal gets the
// viewer hook.
func TestHprofAnalyzeText(t *testing.T) {
	file, sc := writeScenario(t, t.TempDir(), "a.hprof", heapgen.ScenarioOptions{})
	out, err := runApp(t, "hprof", "analyze", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"JAVA PROFILE 1.0.3, 4-byte ids, 67 objects",
		"zygote             14 objects",
		"Leaks (3)",
		fmt.Sprintf("com.example.mail.MainActivity %#x: activity destroyed, retains 1.1 KiB", sc.LeakedStatic),
		fmt.Sprintf("class com.example.mail.net.ConnectivityMonitor %#x (GC root)", sc.MonitorClass),
		fmt.Sprintf("└─ sInstance → com.example.mail.net.ConnectivityMonitor %#x", sc.Monitor),
		"   └─ this$0 → com.example.mail.MainActivity",
		`20 B wasted      4 ×  "INBOX"`,
		"64 x 32    20 B of png pixels (dumpData)",
		"10 x 10    pixels not in the dump",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	var viewed string
	cmd := newHprofAnalyzeCommand(func(c *cli.Context, f, baseline string) error {
		viewed = fmt.Sprintf("%s %q", f, baseline)
		return nil
	}, func(io.Writer) bool { return true })
	app := &cli.App{Commands: []*cli.Command{cmd}, Writer: new(bytes.Buffer)}
	if err := app.Run([]string{"x", "analyze", "--top", "9", file}); err != nil {
		t.Fatal(err)
	}
	if viewed != file+` ""` {
		t.Errorf("viewer got %q", viewed)
	}
}

// Class names and strings from the dump reach the terminal escaped.
func TestHprofAnalyzeEscapes(t *testing.T) {
	var buf bytes.Buffer
	b, err := heapgen.New(&buf, 4, "")
	if err != nil {
		t.Fatal(err)
	}
	evil := b.Class("com.evil.\x1b[31mRed[yellow]", nil)
	x := b.Instance(evil, nil)
	b.Root(hprof.SubRootJNIGlobal, x)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "evil.hprof")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runApp(t, "hprof", "analyze", file)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "\x1b") || !strings.Contains(out, "com.evil.") {
		t.Errorf("escape sequence reached the terminal:\n%q", out)
	}
}

// `hprof path` gives the spec's {"paths": ...}; text names each hop.
func TestHprofPath(t *testing.T) {
	file, sc := writeScenario(t, t.TempDir(), "a.hprof", heapgen.ScenarioOptions{})
	out, err := runApp(t, "hprof", "path", "--json", file, fmt.Sprintf("%#x", sc.LeakedHandler), fmt.Sprint(sc.WeakHeld))
	if err != nil {
		t.Fatal(err)
	}
	var ps analysis.PathsJSON
	if err := json.Unmarshal([]byte(out), &ps); err != nil {
		t.Fatal(err)
	}
	if len(ps.Paths) != 2 || len(ps.Paths[0].Path) != 5 || *ps.Paths[0].Path[4].Field != "this$0" ||
		ps.Paths[0].Path[0].Field != nil || ps.Paths[1].Reachable || len(ps.Paths[1].Path) != 0 {
		t.Fatalf("paths %s", out)
	}
	out, err = runApp(t, "hprof", "path", file, fmt.Sprintf("%#x", sc.LeakedHandler))
	if err != nil || !strings.Contains(out, "depth 5") || !strings.Contains(out, "└─ mMessages → android.os.Message") {
		t.Fatalf("%v\n%s", err, out)
	}
	if _, err := runApp(t, "hprof", "path", file, "0x99999999"); err == nil || !strings.Contains(err.Error(), "no object 0x99999999") {
		t.Errorf("unknown id: %v", err)
	}
	if _, err := runApp(t, "hprof", "path", file, "zz"); err == nil {
		t.Error("bad id accepted")
	}
}

// `hprof diff` by class: a dump against itself changes nothing; against
// a dump that lost objects, the classes shrink.
func TestHprofDiff(t *testing.T) {
	dir := t.TempDir()
	a, _ := writeScenario(t, dir, "a.hprof", heapgen.ScenarioOptions{})
	b, _ := writeScenario(t, dir, "b.hprof", heapgen.ScenarioOptions{NoHeaps: true})
	out, err := runApp(t, "hprof", "diff", "--json", a, b)
	if err != nil || strings.TrimSpace(out) != `{
  "diff": []
}` {
		t.Fatalf("%v\n%s", err, out)
	}
	var buf bytes.Buffer
	g, _ := heapgen.New(&buf, 4, "")
	c := g.Class("com.example.mail.MainActivity", nil)
	c.InstanceSize = 120
	g.Instance(c, nil)
	g.Close()
	small := filepath.Join(dir, "small.hprof")
	os.WriteFile(small, buf.Bytes(), 0o644)
	out, err = runApp(t, "hprof", "diff", "--json", a, small)
	if err != nil {
		t.Fatal(err)
	}
	var d analysis.DiffJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	// The small dump has 1 class object (statics 0) and one MainActivity.
	found := false
	for _, r := range d.Diff {
		if r.Name == "com.example.mail.MainActivity" {
			found = r.InstancesDelta == -4 && r.ShallowDelta == -480 && r.RetainedDelta == -(1120+120+136)
		}
	}
	if !found || d.Diff[0].ShallowDelta < d.Diff[len(d.Diff)-1].ShallowDelta {
		t.Errorf("diff %s", out)
	}
	out, err = runApp(t, "hprof", "diff", a, small)
	if err != nil || !strings.Contains(out, "-480") || !strings.Contains(out, "com.example.mail.MainActivity") {
		t.Errorf("%v\n%s", err, out)
	}
	// On a terminal the viewer opens on NEW with OLD as its baseline;
	// --json stays JSON.
	var viewed string
	cmd := newHprofDiffCommand(func(c *cli.Context, f, baseline string) error {
		viewed = f + " " + baseline
		return nil
	}, func(io.Writer) bool { return true })
	app := &cli.App{Commands: []*cli.Command{cmd}, Writer: new(bytes.Buffer)}
	if err := app.Run([]string{"x", "diff", a, small}); err != nil || viewed != small+" "+a {
		t.Errorf("viewer got %q (%v)", viewed, err)
	}
	viewed = ""
	if err := app.Run([]string{"x", "diff", "--json", a, small}); err != nil || viewed != "" {
		t.Errorf("--json opened the viewer (%q, %v)", viewed, err)
	}
}

// Bad input: the error names the file and the offset, once.
func TestHprofAnalyzeErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.hprof")
	data := append([]byte(hprof.VersionAndroid), 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0x1C, 0, 0, 0, 0, 0, 0, 0, 1, 0x77)
	os.WriteFile(bad, data, 0o644)
	_, err := runApp(t, "hprof", "analyze", bad)
	if err == nil || !strings.Contains(err.Error(), "bad.hprof: heap dump sub-record at offset 40: unknown tag 0x77") {
		t.Errorf("error %v", err)
	}
	if _, err := runApp(t, "hprof", "analyze"); err == nil {
		t.Error("no file accepted")
	}
	if _, err := runApp(t, "hprof", "--pid", "1"); err == nil || err.Error() != `missing --output (see ddmtui hprof --help)` || ExitStatus(err) != 2 {
		t.Errorf("dump without -o: %v", err)
	}
}

// `hprof --pid N -o FILE --analyze` dumps a simulated VM, writes the
// converted file, and analyses the dump as the VM sent it: its heaps, and
// no false leak from the HistoryActivity only ROOT UNREACHABLE names (the
// converted file roots it). Nothing else is left beside FILE.
func TestHprofDumpThenAnalyze(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewVM(sim.VMSpec{PID: 6111, App: "com.example.dump", Package: "com.example.dump", Family: sim.ART, HeapBytes: 1 << 20, Seed: 31})
	d := sim.NewDevice("t")
	d.Add(dev)
	defer d.Close()
	base := freePorts(t, 1)
	if _, err := d.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "a.hprof")
	text, err := runApp(t, "hprof", "--adb", "off", "--scan", fmt.Sprintf("%d-%d", base, base), "--pid", "6111", "-o", out, "--analyze", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	i := strings.Index(text, "{")
	if !strings.Contains(text[:max(i, 0)], "wrote "+out) || i < 0 {
		t.Fatalf("output:\n%s", text)
	}
	var r analysis.Report
	if err := json.Unmarshal([]byte(text[i:]), &r); err != nil {
		t.Fatalf("%v\n%s", err, text[i:])
	}
	h, err := analysis.Open(out, analysis.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if r.Objects == 0 || r.Objects != h.NumNodes() || r.Version != hprof.VersionAndroid || len(r.Classes) == 0 || h.Version() != hprof.VersionStandard {
		t.Errorf("report: %d objects (file %d), version %q (file %q), %d classes", r.Objects, h.NumNodes(), r.Version, h.Version(), len(r.Classes))
	}
	var heaps []string
	for _, hr := range r.Heaps {
		heaps = append(heaps, hr.Name)
	}
	if !slices.Contains(heaps, "app") {
		t.Errorf("heaps %q: the analysis did not read Android's dump", heaps)
	}
	const history = "com.example.dump.HistoryActivity"
	var leaks []string
	for _, l := range r.Leaks {
		leaks = append(leaks, l.Class)
	}
	if len(leaks) == 0 || slices.Contains(leaks, history) {
		t.Errorf("leaks %q", leaks)
	}
	var converted []string
	for _, l := range h.Leaks() {
		converted = append(converted, h.ClassName(l.Node))
	}
	if len(converted) != len(leaks)+1 || !slices.Contains(converted, history) {
		t.Errorf("the converted file's leaks %q, the report's %q", converted, leaks)
	}
	if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) != 1 {
		t.Errorf("%d entries beside the output, want it alone", len(ents))
	}
}

// `hprof convert IN OUT` writes what hprof-conv writes, refuses a dump
// that is standard already and leaves OUT alone on failure.
func TestHprofConvert(t *testing.T) {
	dir := t.TempDir()
	in, _ := writeScenario(t, dir, "a.hprof", heapgen.ScenarioOptions{})
	raw, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := hprof.ToStandard(raw)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "std.hprof")
	text, err := runApp(t, "hprof", "convert", in, out)
	if err != nil || !strings.Contains(text, "wrote "+out+": ") || !strings.Contains(text, hprof.VersionStandard) {
		t.Fatalf("%v\n%s", err, text)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
		t.Errorf("converted %d bytes, hprof-conv's form is %d", len(got), len(want))
	}
	again := filepath.Join(dir, "again.hprof")
	if _, err := runApp(t, "hprof", "convert", out, again); !errors.Is(err, hprof.ErrNotAndroid) {
		t.Errorf("converting a standard dump: %v", err)
	}
	if _, err := runApp(t, "hprof", "convert", filepath.Join(dir, "none.hprof"), again); err == nil || !strings.Contains(err.Error(), "none.hprof") {
		t.Errorf("a missing input: %v", err)
	}
	if _, err := runApp(t, "hprof", "convert", in); err == nil {
		t.Error("convert without OUT")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d entries, want IN and OUT", len(ents))
	}
}

// A dump cut short is analysed up to its last complete record and says so.
func TestHprofAnalyzeTruncated(t *testing.T) {
	dir := t.TempDir()
	full, _ := writeScenario(t, dir, "a.hprof", heapgen.ScenarioOptions{})
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.hprof")
	if err := os.WriteFile(cut, data[:len(data)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runApp(t, "hprof", "analyze", cut)
	if err != nil || !strings.Contains(out, "the file is cut short: analysed up to offset ") {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err = runApp(t, "hprof", "analyze", "--json", cut)
	if err != nil {
		t.Fatal(err)
	}
	var r analysis.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !r.Truncated || r.TruncatedAt <= 0 || r.TruncatedAt > int64(len(data)-100) || r.Objects == 0 {
		t.Errorf("truncated %v at %d of %d bytes, %d objects", r.Truncated, r.TruncatedAt, len(data)-100, r.Objects)
	}
}
