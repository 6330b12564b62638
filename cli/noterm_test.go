package cli

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Without a terminal (stdin /dev/null, stdout a pipe, no controlling tty)
// the dashboard and the demo fail with one clear line and exit status 1:
// no panic from tcell, and no simulated VM or debugger port left held.
func TestNoTerminalFailsCleanly(t *testing.T) {
	bin := buildBinary(t)
	port, err := freeLocalRange(24100, 7)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"demo", "--log", "-", "--port", fmt.Sprint(port)},
		{"--log", "-", "--scan", fmt.Sprintf("%d-%d", port, port+1), "--adb", "off"},
	} {
		t.Run(args[0], func(t *testing.T) {
			devnull, err := os.Open(os.DevNull)
			if err != nil {
				t.Fatal(err)
			}
			defer devnull.Close()
			cmd := exec.Command(bin, args...)
			var stdout, stderr bytes.Buffer
			cmd.Stdin, cmd.Stdout, cmd.Stderr = devnull, &stdout, &stderr
			cmd.Env = append(os.Environ(), "TERM=xterm")
			err = cmd.Run()
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() != 1 {
				t.Fatalf("exit: %v (want status 1)\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
			}
			lines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], "needs a terminal") || strings.Contains(stderr.String(), "panic") {
				t.Fatalf("stderr is not one clear line:\n%s", stderr.String())
			}
			if got, err := freeLocalRange(port, 7); err != nil || got != port {
				t.Fatalf("ports %d.. still held after the failure (first free range %d, %v)", port, got, err)
			}
		})
	}
}
