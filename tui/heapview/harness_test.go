package heapview

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/tui/style"
)

// testRunner runs the view's background jobs when the test says so, on
// the test's goroutine: a test sees the screen before and after a job.
type testRunner struct {
	ctx  context.Context
	jobs []func() func()
}

func (r *testRunner) Go(work func() func()) bool {
	r.jobs = append(r.jobs, work)
	return true
}
func (r *testRunner) QueueUpdateDraw(fn func()) { fn() }
func (r *testRunner) Context() context.Context  { return r.ctx }

// step runs the first job queued and applies it.
func (r *testRunner) step() {
	if len(r.jobs) > 0 {
		j := r.jobs[0]
		r.jobs = r.jobs[1:]
		if apply := j(); apply != nil {
			apply()
		}
	}
}

// run runs the jobs queued (and those they queue) and applies them.
func (r *testRunner) run() {
	for len(r.jobs) > 0 {
		j := r.jobs[0]
		r.jobs = r.jobs[1:]
		if apply := j(); apply != nil {
			apply()
		}
	}
}

// harness draws a View on a simulated screen and feeds it keys.
type harness struct {
	t      *testing.T
	v      *View
	r      *testRunner
	screen tcell.SimulationScreen
	w, h   int
}

// writeScene writes a scene to a file in a test directory.
func writeScene(t testing.TB, opts scene.Options) (string, *scene.Expect) {
	t.Helper()
	data, e, err := scene.Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "app.hprof")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return file, e
}

// open builds the viewer on file (and baseline), runs the analysis and
// draws it at w × h.
func open(t *testing.T, file, baseline string, w, h int, pal style.Palette) *harness {
	t.Helper()
	return openWith(t, Options{File: file, Baseline: baseline, Palette: pal}, w, h)
}

// openWith is open with more options (Runner and SaveDir are the test's).
func openWith(t *testing.T, opt Options, w, h int) *harness {
	t.Helper()
	hs := &harness{t: t, r: &testRunner{ctx: context.Background()}, screen: tcell.NewSimulationScreen("UTF-8"), w: w, h: h}
	if err := hs.screen.Init(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(hs.screen.Fini)
	hs.screen.SetSize(w, h)
	opt.Runner, opt.SaveDir = hs.r, t.TempDir()
	hs.v = New(opt)
	t.Cleanup(func() { hs.v.Close() })
	hs.v.SetRect(0, 0, w, h)
	if !hs.v.Load() {
		t.Fatal("Load did not start")
	}
	hs.draw()
	hs.r.run()
	hs.draw()
	return hs
}

func (hs *harness) draw() {
	hs.screen.Clear()
	hs.v.Draw(hs.screen)
	hs.screen.Show()
}

func (hs *harness) key(k tcell.Key, r rune) {
	hs.v.InputHandler()(tcell.NewEventKey(k, r, 0), func(tview.Primitive) {})
	hs.r.run()
	hs.draw()
}

func (hs *harness) keys(s string) {
	for _, r := range s {
		hs.key(tcell.KeyRune, r)
	}
}

func (hs *harness) enter() { hs.key(tcell.KeyEnter, 0) }
func (hs *harness) back()  { hs.key(tcell.KeyBackspace2, 0) }

// filter types / text Enter.
func (hs *harness) filter(text string) {
	hs.keys("/" + text)
	hs.enter()
}

// line returns screen row y as text.
func (hs *harness) line(y int) string {
	var b strings.Builder
	for x := 0; x < hs.w; x++ {
		str, _, _ := hs.screen.Get(x, y)
		if str == "" {
			str = " "
		}
		b.WriteString(str)
	}
	return strings.TrimRight(b.String(), " ")
}

// text returns the whole screen.
func (hs *harness) text() string {
	lines := make([]string, hs.h)
	for y := range lines {
		lines[y] = hs.line(y)
	}
	return strings.Join(lines, "\n")
}

// must fails unless the screen shows every one of wants.
func (hs *harness) must(wants ...string) {
	hs.t.Helper()
	s := hs.text()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			hs.t.Fatalf("screen lacks %q:\n%s", w, s)
		}
	}
}

// mustNot fails if the screen shows any of these.
func (hs *harness) mustNot(nots ...string) {
	hs.t.Helper()
	s := hs.text()
	for _, w := range nots {
		if strings.Contains(s, w) {
			hs.t.Fatalf("screen shows %q:\n%s", w, s)
		}
	}
}

// row returns the first screen line containing s (-1 if none).
func (hs *harness) row(s string) int {
	for y := 0; y < hs.h; y++ {
		if strings.Contains(hs.line(y), s) {
			return y
		}
	}
	return -1
}

// selected returns the text of the row drawn in reverse video (the
// table's selection), or "".
func (hs *harness) selected() string {
	for y := 2; y < hs.h-1; y++ {
		for x := 0; x < hs.w; x++ {
			_, st, _ := hs.screen.Get(x, y)
			if _, _, attr := st.Decompose(); attr&tcell.AttrReverse != 0 {
				line := hs.line(y)
				if strings.TrimSpace(line) != "" && !strings.Contains(line, "│ 2 ") && y > 1 {
					return line
				}
			}
		}
	}
	return ""
}

// object is the object an object page shows (its "object" row), or "".
func (hs *harness) object() string {
	y := hs.row("object ")
	if y < 0 {
		return ""
	}
	f := fields(hs.line(y))
	if len(f) < 2 || f[0] != "object" {
		return ""
	}
	return f[1]
}
