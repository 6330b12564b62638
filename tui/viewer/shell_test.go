package viewer

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// Without a terminal, Run returns ErrNoTerminal instead of panicking in
// tcell (which it did when tview's Stop finished a screen that had failed
// to initialise). Run in a child process whose stdin is /dev/null.
func TestRunWithoutTerminal(t *testing.T) {
	if os.Getenv("VIEWER_NO_TTY_CHILD") == "1" {
		sh := New(Options{})
		sh.SetRoot(tview.NewBox())
		err := sh.Run()
		fmt.Printf("err=%v is=%v\n", err, errors.Is(err, ErrNoTerminal))
		return
	}
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRunWithoutTerminal$", "-test.v")
	cmd.Env = append(os.Environ(), "VIEWER_NO_TTY_CHILD=1")
	cmd.Stdin = devnull
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "panic") || !strings.Contains(string(out), "is=true") ||
		!strings.Contains(string(out), "stdin is not a terminal") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

// Background work reaches the UI goroutine; Quit ends Run only after the
// work returned, and Ctrl-C quits.
func TestShellGoAndQuit(t *testing.T) {
	leakcheck.Check(t)
	s := tcell.NewSimulationScreen("UTF-8")
	sh := New(Options{Screen: s})
	tv := tview.NewTextView()
	sh.SetRoot(tv)
	done := make(chan error, 1)
	go func() { done <- sh.Run() }()
	release := make(chan struct{})
	applied := make(chan struct{})
	sh.App().QueueUpdate(func() {
		sh.Go(func() func() {
			<-release
			return func() { tv.SetText("applied"); close(applied) }
		})
		sh.Go(func() func() { t.Error("a second job ran while the first was busy"); return func() {} })
	})
	close(release)
	select {
	case <-applied:
	case <-time.After(5 * time.Second):
		t.Fatal("the job's result never reached the UI goroutine")
	}
	s.InjectKey(tcell.KeyCtrlC, 0, tcell.ModCtrl)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Ctrl-C did not end Run")
	}
}
