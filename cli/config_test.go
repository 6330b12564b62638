package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/config"
	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

func writeConfig(t *testing.T, doc string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(p, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConfigGivesFlagDefaults: list finds a VM through the scan range and
// adb setting the file gives; a flag on the command line wins over the file.
func TestConfigGivesFlagDefaults(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("t")
	dev.Add(sim.NewVM(sim.VMSpec{PID: 8801, App: "com.example.conf", Family: sim.ART, Seed: 3}))
	t.Cleanup(func() { dev.Close() })
	port := freePorts(t, 1)
	if _, err := dev.ServeLocal("127.0.0.1", port); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, fmt.Sprintf("[discovery]\nscan = \"%d\"\nadb = [\"off\"]\nscan_interval = \"50ms\"\n", port))
	list := func(args ...string) []headless.ListEntry {
		t.Helper()
		out, err := runApp(t, append([]string{"--config", cfg, "list", "--json", "--wait", "700ms"}, args...)...)
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		var got []headless.ListEntry
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return got
	}
	if got := list(); len(got) != 1 || got[0].PID != 8801 {
		t.Fatalf("with the file's scan range: %+v", got)
	}
	if got := list("--scan", "off"); len(got) != 0 {
		t.Fatalf("--scan off on the command line should win: %+v", got)
	}
}

func TestConfigErrorsNameFileLineAndKey(t *testing.T) {
	bad := writeConfig(t, "[discovery]\nadb = [\"off\"]\nthread_interval = \"soon\"\n")
	_, err := runApp(t, "--config", bad, "list", "--json", "--scan", "off")
	want := fmt.Sprintf(`config: %s:3: discovery.thread_interval: "soon" is not a valid value for --thread-interval`, bad)
	if err == nil || err.Error() != want {
		t.Fatalf("bad value:\n got %v\nwant %s", err, want)
	}
	unknown := writeConfig(t, "[discovery]\nscna = \"8000\"\n")
	_, err = runApp(t, "--config", unknown, "version")
	if err == nil || err.Error() != fmt.Sprintf("config: %s:2:1: discovery.scna: unknown key", unknown) {
		t.Fatalf("unknown key: %v", err)
	}
	if _, err := runApp(t, "--config", filepath.Join(t.TempDir(), "missing.toml"), "version"); err == nil {
		t.Fatal("a --config file that does not exist was ignored")
	}
}

// TestConfigDefaultAndPath: the default file parses, sets nothing while
// commented, and, uncommented, sets every flag to the value it already has.
func TestConfigDefaultAndPath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	out, err := runApp(t, "config", "default")
	if err != nil {
		t.Fatal(err)
	}
	f, err := config.Parse("default", []byte(out))
	if err != nil || len(f.Settings()) != 0 {
		t.Fatalf("commented default: %v %v", f, err)
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "# ") && strings.Contains(l, " = ") {
			l = strings.TrimPrefix(l, "# ")
		}
		lines = append(lines, l)
	}
	f, err = config.Parse("uncommented", []byte(strings.Join(lines, "\n")))
	if err != nil || len(f.Settings()) < 9 {
		t.Fatalf("uncommented default: %v\n%s", err, strings.Join(lines, "\n"))
	}
	p := writeConfig(t, strings.Join(lines, "\n"))
	if out, err := runApp(t, "--config", p, "list", "--json", "--scan", "off", "--adb", "off", "--wait", "10ms"); err != nil || strings.TrimSpace(out) != "[]" {
		t.Fatalf("the uncommented default file does not run: %v\n%s", err, out)
	}
	out, err = runApp(t, "config", "path")
	if err != nil || !strings.HasSuffix(out, "/ddmtui/config.toml (does not exist: built-in defaults are used)\n") {
		t.Fatalf("config path: %q %v", out, err)
	}
}
