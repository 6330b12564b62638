package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestParseGood(t *testing.T) {
	doc := `# a comment
[discovery]
scan = "9000-9010"
adb = ["127.0.0.1:5037", "10.0.0.2:5037"]
thread_interval = "500ms"

[debugger]
base = 9600
selected_port = 0

[ui]
mouse = true
`
	f, err := Parse("c.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []Setting{
		{"discovery.scan", "scan", []string{"9000-9010"}},
		{"discovery.adb", "adb", []string{"127.0.0.1:5037", "10.0.0.2:5037"}},
		{"discovery.thread_interval", "thread-interval", []string{"500ms"}},
		{"debugger.base", "debug-base", []string{"9600"}},
		{"debugger.selected_port", "selected-port", []string{"0"}},
		{"ui.mouse", "mouse", []string{"true"}},
	}
	if got := f.Settings(); !reflect.DeepEqual(got, want) {
		t.Fatalf("settings\n got %v\nwant %v", got, want)
	}
	if l := f.line("debugger.selected_port"); l != 9 {
		t.Fatalf("debugger.selected_port on line %d, want 9", l)
	}
	if l := f.line("ui.scan"); l != 0 {
		t.Fatalf("a key of another table found on line %d", l)
	}
}

func TestParseErrorsNameFileLineAndKey(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"[discovery]\nscan = \"8000\"\nbogus = 1\n", "c.toml:3:1: discovery.bogus: unknown key"},
		{"[discovery]\n\n[nope]\na = 1\n", "c.toml:3:2: nope: unknown key"},
		{"[debugger]\nbase = \"x\"\n", "c.toml:2:8: debugger.base: cannot decode TOML string here"},
		{"[ui]\nmouse = 3\n", "c.toml:2:9: ui.mouse: cannot decode TOML integer here"},
		{"[discovery\nscan = 1\n", "c.toml:1:11: expected ']' to close table name"},
	} {
		_, err := Parse("c.toml", []byte(tc.doc))
		var ce *Error
		if !errors.As(err, &ce) || err.Error() != tc.want {
			t.Errorf("%q:\n got %v\nwant %s", tc.doc, err, tc.want)
		}
	}
}

// TestKeysMatchSettings: a file that sets every key reports one setting per
// entry of Keys, in that order, for the flag Keys names.
func TestKeysMatchSettings(t *testing.T) {
	doc := `[discovery]
scan = "a"
adb = ["b"]
adb_path = "c"
adb_max_devices = 9
adb_max_processes = 10
scan_interval = "d"
thread_interval = "e"
meminfo_interval = "f"
processes = "k"
[debugger]
base = 1
selected_port = 2
bind = "g"
spin = "j"
[ui]
mouse = false
log = "h"
[output]
dir = "i"
[limits]
memory_budget = "l"
`
	f, err := Parse("all.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Settings()
	if len(s) != len(Keys) {
		t.Fatalf("%d settings for %d keys", len(s), len(Keys))
	}
	for i, k := range Keys {
		if s[i].Key != k.Dotted() || s[i].Flag != k.Flag || f.line(k.Dotted()) == 0 {
			t.Errorf("setting %d is %+v, key %+v", i, s[i], k)
		}
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/x/conf")
	if p, _ := DefaultPath(); p != "/x/conf/ddmtui/config.toml" {
		t.Errorf("with XDG_CONFIG_HOME: %s", p)
	}
	t.Setenv("XDG_CONFIG_HOME", "relative") // not absolute: ignored, as the XDG spec says
	t.Setenv("HOME", "/home/u")
	if p, _ := DefaultPath(); p != "/home/u/.config/ddmtui/config.toml" {
		t.Errorf("without XDG_CONFIG_HOME: %s", p)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "none.toml")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	big := filepath.Join(dir, "big.toml")
	os.WriteFile(big, make([]byte, maxSize+1), 0o644)
	if _, err := Load(big); err == nil {
		t.Fatal("oversized file accepted")
	}
	ok := filepath.Join(dir, "ok.toml")
	os.WriteFile(ok, []byte("[ui]\nlog = \"-\"\n"), 0o644)
	f, err := Load(ok)
	if err != nil || f.Path != ok || len(f.Settings()) != 1 {
		t.Fatalf("%v %v", f, err)
	}
}

func TestMappingsTable(t *testing.T) {
	f, err := Parse("c.toml", []byte("[mappings]\n\"com.example.app\" = \"build/mapping.txt\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Mappings["com.example.app"] != "build/mapping.txt" || len(f.Settings()) != 0 {
		t.Errorf("mappings %v, settings %v", f.Mappings, f.Settings())
	}
	if _, err := Parse("c.toml", []byte("[mappings]\n\"com.x\" = 3\n")); err == nil {
		t.Error("a number accepted as a file name")
	}
}
