package cli

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// With quit = ["x"] in the configuration's [keys] table, q no longer
// quits the demo and x does; help and the status line name x.
func TestDemoInTmuxRebindQuit(t *testing.T) {
	tmux := testpeer.Require(t, "tmux")
	bin := buildBinary(t)
	port, err := freeLocalRange(23140, 7)
	if err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, "[keys]\nquit = [\"x\"]\n")
	s := &tmuxSession{t: t, tmux: tmux, socket: fmt.Sprintf("ddmtui-keys-%d", os.Getpid())}
	t.Cleanup(func() { s.run("kill-server") })
	cmdline := fmt.Sprintf("%s --config %s demo --log - --port %d --interval 200ms", bin, cfg, port)
	if out, err := s.run("new-session", "-d", "-s", "demo", "-x", "120", "-y", "40", cmdline); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	s.waitText("VMs (10)")
	s.waitText("x:quit")
	s.keys("q")
	time.Sleep(500 * time.Millisecond)
	s.waitText("VMs (10)") // still running
	s.keys("x")
	s.waitFor("quit by x", func(scr string) bool { return !strings.Contains(scr, "VMs (") })
}
