package monitor

import (
	"context"
	"io"
	"strings"
	"time"

	"github.com/ddmtui/ddmtui/devshell"
)

// SampleOptions configure Session.RecordSamples (issue 36).
type SampleOptions struct {
	Duration  time.Duration
	Frequency int    // samples per second; 0: 1000
	CallGraph string // "fp" or "dwarf"; "": fp
	OffCPU    bool
	Limit     int64 // the converted recording's bound (≤ 0: SessionOptions.MaxDeviceFile)
	Stage     func(string)
}

// RecordSamples samples the process's CPU with simpleperf on its device
// (devshell.RecordSamples: record as the app, convert with report-sample,
// pull, remove) and writes the report-sample stream to w. Any profileable
// or debuggable app on Android 10+ can be sampled: JDWP is not needed.
func (s *Session) RecordSamples(ctx context.Context, o SampleOptions, w io.Writer) (int64, error) {
	if s.dev == nil {
		return 0, ErrNoDevice
	}
	vm, _ := s.store.VM(s.key)
	pkg := vm.Package
	if pkg == "" {
		pkg, _, _ = strings.Cut(vm.App, ":")
	}
	if pkg == "" || pkg == "<pre-initialized>" {
		// Not named yet (a profileable process is named from its
		// cmdline, which may not have been read): read it now.
		if out, err := devshell.Cmdline(ctx, s.dev, s.pid); err == nil {
			if name, ok := devshell.ParseCmdline(out); ok {
				pkg, _, _ = strings.Cut(name, ":")
			}
		}
	}
	limit := o.Limit
	if limit <= 0 {
		limit = s.opts.MaxDeviceFile
	}
	return devshell.RecordSamples(ctx, s.dev, devshell.SampleRecording{
		PID: s.pid, API: vm.API, Package: pkg, Duration: o.Duration, Frequency: o.Frequency,
		CallGraph: o.CallGraph, OffCPU: o.OffCPU, Limit: limit, Stage: o.Stage, Log: s.log,
	}, w)
}
