// Package testpeer finds the real programs that integration tests talk to
// (java, jdb, adb, dmtracedump, hprof-conv, tmux, graphviz dot, prometheus and promtool). When one is missing the
// test is skipped with a visible reason locally, and fails when the CI
// environment variable is set, so a green CI run can never hide a missing
// install step in .ci/run.
package testpeer

import (
	"os"
	"os/exec"
	"testing"
)

// extraDirs are searched after PATH: Debian installs some Android tools there.
var extraDirs = []string{"/usr/lib/android-sdk/platform-tools"}

// InCI reports whether the CI environment variable is set to a non-empty value.
func InCI() bool { return os.Getenv("CI") != "" }

// Find returns the path of program, or "" when it is not installed.
func Find(program string) string {
	if p, err := exec.LookPath(program); err == nil {
		return p
	}
	for _, d := range extraDirs {
		p := d + "/" + program
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// Require returns the path of program. When it is missing the test is
// skipped with the reason, or fails under CI.
func Require(t testing.TB, program string) string {
	t.Helper()
	p := Find(program)
	if p == "" {
		Missing(t, program+" is not installed (.ci/run installs it)")
	}
	return p
}

// Missing skips the test with reason, or fails it when running under CI.
func Missing(t testing.TB, reason string) {
	t.Helper()
	if InCI() {
		t.Fatalf("real peer unavailable under CI: %s", reason)
	}
	t.Skipf("skipping real-peer test: %s", reason)
}
