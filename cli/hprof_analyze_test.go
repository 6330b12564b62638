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

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// writeScene writes the planted scene of o to dir/name and returns the
// file and the answers worked out while planting.
func writeScene(t *testing.T, dir, name string, o scene.Options) (string, *scene.Expect) {
	t.Helper()
	data, e, err := scene.Build(o)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, e
}

// expectedLeak is the planted leak with the given JSON id.
func expectedLeak(t *testing.T, e *scene.Expect, id string) scene.Leak {
	t.Helper()
	for _, l := range e.Leaks {
		if fmt.Sprintf("%#x", uint64(l.ID)) == id {
			return l
		}
	}
	t.Fatalf("%s is no planted leak", id)
	return scene.Leak{}
}

// `hprof analyze --json` prints the spec's shape with the planted leaks.
func TestHprofAnalyzeJSON(t *testing.T) {
	file, e := writeScene(t, t.TempDir(), "a.hprof", scene.Options{})
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
	if len(r.Doms) != 3 || len(r.Leaks) != len(e.Leaks) || len(r.Dups) != min(3, len(e.Duplicates)) || len(r.Bitmaps) != len(e.Bitmaps) ||
		len(r.Heaps) != len(e.Heaps) || len(e.Leaks) < 3 {
		t.Fatalf("counts: %d dominators, %d leaks, %d dups, %d bitmaps, %d heaps", len(r.Doms), len(r.Leaks), len(r.Dups), len(r.Bitmaps), len(r.Heaps))
	}
	// Every leak as planted, with its only shortest path.
	for _, l := range r.Leaks {
		w := expectedLeak(t, e, l.ID)
		if l.Class != w.Class || l.Kind != w.Kind || l.Reason != w.Reason || l.Retained != w.Retained || len(l.Path) != len(w.Path) {
			t.Errorf("leak %+v, planted %+v", l, w)
			continue
		}
		for k, s := range l.Path {
			field := ""
			if s.Field != nil {
				field = *s.Field
			}
			if (s.Field == nil) != (k == 0) || field != w.Path[k].Field || s.ID != fmt.Sprintf("%#x", uint64(w.Path[k].ID)) || s.Class != w.Path[k].Class {
				t.Errorf("leak %s hop %d: %s %s %q, planted %+v", l.ID, k, s.Class, s.ID, field, w.Path[k])
			}
		}
	}
}

// Piped, `hprof analyze` writes the text report; a terminal gets the
// viewer hook.
func TestHprofAnalyzeText(t *testing.T) {
	file, e := writeScene(t, t.TempDir(), "a.hprof", scene.Options{API: 35, BitmapFormat: "png"})
	out, err := runApp(t, "hprof", "analyze", file)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		fmt.Sprintf("JAVA PROFILE 1.0.3, 4-byte ids, %d objects", e.Nodes),
		fmt.Sprintf("Leaks (%d)", len(e.Leaks)),
		fmt.Sprintf("Bitmaps (%d)", len(e.Bitmaps)),
	}
	for _, h := range e.Heaps {
		want = append(want, fmt.Sprintf("  %-10s %10d objects", h.Name, h.Objects))
	}
	for _, l := range e.Leaks {
		want = append(want, fmt.Sprintf("%s %#x: %s %s, retains ", l.Class, uint64(l.ID), l.Kind, l.Reason))
		for _, hop := range l.Path[1:] {
			want = append(want, fmt.Sprintf("└─ %s → %s %#x", hop.Field, hop.Class, uint64(hop.ID)))
		}
	}
	for _, d := range e.Duplicates {
		line := fmt.Sprintf("%d B wasted %6d ×  %q", d.Wasted, d.Count, d.Value)
		if d.Wasted == 0 { // a group that wastes nothing is left out
			if strings.Contains(out, line) {
				t.Errorf("report lists %q", line)
			}
			continue
		}
		want = append(want, line)
	}
	for _, b := range e.Bitmaps {
		px := "pixels not in the dump"
		if b.PixelsInDump {
			px = fmt.Sprintf("%d B of png pixels (dumpData)", b.PixelBytes)
		}
		want = append(want, fmt.Sprintf("%#x", uint64(b.ID)), px)
	}
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("report lacks %q:\n%s", w, out)
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
	b, err := scene.NewBuilder(&buf, 4, "")
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
	file, e := writeScene(t, t.TempDir(), "a.hprof", scene.Options{})
	// The leak with the longest path (through a Handler's messages), and
	// an object nothing holds, in decimal.
	deep := e.Leaks[0]
	for _, l := range e.Leaks {
		if len(l.Path) > len(deep.Path) {
			deep = l
		}
	}
	n := len(deep.Path)
	out, err := runApp(t, "hprof", "path", "--json", file, fmt.Sprintf("%#x", uint64(deep.ID)), fmt.Sprint(uint64(e.Unreachable[0].ID)))
	if err != nil {
		t.Fatal(err)
	}
	var ps heapdump.PathsJSON
	if err := json.Unmarshal([]byte(out), &ps); err != nil {
		t.Fatal(err)
	}
	if n < 5 || len(ps.Paths) != 2 || len(ps.Paths[0].Path) != n || *ps.Paths[0].Path[n-1].Field != deep.Path[n-1].Field ||
		ps.Paths[0].Path[0].Field != nil || ps.Paths[1].Reachable || len(ps.Paths[1].Path) != 0 {
		t.Fatalf("paths %s", out)
	}
	out, err = runApp(t, "hprof", "path", file, fmt.Sprintf("%#x", uint64(deep.ID)))
	if err != nil || !strings.Contains(out, fmt.Sprintf("depth %d", n)) || !strings.Contains(out, fmt.Sprintf("└─ %s → %s", deep.Path[2].Field, deep.Path[2].Class)) {
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
	a, e := writeScene(t, dir, "a.hprof", scene.Options{})
	b, _ := writeScene(t, dir, "b.hprof", scene.Options{})
	out, err := runApp(t, "hprof", "diff", "--json", a, b)
	if err != nil || strings.TrimSpace(out) != `{
  "diff": []
}` {
		t.Fatalf("%v\n%s", err, out)
	}
	var buf bytes.Buffer
	g, _ := scene.NewBuilder(&buf, 4, "")
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
	var d heapdump.DiffJSON
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	// The small dump has 1 class object (statics 0) and one unreachable
	// MainActivity of 120 bytes: A's MainActivity row, less that one.
	ha, err := heapdump.Open(a, heapdump.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ha.Close()
	var retained int64
	for _, r := range ha.Histogram() {
		if r.Name == "com.example.mail.MainActivity" {
			retained = int64(r.Retained)
		}
	}
	main := e.ClassRow("com.example.mail.MainActivity")
	shallowDelta := 120 - int64(main.Shallow)
	found := false
	for _, r := range d.Diff {
		if r.Name == "com.example.mail.MainActivity" {
			found = r.InstancesDelta == 1-int64(main.Instances) && r.ShallowDelta == shallowDelta && r.RetainedDelta == -retained
		}
	}
	if !found || retained == 0 || shallowDelta == 0 || d.Diff[0].ShallowDelta < d.Diff[len(d.Diff)-1].ShallowDelta {
		t.Errorf("diff %s", out)
	}
	out, err = runApp(t, "hprof", "diff", a, small)
	if err != nil || !strings.Contains(out, fmt.Sprint(shallowDelta)) || !strings.Contains(out, "com.example.mail.MainActivity") {
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
	var r heapdump.Report
	if err := json.Unmarshal([]byte(text[i:]), &r); err != nil {
		t.Fatalf("%v\n%s", err, text[i:])
	}
	h, err := heapdump.Open(out, heapdump.Options{})
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
	for _, l := range h.Leaks().Find() {
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
	in, _ := writeScene(t, dir, "a.hprof", scene.Options{})
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
	full, _ := writeScene(t, dir, "a.hprof", scene.Options{})
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
	var r heapdump.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if !r.Truncated || r.TruncatedAt <= 0 || r.TruncatedAt > int64(len(data)-100) || r.Objects == 0 {
		t.Errorf("truncated %v at %d of %d bytes, %d objects", r.Truncated, r.TruncatedAt, len(data)-100, r.Objects)
	}
}

// `hprof --pid N -o F --analyze --mapping M` labels its mapping messages
// "hprof:", not "hprof hprof:".
func TestHprofDumpAnalyzeMappingLabel(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewVM(sim.VMSpec{PID: 6112, App: "com.example.dump", Package: "com.example.dump", Family: sim.ART, HeapBytes: 1 << 20, Seed: 32})
	d := sim.NewDevice("t")
	d.Add(dev)
	defer d.Close()
	base := freePorts(t, 1)
	if _, err := d.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mp := filepath.Join(dir, "mapping.txt")
	if err := os.WriteFile(mp, []byte("not a mapping line\ncom.example.shop.Item -> a.b:\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := runAppSplit(t, "hprof", "--adb", "off", "--scan", fmt.Sprintf("%d-%d", base, base), "--pid", "6112",
		"-o", filepath.Join(dir, "a.hprof"), "--analyze", "--json", "--mapping", mp)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "hprof: ") || strings.Contains(stderr, "hprof hprof") {
		t.Errorf("stderr %q", stderr)
	}
}
