package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// The views pane in the demo, through tmux at 120x40 and at 80x24 without
// colours: V opens the selected app's tree and wireframe, c draws the
// clock's capture, s saves it as PNG, v makes it INVISIBLE (the tree is
// dumped again), q goes back.
func TestDemoViewsPaneInTmux(t *testing.T) {
	tmux := testpeer.Require(t, "tmux")
	bin := buildBinary(t)
	for i, size := range []struct {
		w, h    int
		noColor bool
	}{{120, 40, false}, {80, 24, true}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			port, err := freeLocalRange(23200+20*i, 7)
			if err != nil {
				t.Fatal(err)
			}
			s := &tmuxSession{t: t, tmux: tmux, socket: fmt.Sprintf("ddmtui-views-%d-%d", os.Getpid(), i)}
			t.Cleanup(func() { s.run("kill-server") })
			out := t.TempDir()
			env := ""
			if size.noColor {
				env = "NO_COLOR=1 "
			}
			cmdline := fmt.Sprintf("%s%s demo --log - --port %d --interval 200ms --out-dir %s", env, bin, port, out)
			if o, err := s.run("new-session", "-d", "-s", "demo", "-x", fmt.Sprint(size.w), "-y", fmt.Sprint(size.h), cmdline); err != nil {
				t.Fatalf("tmux new-session: %v %s", err, o)
			}
			s.waitText("VMs (10)")
			s.keys("Home", "j", "j")
			s.waitText("selected: com.android.systemui")
			s.keys("V")
			s.waitText("Views 60/60")
			s.waitText("Wireframe")
			s.waitText("▾ DecorView")
			s.keys("j", "j", "j", "j", "j", "j")
			s.waitText("id id/clock  VISIBLE")
			s.keys("c")
			s.waitText("Capture: TextView@")
			s.waitFor("the capture in half blocks (shades under NO_COLOR)", func(scr string) bool {
				if size.noColor {
					return strings.ContainsAny(scr, "█▓▒░") && !strings.Contains(scr, "▀")
				}
				return strings.Contains(scr, "▀")
			})
			s.keys("s")
			s.waitText("capture saved to")
			pngs, _ := filepath.Glob(filepath.Join(out, "*.png"))
			if len(pngs) != 1 {
				t.Fatalf("saved %v", pngs)
			}
			s.keys("c")
			s.waitText("Wireframe")
			s.keys("v")
			s.waitText("id id/clock  INVISIBLE")
			s.keys("?")
			s.waitText("expand / collapse the selected view")
			s.keys("Escape")
			s.waitFor("help closed", func(scr string) bool { return !strings.Contains(scr, "expand / collapse the selected view") })
			s.keys("q")
			s.waitFor("back to the dashboard", func(scr string) bool { return strings.Contains(scr, "VMs (10)") && !strings.Contains(scr, "Wireframe") })
			s.keys("q")
		})
	}
}
