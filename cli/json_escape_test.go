package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// c1Bidi is what encoding/json writes raw: a C1 CSI, NEL, a right-to-left
// override and a first-strong isolate.
const c1Bidi = "\u009b2J\u0085\u202egpj.exe\u2068"

func checkJSONEscaped(t *testing.T, what, out string) {
	t.Helper()
	if !strings.Contains(out, `\u009b2J\u0085\u202egpj.exe\u2068`) {
		t.Fatalf("%s: the hostile name is not in the output escaped; the test proves nothing:\n%s", what, out)
	}
	if strings.ContainsAny(out, "\u009b\u0085\u202e\u2068") {
		t.Fatalf("%s: C1 or bidirectional controls written raw: %q", what, out)
	}
}

// Issue 37: every --json output escapes U+0080–U+009F and the bidirectional
// controls (one writer, safetext.JSON): list (headless.WriteJSON) and a
// streamed thread-dump report (anr).
func TestJSONOutputsEscapeC1AndBidi(t *testing.T) {
	leakcheck.Check(t)
	d := sim.NewDevice("t")
	d.Add(sim.NewVM(sim.VMSpec{PID: 6120, App: "com.evil" + c1Bidi, Family: sim.ART, Seed: 3}))
	defer d.Close()
	base := freePorts(t, 1)
	if _, err := d.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	out, err := runApp(t, "list", "--adb", "off", "--scan", fmt.Sprint(base), "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkJSONEscaped(t, "list --json", out)
	var v []map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil || len(v) != 1 || v[0]["app"] != "com.evil"+c1Bidi {
		t.Fatalf("%v %v", err, v)
	}

	src, err := os.ReadFile(anrTestdata("spec_example_art10.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(t.TempDir(), "anr.txt")
	if err := os.WriteFile(dump, []byte(strings.Replace(string(src), `"main" prio=5`, `"main`+c1Bidi+`" prio=5`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = runApp(t, "anr", dump, "--json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkJSONEscaped(t, "anr --json", out)
}
