package adbd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestBasicShell(t *testing.T) {
	var signals []string
	sh := BasicShell{
		Properties: func() map[string]string {
			return map[string]string{"ro.product.model": "DDM Sim", "ro.build.version.sdk": "29"}
		},
		ReadFile: func(p string) ([]byte, error) {
			switch p {
			case "/data/anr/traces.txt":
				return []byte("----- pid 42 -----\n"), nil
			case "/secret":
				return nil, fs.ErrPermission
			}
			return nil, fs.ErrNotExist
		},
		Signal: func(pid int, sig syscall.Signal) error {
			if pid != 42 {
				return ErrNoProcess
			}
			signals = append(signals, fmt.Sprintf("%d/%d", pid, sig))
			return nil
		},
	}
	tests := []struct {
		cmd  string
		out  string
		code int
		sigs []string
	}{
		{"echo hi", "hi\n", 0, nil},
		{"echo  'a  b'   \"c\"d", "a  b cd\n", 0, nil},
		{"echo", "\n", 0, nil},
		{"", "", 0, nil},
		{"getprop ro.product.model", "DDM Sim\n", 0, nil},
		{"getprop no.such", "\n", 0, nil},
		{"getprop", "[ro.build.version.sdk]: [29]\n[ro.product.model]: [DDM Sim]\n", 0, nil},
		{"cat /data/anr/traces.txt", "----- pid 42 -----\n", 0, nil},
		{"cat /nope /data/anr/traces.txt", "cat: /nope: No such file or directory\n----- pid 42 -----\n", 1, nil},
		{"cat /secret", "cat: /secret: permission denied\n", 1, nil},
		{"kill -3 42", "", 0, []string{"42/3"}},
		{"kill -SIGQUIT 42", "", 0, []string{"42/3"}},
		{"kill -s QUIT 42", "", 0, []string{"42/3"}},
		{"kill -quit 42", "", 0, []string{"42/3"}},
		{"kill 42", "", 0, []string{"42/15"}},
		{"kill -9 43", "/system/bin/sh: kill: 43: No such process\n", 1, nil},
		{"kill -FOO 42", "/system/bin/sh: kill: FOO: invalid signal specification\n", 1, nil},
		{"kill -3 x", "/system/bin/sh: kill: x: arguments must be process or job IDs\n", 1, nil},
		{"kill -3", "usage: kill [-s SIGNAL | -SIGNAL] PID...\n", 1, nil},
		{"am dumpheap 42 /x", "/system/bin/sh: am: not found\n", 127, nil},
		{"echo 'open", "/system/bin/sh: syntax error: unterminated quoted string\n", 2, nil},
	}
	removed := map[string]bool{}
	sh.Remove = func(p string) error {
		if p != "/data/local/tmp/x" || removed[p] {
			return fs.ErrNotExist
		}
		removed[p] = true
		return nil
	}
	sh.Commands = map[string]func(context.Context, []string, io.Writer) int{
		"debuggerd": func(_ context.Context, args []string, out io.Writer) int {
			fmt.Fprintf(out, "args %q\n", args)
			return 3
		},
	}
	tests = append(tests, []struct {
		cmd  string
		out  string
		code int
		sigs []string
	}{
		{"rm -f /data/local/tmp/x", "", 0, nil},
		{"rm /data/local/tmp/x", "rm: /data/local/tmp/x: No such file or directory\n", 1, nil},
		{"rm -f /data/local/tmp/x", "", 0, nil},
		{"debuggerd -j '42'", "args [\"-j\" \"42\"]\n", 3, nil},
	}...)
	for _, tt := range tests {
		signals = nil
		var out strings.Builder
		code, err := sh.Run(context.Background(), tt.cmd, &out)
		if err != nil || code != tt.code || out.String() != tt.out || !slices.Equal(signals, tt.sigs) {
			t.Errorf("%q: exit %d, out %q, signals %v, err %v; want exit %d, out %q, signals %v",
				tt.cmd, code, out.String(), signals, err, tt.code, tt.out, tt.sigs)
		}
	}
	// A zero BasicShell fails every command politely.
	var out strings.Builder
	if code, _ := (BasicShell{}).Run(context.Background(), "cat /x", &out); code != 1 || out.String() != "cat: /x: No such file or directory\n" {
		t.Errorf("zero shell cat: %d %q", code, out.String())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sh.Run(ctx, "echo hi", &out); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestPIDSet(t *testing.T) {
	var s PIDSet
	pids, ch := s.Snapshot()
	if len(pids) != 0 {
		t.Fatalf("zero set: %v", pids)
	}
	s.Add(9)
	s.Add(3)
	select {
	case <-ch:
	case <-time.After(time.Second):
		t.Fatal("no change signalled")
	}
	pids, ch = s.Snapshot()
	if !slices.Equal(pids, []int{3, 9}) || !s.Contains(9) || s.Contains(4) {
		t.Fatalf("pids %v", pids)
	}
	s.Add(3)    // already present
	s.Remove(4) // absent
	select {
	case <-ch:
		t.Fatal("change signalled for no change")
	default:
	}
	s.Remove(3)
	select {
	case <-ch:
	default:
		t.Fatal("removal not signalled")
	}
}
