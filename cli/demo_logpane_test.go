package cli

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// logLine is a log pane row at 80 columns: time, pid, tid, level letter.
var logLine = regexp.MustCompile(`\d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ [VDIWEF] `)

// The log pane in the demo at 80x24 under NO_COLOR: a VM of the Android 14
// device, l shows its log lines with their level letters, and a query
// typed after / narrows them.
func TestDemoLogPaneInTmux(t *testing.T) {
	tmux := testpeer.Require(t, "tmux")
	bin := buildBinary(t)
	port, err := freeLocalRange(23200, 7)
	if err != nil {
		t.Fatal(err)
	}
	s := &tmuxSession{t: t, tmux: tmux, socket: fmt.Sprintf("ddmtui-log-%d", os.Getpid())}
	t.Cleanup(func() { s.run("kill-server") })
	cmdline := fmt.Sprintf("NO_COLOR=1 %s demo --log - --port %d --interval 200ms", bin, port)
	if out, err := s.run("new-session", "-d", "-s", "demo", "-x", "80", "-y", "24", cmdline); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	s.waitText("VMs (10)")
	s.keys("End") // the last VM is the Android 14 device's chat app
	s.waitText("selected: com.example.chat")
	s.keys("l")
	s.waitText("Log · com.example.chat")
	s.waitFor("log lines with level letters", func(scr string) bool { return logLine.MatchString(scr) })
	s.keys("/")
	for _, r := range "tag:okhttp" {
		s.keys(string(r))
	}
	s.keys("Enter")
	s.waitText("/tag:okhttp")
	s.waitFor("only okhttp lines", func(scr string) bool {
		n := 0
		for _, l := range strings.Split(scr, "\n") {
			if logLine.MatchString(l) {
				if !strings.Contains(l, "okhttp") {
					return false
				}
				n++
			}
		}
		return n > 0
	})
	// A local-port VM has no log.
	s.keys("Tab", "Home", "j")
	s.waitText("no device log")
	s.keys("q")
	s.waitFor("quit", func(scr string) bool { return !strings.Contains(scr, "VMs (") })
}
