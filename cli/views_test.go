package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/viewtree"
)

type viewsJSON struct {
	PID     int `json:"pid"`
	Windows []struct {
		Name      string         `json:"name"`
		ViewCount int            `json:"view_count"`
		Tree      map[string]any `json:"tree"`
	} `json:"windows"`
}

// ddmtui views against simulated apps: the JSON shape of the issue, the
// text tree, captures, profile, invoke and set-layout (with the change
// seen in the next dump), clear FAIL errors, a VM with no windows.
func TestViewsCommand(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("t")
	dev.Add(sim.NewVM(sim.VMSpec{PID: 1922, App: "com.example.notes", Package: "com.example.notes", Family: sim.ART, API: 34, Seed: 5}))
	dev.Add(sim.NewVM(sim.VMSpec{PID: 1923, App: "com.example.svc", Family: sim.ART, API: 30, NoWindows: true, Seed: 6}))
	defer dev.Close()
	base := freePorts(t, 2)
	if _, err := dev.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		return runApp(t, append([]string{"views", "--adb", "off", "--scan", fmt.Sprintf("%d-%d", base, base+1)}, args...)...)
	}
	out, err := run("--pid", "1922", "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var v viewsJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if v.PID != 1922 || len(v.Windows) == 0 || !strings.HasPrefix(v.Windows[0].Name, "com.example.notes/com.example.notes.MainActivity/android.view.ViewRootImpl@") {
		t.Fatalf("%+v", v)
	}
	root := v.Windows[0].Tree
	if root["class"] != "com.android.internal.policy.DecorView" || root["id"] != nil || root["text"] != nil ||
		root["width"] != 1080.0 || root["visibility"] != "VISIBLE" || root["alpha"] != 1.0 || v.Windows[0].ViewCount < 50 {
		t.Errorf("root %v", root)
	}
	if _, ok := root["children"].([]any); !ok {
		t.Errorf("children %T", root["children"])
	}
	for _, k := range []string{"hash", "left", "top", "height"} {
		if _, ok := root[k]; !ok {
			t.Errorf("no %q", k)
		}
	}

	out, err = run("--pid", "1922", "--window", "MainActivity")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := regexp.MustCompile(`android\.widget\.TextView@[0-9a-f]+ id/clock \[760,40 272x88\] "12:`).FindString(out)
	if m == "" || !strings.Contains(out, `id/label [208,8 800x96] "Item 1\nsecond line"`) || !strings.Contains(out, "id/empty [340,1000 400x60] INVISIBLE") {
		t.Fatalf("text tree:\n%s", out)
	}
	clock := strings.Fields(m)[0]

	png1 := filepath.Join(t.TempDir(), "clock.png")
	if out, err := run("--pid", "1922", "--capture", clock, "-o", png1); err != nil || !strings.Contains(out, "wrote "+png1) {
		t.Fatalf("capture: %v\n%s", err, out)
	}
	data, _ := os.ReadFile(png1)
	if _, err := png.Decode(bytes.NewReader(data)); err != nil {
		t.Errorf("capture is not a PNG: %v", err)
	}
	if out, err := run("--pid", "1922", "--profile", clock); err != nil || !strings.Contains(out, "measure ms") || !strings.Contains(out, clock) {
		t.Fatalf("profile: %v\n%s", err, out)
	}
	if out, err := run("--pid", "1922", "--invoke", clock, "setVisibility", "I:4"); err != nil || !strings.Contains(out, "invoked setVisibility on "+clock+": void") {
		t.Fatalf("invoke: %v\n%s", err, out)
	}
	if out, err := run("--pid", "1922", "--set-layout", clock, "width", "300"); err != nil || !strings.Contains(out, "set width = 300") {
		t.Fatalf("set-layout: %v\n%s", err, out)
	}
	out, _ = run("--pid", "1922")
	if !regexp.MustCompile(regexp.QuoteMeta(clock) + ` id/clock \[760,40 300x88\] INVISIBLE`).MatchString(out) {
		t.Errorf("after invoke and set-layout:\n%s", out)
	}
	if out, err := run("--pid", "1922", "--theme"); err != nil || !strings.Contains(out, "android:colorPrimary = #ff6200ee") {
		t.Errorf("theme: %v\n%s", err, out)
	}
	layers := t.TempDir()
	if out, err := run("--pid", "1922", "--window", "MainActivity", "--layers", layers); err != nil || !strings.Contains(out, "1080x2400") {
		t.Errorf("layers: %v\n%s", err, out)
	}
	pngs, _ := filepath.Glob(filepath.Join(layers, "*.png"))
	if len(pngs) < 40 {
		t.Errorf("%d layer PNGs", len(pngs))
	} else if data, _ := os.ReadFile(pngs[0]); len(data) == 0 {
		t.Error("empty layer PNG")
	} else if _, err := png.Decode(bytes.NewReader(data)); err != nil {
		t.Errorf("layer 0: %v", err)
	}
	for _, tc := range []struct {
		args []string
		want error
	}{
		{[]string{"--invoke", clock, "frobnicate"}, viewtree.ErrNoSuchMethod},
		{[]string{"--capture", "android.widget.TextView@0", "-o", png1}, viewtree.ErrNoSuchView},
		{[]string{"--set-layout", clock, "gravity", "1"}, viewtree.ErrCallFailed},
	} {
		_, err := run(append([]string{"--pid", "1922"}, tc.args...)...)
		if !errors.Is(err, tc.want) {
			t.Errorf("%v: %v, want %v", tc.args, err, tc.want)
		}
	}
	if _, err := run("--pid", "1923"); !errors.Is(err, viewtree.ErrNoWindows) || !strings.Contains(err.Error(), "no windows") {
		t.Errorf("service VM: %v", err)
	}
}

// snapshot adds view trees only with --views.
func TestSnapshotViewsOnRequest(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("t")
	dev.Add(sim.NewVM(sim.VMSpec{PID: 1930, App: "com.example.a", Family: sim.ART, API: 34, Seed: 5}))
	dev.Add(sim.NewVM(sim.VMSpec{PID: 1931, App: "java", Family: sim.JVM, Seed: 6}))
	defer dev.Close()
	base := freePorts(t, 2)
	if _, err := dev.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	scan := fmt.Sprintf("%d-%d", base, base+1)
	for _, views := range []bool{false, true} {
		args := []string{"snapshot", "--adb", "off", "--scan", scan, "--wait", "1s"}
		if views {
			args = append(args, "--views")
		}
		out, err := runApp(t, args...)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var entries []map[string]any
		if err := json.Unmarshal([]byte(out), &entries); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			v, has := e["views"]
			switch {
			case !views && has:
				t.Errorf("views without --views: %v", e["pid"])
			case views && e["pid"] == 1930.0:
				vm, _ := v.(map[string]any)
				if vm == nil || vm["view_count"].(float64) < 50 || len(vm["windows"].([]any)) == 0 {
					t.Errorf("views of 1930: %v", v)
				}
			case views && e["pid"] == 1931.0 && has:
				t.Errorf("a JVM has views: %v", v)
			}
		}
	}
}
