package config

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseKeysAndTheme(t *testing.T) {
	doc := `[keys]
quit = ["x"]
gc = ["G", "Ctrl-G"]

[theme]
cursor = 208
state-running = "#00ff00"
border = "teal"
`
	f, err := Parse("c.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string][]string{"quit": {"x"}, "gc": {"G", "Ctrl-G"}}; !reflect.DeepEqual(f.Keys, want) {
		t.Errorf("keys = %v, want %v", f.Keys, want)
	}
	if want := map[string]any{"cursor": int64(208), "state-running": "#00ff00", "border": "teal"}; !reflect.DeepEqual(f.Theme, want) {
		t.Errorf("theme = %#v, want %#v", f.Theme, want)
	}
	if len(f.Settings()) != 0 {
		t.Errorf("keys and theme leak into flag settings: %v", f.Settings())
	}
	if e := f.KeyError("keys.gc", "bad"); e.Line != 3 || e.Error() != "c.toml:3: keys.gc: bad" {
		t.Errorf("key error = %q (line %d)", e, e.Line)
	}
	if e := f.KeyError("theme.state-running", "bad"); e.Line != 7 {
		t.Errorf("theme error line = %d, want 7", e.Line)
	}
}

func TestParseKeysBadValue(t *testing.T) {
	_, err := Parse("c.toml", []byte("[ui]\nmouse = true\n[keys]\nquit = \"x\"\n"))
	var e *Error
	if !errors.As(err, &e) || e.Line != 4 || e.Key != "keys.quit" {
		t.Fatalf("err = %v, want c.toml:4 keys.quit", err)
	}
	// Unknown keys elsewhere are still refused.
	_, err = Parse("c.toml", []byte("[keys]\nquit = [\"x\"]\n[ui]\ncolour = 1\n"))
	if !errors.As(err, &e) || e.Line != 4 || e.Key != "ui.colour" || e.Msg != "unknown key" {
		t.Fatalf("err = %v, want c.toml:4 ui.colour unknown key", err)
	}
}
