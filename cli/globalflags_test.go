package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// Discovery flags given before the command's name reach the command: the
// VMs on the named ports are found, and nothing else is probed.
func TestFlagsBeforeCommandAreHonoured(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("t")
	for _, s := range sim.Scenario(2, 3) {
		dev.Add(sim.NewVM(s))
	}
	defer dev.Close()
	base := freePorts(t, 2)
	if _, err := dev.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	scanFlag := fmt.Sprintf("%d-%d", base, base+1)

	out, err := runApp(t, "--adb", "off", "--scan", scanFlag, "list", "--json", "--wait", "1s")
	if err != nil {
		t.Fatal(err)
	}
	var list []headless.ListEntry
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if len(list) != 2 {
		t.Fatalf("listed %d VMs through the flags given before list, want 2:\n%s", len(list), out)
	}
	for i, e := range list {
		if want := fmt.Sprintf("local:%d", base+i); e.Source != want {
			t.Errorf("entry %d from %s, want %s", i, e.Source, want)
		}
	}

	// The command's own position wins over the one before it.
	out, err = runApp(t, "--scan", scanFlag, "list", "--json", "--adb", "off", "--scan", "off", "--wait", "300ms")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(out) != "[]" {
		t.Fatalf("--scan off after list did not win: %s", out)
	}
}

func TestFlagBeforeCommandThatDoesNotTakeItIsAnError(t *testing.T) {
	_, err := runApp(t, "--scan", "off", "anr", "/dev/null")
	if err == nil || !strings.Contains(err.Error(), `--scan given before "anr"`) {
		t.Fatalf("err = %v, want the flag named as not taken by anr", err)
	}
}

// --log is accepted before and after any command, and a headless command
// writes its log there when it is given.
func TestLogIsAGlobalFlag(t *testing.T) {
	dir := t.TempDir()
	for i, args := range [][]string{
		{"--log", filepath.Join(dir, "a.log"), "list", "--scan", "off", "--adb", "off", "--wait", "100ms"},
		{"list", "--log", filepath.Join(dir, "b.log"), "--scan", "off", "--adb", "off", "--wait", "100ms"},
		{"anr", "--log", filepath.Join(dir, "c.log"), "--help"},
	} {
		if out, err := runApp(t, args...); err != nil {
			t.Fatalf("run %d %q: %v\n%s", i, args, err, out)
		}
	}
	for _, f := range []string{"a.log", "b.log"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("--log %s was not opened: %v", f, err)
		}
	}
	for _, cmd := range NewApp().Commands {
		if !hasFlag(cmd.Flags, "log") {
			t.Errorf("%s does not take --log", cmd.Name)
		}
	}
}

// The dashboard's --mapping PKG=FILE before a command whose own --mapping
// takes a FILE is not handed to it as a file name: the error says whose
// flag it is, as a usage error (exit status 2).
func TestDashboardMappingBeforeCommand(t *testing.T) {
	dir := t.TempDir()
	m := filepath.Join(dir, "mapping.txt")
	if err := os.WriteFile(m, []byte("com.example.Item -> a.a:\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"trace", "/dev/null"}, {"hprof", "analyze", "/dev/null"}, {"anr", "/dev/null"}} {
		_, err := runApp(t, append([]string{"--mapping", "com.example=" + m}, cmd...)...)
		if err == nil || !strings.Contains(err.Error(), `--mapping given before "`+cmd[0]+`" is the dashboard's`) || ExitStatus(err) != 2 {
			t.Errorf("%v: err = %v (exit status %d)", cmd, err, ExitStatus(err))
		}
	}
}
