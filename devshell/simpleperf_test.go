package devshell

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// The command lines RecordSamples runs, and its refusals: a device older
// than Android 10 (nothing is run), simpleperf missing (the shell's "not
// found"), simpleperf's own message when it writes nothing.
func TestRecordSamplesRefusals(t *testing.T) {
	ctx := context.Background()
	r := SampleRecording{PID: 42, API: 34, Package: "com.example", Duration: 1500 * time.Millisecond, Frequency: 250, CallGraph: "dwarf", OffCPU: true}

	f := &fakeServices{files: map[string][]byte{}}
	d := New(Services{Shell: f.shell, Files: f}, nil)
	old := r
	old.API = 28
	if _, err := RecordSamples(ctx, d, old, &bytes.Buffer{}); !errors.Is(err, ErrSampleAPI) || !strings.Contains(err.Error(), "API 28") {
		t.Fatalf("API 28: %v", err)
	}
	if len(f.commands()) != 0 {
		t.Fatalf("ran %q on an API 28 device", f.commands())
	}
	if _, err := RecordSamples(ctx, d, r, &bytes.Buffer{}); !errors.Is(err, ErrNoSimpleperf) {
		t.Fatalf("no simpleperf: %v", err)
	}
	cmd := f.commands()[0]
	if rm := strings.Join(f.commands()[1:], ";"); !strings.Contains(rm, ".data") || !strings.Contains(rm, ".trace") {
		t.Errorf("device files not removed: %q", rm)
	}
	for _, want := range []string{"simpleperf record --app com.example -p 42 -e cpu-clock -f 250 --call-graph dwarf --trace-offcpu --duration 1.5 -o /data/local/tmp/ddmtui-42-", ".data 2>&1"} {
		if !strings.Contains(cmd, want) {
			t.Fatalf("command %q lacks %q", cmd, want)
		}
	}
	bad := r
	bad.Package = "com.example; reboot"
	before := len(f.commands())
	if _, err := RecordSamples(ctx, d, bad, &bytes.Buffer{}); err == nil || len(f.commands()) != before {
		t.Fatalf("package with a shell word: %v, %q", err, f.commands())
	}

	// A cancelled recording is stopped (its own simpleperf, by its file)
	// and its files removed.
	cctx, cancel := context.WithCancel(ctx)
	slow := &fakeServices{files: map[string][]byte{}}
	d = New(Services{Shell: func(c context.Context, cmd string) ([]byte, error) {
		if strings.HasPrefix(cmd, "simpleperf record") {
			cancel()
			<-c.Done()
			return nil, c.Err()
		}
		return slow.shell(c, cmd)
	}, Files: slow}, nil)
	if _, err := RecordSamples(cctx, d, r, &bytes.Buffer{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
	cmds := strings.Join(slow.commands(), "\n")
	if !strings.Contains(cmds, "pkill -INT -f /data/local/tmp/ddmtui-42-") || !strings.Contains(cmds, "rm -f /data/local/tmp/ddmtui-42-") {
		t.Fatalf("after the cancel: %q", cmds)
	}

	refusing := func(ctx context.Context, cmd string) ([]byte, error) {
		return []byte("simpleperf_app_runner: package com.example is not profileable\x1b[31m\n"), nil
	}
	d = New(Services{Shell: refusing, Files: f}, nil)
	_, err := RecordSamples(ctx, d, r, &bytes.Buffer{})
	if !errors.Is(err, ErrNotProfileable) || !strings.Contains(err.Error(), "is not profileable") {
		t.Fatalf("refused: %v", err)
	}
}
