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
