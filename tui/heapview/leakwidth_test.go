package heapview

import (
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/tui/style"
)

// At 80 columns the Leaks table keeps its LIKELY CAUSE column: a cause
// too long for the edge is cut with …, rather than the column left out
// (the chain below gives it whole).
func TestLeaksTableAt80Columns(t *testing.T) {
	file, _ := writeScene(t, scene.Options{})
	hs := open(t, file, "", 80, 24, style.Palette{})
	hs.keys("3")
	if h := hs.line(2); !strings.HasSuffix(strings.TrimSpace(h), "LIKELY CAUSE") {
		t.Fatalf("header %q\n%s", h, hs.text())
	}
	for _, want := range []string{"Thread.target", "Handler.mCallback", "PrefsCallback.mFragment", "static ConnectivityMoni…", "static FragmentCache.sL…"} {
		if !strings.Contains(hs.text(), want) {
			t.Errorf("no %q:\n%s", want, hs.text())
		}
	}
}

// The chain pane and the path page name the GC root's kind, as MAT does.
func TestPathsNameTheRootKind(t *testing.T) {
	file, _ := writeScene(t, scene.Options{})
	hs := open(t, file, "", 120, 40, style.Palette{})
	hs.keys("3")
	hs.must("GC root: thread java.lang.Thread@") // SettingsActivity's chain, selected first
	hs.filter("PrefsFragment")
	hs.must("GC root: JNI global com.example.mail.legacy.PrefsCallback@")
	hs.enter()
	hs.must("GC root: JNI global")
}
