package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// tmuxSession drives the real binary in a detached tmux session, as a
// person would: send-keys to type, capture-pane to read the screen.
type tmuxSession struct {
	t      *testing.T
	tmux   string
	socket string
}

func (s *tmuxSession) run(args ...string) (string, error) {
	out, err := exec.Command(s.tmux, append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	return string(out), err
}

func (s *tmuxSession) screen() string {
	out, _ := s.run("capture-pane", "-p", "-t", "demo")
	return out
}

func (s *tmuxSession) waitFor(what string, cond func(string) bool) string {
	s.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		scr := s.screen()
		if cond(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("timed out waiting for %s; screen:\n%s", what, scr)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s *tmuxSession) waitText(sub string) string {
	s.t.Helper()
	return s.waitFor(fmt.Sprintf("%q", sub), func(scr string) bool { return strings.Contains(scr, sub) })
}

func (s *tmuxSession) keys(keys ...string) {
	s.t.Helper()
	if out, err := s.run(append([]string{"send-keys", "-t", "demo"}, keys...)...); err != nil {
		s.t.Fatalf("send-keys: %v %s", err, out)
	}
}

// buildBinary builds ddmtui into a temp dir.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ddmtui")
	cmd := exec.Command("go", "build", "-o", bin, "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

func TestDemoInTmux(t *testing.T) {
	tmux := testpeer.Require(t, "tmux")
	bin := buildBinary(t)
	port, err := freeLocalRange(23000, 7)
	if err != nil {
		t.Fatal(err)
	}
	s := &tmuxSession{t: t, tmux: tmux, socket: fmt.Sprintf("ddmtui-test-%d", os.Getpid())}
	t.Cleanup(func() { s.run("kill-server") })
	dir := t.TempDir()
	errFile, exitFile := filepath.Join(dir, "stderr"), filepath.Join(dir, "exit")
	// The shell records ddmtui's own exit status: tmux's pane_dead_status is
	// sometimes still empty when it reports the pane dead.
	cmdline := fmt.Sprintf("%s demo --log - --port %d --interval 200ms 2>%s; echo $? >%s", bin, port, errFile, exitFile)
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(errFile)
			t.Logf("ddmtui stderr:\n%s", b)
		}
	})
	if out, err := s.run("new-session", "-d", "-s", "demo", "-x", "120", "-y", "40", cmdline); err != nil {
		t.Fatalf("tmux new-session: %v %s", err, out)
	}
	if out, err := s.run("set-option", "-t", "demo", "remain-on-exit", "on"); err != nil {
		t.Fatalf("remain-on-exit: %v %s", err, out)
	}

	// The VM list, thread states and the heap legend.
	s.waitText("VMs (10)") // seven on local ports, three on the in-process Android 14 device (one a profileable release app)
	for _, app := range []string{"system_process", "com.android.systemui", "com.example.mail", "com.example.gallery", "com.example.legacy", "com.example.camera"} {
		s.waitText(app)
	}
	s.waitText("waiting") // the VM waiting for a debugger
	s.waitText("OpenJDK") // the non-DDM VM
	s.waitFor("thread states", func(scr string) bool {
		return strings.Contains(scr, "Signal Catcher") && (strings.Contains(scr, "running") || strings.Contains(scr, "wait"))
	})
	s.waitText("4-byte[]") // the heap legend, once segments arrived at a GC

	// Move to the next VM and select it.
	s.keys("Home", "j", "j", "Enter") // from the local device's row: system_process, then systemui
	s.waitText("selected: com.android.systemui")
	s.waitText("Threads · com.android.systemui")

	// Toggle the thread and heap panes.
	s.keys("t")
	s.waitFor("thread pane hidden", func(scr string) bool { return !strings.Contains(scr, "Threads ·") })
	s.keys("t")
	s.waitText("Threads ·")
	s.keys("h")
	s.waitFor("heap pane hidden", func(scr string) bool { return !strings.Contains(scr, "Heap ·") })
	s.keys("h")
	s.waitText("Heap ·")

	// The command prompt: jump to an app by name, with completion.
	s.keys(":", "app mai")
	s.waitText("Tab → app com.example.mail")
	s.keys("Tab", "Enter")
	s.waitText("selected: com.example.mail")
	// Its timeline, then back.
	s.keys("T")
	s.waitText("Timeline · com.example.mail")
	s.waitText("Java heap  now")
	s.waitText("▲ GC")
	s.keys("Escape")
	s.waitFor("timeline closed", func(scr string) bool { return !strings.Contains(scr, "Timeline ·") })

	// Help.
	s.keys("?")
	s.waitText("cause a GC in the selected VM")
	s.keys("Escape")
	s.waitFor("help closed", func(scr string) bool { return !strings.Contains(scr, "cause a GC in the selected VM") })

	// Quit: the program exits with status 0 and leaves the alternate screen.
	s.keys("q")
	deadline := time.Now().Add(15 * time.Second)
	for {
		if b, err := os.ReadFile(exitFile); err == nil && len(b) > 0 {
			if st := strings.TrimSpace(string(b)); st != "0" {
				t.Fatalf("ddmtui exited with status %s; screen:\n%s", st, s.screen())
			}
			break
		}
		if time.Now().After(deadline) {
			// Still running: take a goroutine dump to show what it waits on.
			exec.Command("pkill", "-QUIT", "-f", bin+" demo").Run()
			time.Sleep(time.Second)
			b, _ := os.ReadFile(errFile)
			t.Fatalf("ddmtui did not exit after q; its goroutines:\n%s", b)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if scr := s.screen(); strings.Contains(scr, "VMs (") {
		t.Fatalf("the dashboard is still on screen after quitting:\n%s", scr)
	}
}
