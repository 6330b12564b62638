package cli

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// The sequences a hostile peer would put in a message: OSC 0 (window
// title), OSC 52 (clipboard), CSI 2J (clear screen), and C1 CSI.
const hostileEscapes = "\x1b]0;pwned\x07 \x1b]52;c;cm0gLXJmIH4=\x07 \x1b[2J \u009b2J"

func TestPrintErrorEscapes(t *testing.T) {
	var b bytes.Buffer
	PrintError(&b, errors.New("heap dump of pid 1: "+hostileEscapes+"\nsecond line\r\n"))
	out := b.String()
	if strings.ContainsAny(out, "\x1b\x07\r") || strings.ContainsRune(out, '\u009b') {
		t.Fatalf("escape sequences reached the terminal: %q", out)
	}
	want := `ddmtui: heap dump of pid 1: \x1b]0;pwned\x07 \x1b]52;c;cm0gLXJmIH4=\x07 \x1b[2J \u009b2J` + "\nsecond line\n"
	if out != want {
		t.Fatalf("printed %q\nwant    %q", out, want)
	}
}

// Issue 30 item 2: a VM's FAIL message reaches the error `hprof` returns,
// and what main prints of it holds no escape sequence.
func TestVMFailMessageEscapedOnStderr(t *testing.T) {
	leakcheck.Check(t)
	vm := sim.NewVM(sim.VMSpec{PID: 6111, App: "com.example.evil", Family: sim.ART, HeapDumpFails: "no " + hostileEscapes, Seed: 3})
	d := sim.NewDevice("t")
	d.Add(vm)
	defer d.Close()
	base := freePorts(t, 1)
	if _, err := d.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	_, err := runApp(t, "hprof", "--adb", "off", "--scan", fmt.Sprint(base), "--pid", "6111", "-o", filepath.Join(t.TempDir(), "x.hprof"))
	if err == nil || !strings.Contains(err.Error(), "\x1b]52;") {
		t.Fatalf("the VM's message is not in the error (%v); the test would prove nothing", err)
	}
	var b bytes.Buffer
	PrintError(&b, err)
	if strings.ContainsAny(b.String(), "\x1b\x07") || !strings.Contains(b.String(), `\x1b]52;c;`) {
		t.Fatalf("printed %q", b.String())
	}
}

// The progress lines of profile name the VM escaped too.
func TestProfileNamesVMEscaped(t *testing.T) {
	leakcheck.Check(t)
	vm := sim.NewVM(sim.VMSpec{PID: 6112, App: "evil" + hostileEscapes, Family: sim.ART, Seed: 4})
	d := sim.NewDevice("t")
	d.Add(vm)
	defer d.Close()
	base := freePorts(t, 1)
	if _, err := d.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	out, err := runApp(t, "profile", "--adb", "off", "--scan", fmt.Sprint(base), "--pid", "6112", "--duration", "100ms",
		"-o", filepath.Join(t.TempDir(), "p.trace"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, `profiling evil\x1b]0;pwned`) {
		t.Fatalf("output %q", out)
	}
}

// Issue 37 #5: `views` in text prints each window's name and, for a dump
// the VM refuses, the error, which repeats the name and carries the VM's
// FAIL text: none of it reaches stdout raw.
func TestViewsTextEscapesWindowAndFail(t *testing.T) {
	leakcheck.Check(t)
	vm := sim.NewVM(sim.VMSpec{PID: 6113, App: "com.evil", Package: "com.evil" + hostileEscapes, Family: sim.ART, API: 34,
		ViewDumpFails: "no " + hostileEscapes, Seed: 5})
	d := sim.NewDevice("t")
	d.Add(vm)
	defer d.Close()
	base := freePorts(t, 1)
	if _, err := d.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	out, err := runApp(t, "views", "--adb", "off", "--scan", fmt.Sprint(base), "--pid", "6113")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, `\x1b]52;c;`) || strings.Count(out, `\x1b]52;c;`) < 2 {
		t.Fatalf("the window's name and the VM's FAIL text are not both in the output; the test would prove nothing:\n%q", out)
	}
	if strings.ContainsAny(out, "\x1b\x07") || strings.ContainsRune(out, '\u009b') {
		t.Fatalf("escape sequences reached stdout: %q", out)
	}
}
