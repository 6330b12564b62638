package tui

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/tui/style"
)

// TestLogPaneMapping: a release build's crash shows the source's names in
// the log pane, the title says a mapping is in use, and R shows the
// obfuscated names again (and back).
func TestLogPaneMapping(t *testing.T) {
	m, err := mapping.Parse([]byte("com.a.tiles.TileCache -> a.d:\n    1:20:android.graphics.Bitmap get(int):110:129 -> a\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := startLogRig(t, 120, 40, style.Palette{NoColor: true}, func(c *Config) {
		c.Mappings = NewMappings(map[string]*mapping.Mapping{"com.a": m})
	})
	r.add(100, logcat.Error, "AndroidRuntime", "FATAL EXCEPTION: main\njava.lang.IllegalStateException: a.d is corrupt\n\tat a.d.a(SourceFile:9)")
	r.selectApp()
	r.key(tcell.KeyRune, 'l')
	r.waitText("com.a.tiles.TileCache.get(TileCache.java:118)")
	s := strings.Join(r.text(), "\n")
	if !strings.Contains(s, "com.a.tiles.TileCache is corrupt") || strings.Contains(s, "a.d.a(") {
		t.Fatalf("not retraced:\n%s", s)
	}
	if !strings.Contains(s, "com.a · mapping") {
		t.Fatalf("the title does not say a mapping is in use:\n%s", s)
	}
	r.key(tcell.KeyRune, 'R')
	r.waitText("a.d.a(SourceFile:9)")
	r.waitText("com.a · obfuscated names")
	r.key(tcell.KeyRune, 'R')
	r.waitText("TileCache.get(TileCache.java:118)")
}

func TestMappingsLookup(t *testing.T) {
	m := &mapping.Mapping{}
	ms := NewMappings(map[string]*mapping.Mapping{"com.x": m})
	if ms.forApp("com.x:remote") != m || ms.forApp("com.y") != nil || ms.note("com.y") != "" {
		t.Error("lookup by process name")
	}
	var none *Mappings
	if none.forApp("com.x") != nil || none.toggle() != "" || none.note("com.x") != "" {
		t.Error("nil Mappings")
	}
}

// TestStackPaneMapping: a minified app's thread stack shows the source's
// frames, its title says a mapping is in use, and R shows the build's.
func TestStackPaneMapping(t *testing.T) {
	m, err := mapping.Parse([]byte("com.example.mail.Worker -> com.example.Worker:\n    42:42:void runLoop(int):100:100 -> run1\n"))
	if err != nil {
		t.Fatal(err)
	}
	hs := startCfg(t, 120, 40, style.Palette{}, twoVMs, func(c *Config) {
		c.Mappings = NewMappings(map[string]*mapping.Mapping{"com.example.mail": m})
	})
	hs.waitText("AsyncTask #1")
	hs.key(tcell.KeyTab, 0) // to the thread table
	hs.key(tcell.KeyHome, 0)
	hs.key(tcell.KeyEnter, 0)
	hs.waitText("com.example.mail.Worker.runLoop")
	hs.waitText("(Worker.java:100)")
	hs.waitText("· mapping")
	hs.key(tcell.KeyRune, 'R')
	hs.waitText("at com.example.Worker.run1")
	hs.waitText("(Worker.java:42)")
}
