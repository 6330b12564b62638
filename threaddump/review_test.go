package threaddump

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMainIdleOnlyInNativePollOnce: the main thread counts as idle only when
// its top Java frame is android.os.MessageQueue.nativePollOnce. Another
// MessageQueue method on top (here enqueueMessage, e.g. blocked posting to
// itself), or a nativePollOnce of another class, is not idle.
func TestMainIdleOnlyInNativePollOnce(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "art7_idle_main.txt"))
	if err != nil {
		t.Fatal(err)
	}
	const top = "  at android.os.MessageQueue.nativePollOnce(Native method)\n"
	if !strings.Contains(string(raw), top) {
		t.Fatal("test dump changed: no nativePollOnce frame")
	}
	for _, tc := range []struct {
		frame string
		idle  bool
	}{
		{top, true},
		{"  at android.os.MessageQueue.enqueueMessage(MessageQueue.java:540)\n", false},
		{"  at com.example.MessageQueue.nativePollOnce(Native method)\n", false},
		{"  at android.os.Looper.nativePollOnce(Native method)\n", false},
	} {
		d := parseString(t, strings.Replace(string(raw), top, tc.frame, 1))
		var m *MainThread
		for _, p := range d.Processes {
			if p.PID == 2817 {
				m = Analyze(p).Main
			}
		}
		if m == nil {
			t.Fatalf("%q: no main thread", tc.frame)
		}
		if m.Idle != tc.idle || strings.Contains(m.Summary, "idle in its message loop") != tc.idle {
			t.Errorf("top frame %q: idle %v, summary %q; want idle %v", strings.TrimSpace(tc.frame), m.Idle, m.Summary, tc.idle)
		}
	}
}
