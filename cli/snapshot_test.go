package cli

import (
	"fmt"
	"strings"
	"testing"
)

// snapshot --pid with a pid no VM has says so and fails, instead of
// printing [] and exiting 0 (issue 38 #20).
func TestSnapshotPidNotFound(t *testing.T) {
	port := freePorts(t, 1)
	out, _, err := runAppSplit(t, "snapshot", "--adb", "off", "--scan", fmt.Sprintf("%d-%d", port, port), "--wait", "100ms", "--pid", "99999")
	if err == nil || !strings.Contains(err.Error(), "no VM with pid 99999") || ExitStatus(err) != 1 {
		t.Fatalf("err %v (exit %d), out %q", err, ExitStatus(err), out)
	}
	if out != "" {
		t.Errorf("printed %q besides the error", out)
	}
}
