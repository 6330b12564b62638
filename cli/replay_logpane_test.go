package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// `ddmtui demo --record FILE` records the Android 14 device's log beside
// its VMs; `ddmtui replay FILE` shows it in the log pane (l) of the
// replayed app, with its level letters, as the live pane did.
func TestReplayLogPaneInTmux(t *testing.T) {
	tmux := testpeer.Require(t, "tmux")
	bin := buildBinary(t)
	port, err := freeLocalRange(23300, 7)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "demo.rec")
	s := &tmuxSession{t: t, tmux: tmux, socket: fmt.Sprintf("ddmtui-replaylog-%d", os.Getpid())}
	t.Cleanup(func() { s.run("kill-server") })
	cmdline := fmt.Sprintf("NO_COLOR=1 %s demo --log - --port %d --interval 200ms --record %s", bin, port, file)
	if out, err := s.run("new-session", "-d", "-s", "demo", "-x", "80", "-y", "24", cmdline); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	s.waitText("VMs (10)")
	time.Sleep(3 * time.Second) // the device logs meanwhile
	s.keys("q")
	s.waitFor("quit", func(scr string) bool { return !strings.Contains(scr, "VMs (") })
	deadline := time.Now().Add(10 * time.Second)
	for { // the demo writes its last block as it exits
		_, running := s.run("has-session", "-t", "demo")
		if rec, err := loadRecording(file); running != nil && err == nil && rec.Tail == nil && len(rec.Records) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the demo's recording is not complete")
		}
		time.Sleep(100 * time.Millisecond)
	}

	cmdline = fmt.Sprintf("NO_COLOR=1 %s replay %s --speed 0.5", bin, file)
	if out, err := s.run("new-session", "-d", "-s", "demo", "-x", "80", "-y", "24", cmdline); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	s.waitText("VMs (10)")
	s.keys("End")
	s.waitText("selected: com.example.chat")
	s.keys("l")
	s.waitText("Log · com.example.chat")
	s.waitFor("replayed log lines with level letters", func(scr string) bool { return logLine.MatchString(scr) })
	s.keys("q")
	s.waitFor("quit", func(scr string) bool { return !strings.Contains(scr, "VMs (") })
}
