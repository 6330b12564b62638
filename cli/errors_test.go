package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// prefixes are the names an error message may be prefixed with: the commands
// and the packages whose errors reach the command line.
var prefixes = []string{
	"adb", "allocs", "anr", "config", "ddm", "dump", "heap", "hprof", "jdwp", "logcat",
	"monitor", "profile", "proxy", "record", "replay", "scan", "threaddump", "trace",
}

// repeatedPrefix reports the first prefix that labels a message twice
// ("trace: f: trace: bad key"), or "".
func repeatedPrefix(msg string) string {
	seen := map[string]bool{}
	for _, seg := range strings.Split(msg, ": ") {
		for _, p := range prefixes {
			if seg == p {
				if seen[p] {
					return p
				}
				seen[p] = true
			}
		}
	}
	return ""
}

func TestRepeatedPrefix(t *testing.T) {
	for msg, want := range map[string]string{
		"trace: f: trace: bad key":            "trace",
		"f: trace: bad key":                   "",
		"record: header: record: cut short":   "record",
		"adb: sync: adb: closed":              "adb",
		"hprof: the trace: record is not one": "",
	} {
		if got := repeatedPrefix(msg); got != want {
			t.Errorf("repeatedPrefix(%q) = %q, want %q", msg, got, want)
		}
	}
}

// TestErrorsCarryOnePrefix runs commands that fail on bad input and checks
// that each message names each package or command at most once, and leaves
// the program's own "ddmtui:" to main.
func TestErrorsCarryOnePrefix(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.bin")
	if err := os.WriteFile(garbage, []byte("garbage\x00\x01\x02"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"trace", garbage, "--json"},
		{"trace", empty, "--json"},
		{"trace", filepath.Join(dir, "missing.trace"), "--json"},
		{"anr", garbage},
		{"anr", filepath.Join(dir, "missing.txt")},
		{"replay", garbage, "--json"},
		{"replay", empty, "--json"},
		{"replay", filepath.Join(dir, "missing.rec"), "--json"},
		{"record", "-o", filepath.Join(dir, "no", "such", "dir.rec"), "--duration", "10ms", "--scan", "off"},
		{"list", "--json", "--adb", "127.0.0.1:1", "--scan", "off", "--wait", "10ms"},
		{"logcat", "--adb", "127.0.0.1:1"},
	} {
		_, err := runApp(t, args...)
		if err == nil {
			t.Errorf("ddmtui %s: no error", strings.Join(args, " "))
			continue
		}
		msg := err.Error()
		if p := repeatedPrefix(msg); p != "" {
			t.Errorf("ddmtui %s: %q names %q twice", strings.Join(args, " "), msg, p)
		}
		if strings.HasPrefix(msg, "ddmtui:") {
			t.Errorf("ddmtui %s: %q: main adds the program name", strings.Join(args, " "), msg)
		}
		t.Logf("ddmtui %s: %s", strings.Join(args, " "), msg)
	}
}

func TestWrapForKeepsTheChain(t *testing.T) {
	inner := errors.New("trace: key at line 1: bad")
	err := wrapFor("trace", "f.trace", fmt.Errorf("%w", inner))
	if got, want := err.Error(), "trace: f.trace: key at line 1: bad"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	if !errors.Is(err, inner) {
		t.Error("errors.Is lost the wrapped error")
	}
	other := wrapFor("replay", "r.rec", inner)
	if got, want := other.Error(), "replay: r.rec: trace: key at line 1: bad"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}

// A bad command line is one line of error, no usage text on stdout, and
// exit status 2 (issue 29 #8: `list --bogus --json | jq` got 21 lines of
// usage).
func TestUsageErrorIsOneLineAndStatus2(t *testing.T) {
	for _, args := range [][]string{
		{"list", "--bogus", "--json"},
		{"--bogus"},
		{"list", "--wait", "xyz"},
		{"hprof"}, // required flags missing
	} {
		stdout, stderr, err := runAppSplit(t, args...)
		if stdout != "" || stderr != "" {
			t.Errorf("%q printed stdout %q, stderr %q; want only the returned error", args, stdout, stderr)
		}
		if got := ExitStatus(err); got != 2 {
			t.Errorf("%q: exit status %d (err %v), want 2", args, got, err)
		}
		if err != nil && strings.Count(err.Error(), "\n") != 0 {
			t.Errorf("%q: error spans lines: %q", args, err)
		}
	}
	if _, _, err := runAppSplit(t, "list", "--bogus"); err == nil || !strings.Contains(err.Error(), "see ddmtui list --help") {
		t.Errorf("error does not point at the command's help: %v", err)
	}
	if got := ExitStatus(errors.New("x")); got != 1 {
		t.Errorf("ExitStatus(other) = %d, want 1", got)
	}
	if got := ExitStatus(nil); got != 0 {
		t.Errorf("ExitStatus(nil) = %d", got)
	}
}
