package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Values that cannot work are refused at once, before any discovery,
// recording or file (issue 29 #12).
func TestFlagValuesRefusedBeforeWork(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p.trace")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"profile", "--pid", "1", "-o", out, "--buffer-mb", "0"}, "--buffer-mb 0: want 1 to 1024"},
		{[]string{"profile", "--pid", "1", "-o", out, "--buffer-mb", "100000"}, "--buffer-mb 100000: want 1 to 1024"},
		{[]string{"profile", "--pid", "1", "-o", out, "--sampling", "-1ms"}, "--sampling -1ms"},
		{[]string{"profile", "--pid", "1", "-o", out, "--duration", "0s"}, "--duration 0s"},
		{[]string{"record", "-o", filepath.Join(dir, "r.rec"), "--duration", "-2s"}, "--duration -2s"},
		{[]string{"record", "-o", filepath.Join(dir, "r.rec"), "--scan", "off", "--adb", "off"}, "nowhere to look"},
		{[]string{"serve", "--select", "-4", "--scan", "off", "--adb", "off"}, "--select -4"},
		{[]string{"serve", "--duration", "-1s", "--scan", "off", "--adb", "off"}, "--duration -1s"},
	} {
		_, _, err := runAppSplit(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err %v, want %q", tc.args, err, tc.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files left: %v", ents)
	}
}

// serve --select with a pid no VM has says so once, instead of leading the
// selected-VM port nowhere in silence.
func TestServeSelectMissingSaysSo(t *testing.T) {
	defer func(d time.Duration) { selectMissingAfter = d }(selectMissingAfter)
	selectMissingAfter = 200 * time.Millisecond
	base := freePorts(t, 2)
	stdout, stderr, err := runAppSplit(t, "serve", "--select", "99999", "--scan", fmt.Sprintf("%d-%d", base, base), "--adb", "off",
		"--debug-base", fmt.Sprint(base+1), "--selected-port", "0", "--duration", "1s")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if n := strings.Count(stdout+stderr, "no VM with pid 99999 (--select)"); n != 1 {
		t.Errorf("the missing --select VM was noted %d times:\n%s%s", n, stdout, stderr)
	}
}
