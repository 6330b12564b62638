package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// The walkthrough a new user does on a small terminal without colours:
// at 80x24 under NO_COLOR, Tab reaches every pane (the stack in the heap's
// place), j moves the selection, and the cursor row is reverse video.
func TestDemoInTmuxSmallNoColor(t *testing.T) {
	tmux := testpeer.Require(t, "tmux")
	bin := buildBinary(t)
	port, err := freeLocalRange(23100, 7)
	if err != nil {
		t.Fatal(err)
	}
	s := &tmuxSession{t: t, tmux: tmux, socket: fmt.Sprintf("ddmtui-small-%d", os.Getpid())}
	t.Cleanup(func() { s.run("kill-server") })
	cmdline := fmt.Sprintf("NO_COLOR=1 %s demo --log - --port %d --interval 200ms", bin, port)
	if out, err := s.run("new-session", "-d", "-s", "demo", "-x", "80", "-y", "24", cmdline); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	s.waitText("VMs (10)")
	s.waitText("Heap ·")
	s.keys("Home", "j", "j") // the first row is the local device's; the first VM found may be the other device's
	s.waitText("selected: com.android.systemui")
	// The cursor row: reverse video (SGR 7) on the selected VM's line.
	s.waitFor("reverse-video cursor", func(string) bool {
		out, _ := s.run("capture-pane", "-p", "-e", "-t", "demo")
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "com.android.systemui") && strings.Contains(line, "\x1b[7m") && strings.Contains(line, "▶") {
				return true
			}
		}
		return false
	})
	s.keys("Tab")
	s.waitText("Threads ·")
	s.keys("Tab")
	s.waitText("Heap ·")
	s.keys("Tab")
	s.waitFor("stack in the heap's place", func(scr string) bool {
		return strings.Contains(scr, "Stack") && !strings.Contains(scr, "Heap ·")
	})
	s.keys("Tab")
	s.keys("?")
	s.waitText("show or hide this help")
	s.keys("j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j") // it scrolls
	s.waitText("cause a GC in the selected VM")
	s.keys("q")
	s.waitFor("help closed", func(scr string) bool { return !strings.Contains(scr, "cause a GC in the selected VM") })
	s.keys("q")
	s.waitFor("quit", func(scr string) bool { return !strings.Contains(scr, "VMs (") })
}
