package monitor

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/devshell"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/simpleperf"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/testkit/testadb"
	"github.com/ddmtui/ddmtui/trace"
)

// Through the real adb server to a simulated Android 14 device: the
// debuggable app and the profileable release app (no JDWP) are sampled
// with simpleperf (record as the app, report-sample on the device, sync
// pull, files removed); the recording loads, names the app and its type,
// and its hottest Java method is the hottest of the method trace the same
// VM sends. system_process is refused with simpleperf's own message.
func TestRecordSamplesThroughRealADB(t *testing.T) {
	leakcheck.Check(t)
	srv := testadb.New(t)
	dev, addr := trackAppDevice(t, 34, 7000)
	dev.Add(sim.NewVM(sim.VMSpec{PID: 7002, App: "system_process", Package: "android", Family: sim.ART, API: 34, Threads: 2, Seed: 3}))
	srv.Start()
	srv.Connect(addr)

	store := NewStore(NewBus())
	engine := NewEngine(store, SessionOptions{ThreadInterval: 100 * time.Millisecond})
	a := &scan.ADB{Client: srv.Client(), Retry: 200 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx, Discovery{ADB: []Runner{a}}) }()
	defer func() {
		cancel()
		<-done
		srv.Kill()
	}()
	keys := map[int]string{}
	waitFor(t, "the three processes", 15*time.Second, func() bool {
		for _, vm := range store.VMs() {
			if vm.API == 34 && (vm.Package != "" || vm.App != "") {
				keys[vm.PID] = vm.Key
			}
		}
		return len(keys) == 3
	})
	for pid, appType := range map[int]string{7000: "debuggable", 7001: "profileable"} {
		rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
		var buf bytes.Buffer
		var stages []string
		n, err := engine.Session(keys[pid]).RecordSamples(rctx, SampleOptions{Duration: time.Second, Frequency: 1000,
			Stage: func(s string) { stages = append(stages, s) }}, &buf)
		rcancel()
		if err != nil {
			t.Fatalf("pid %d: %v", pid, err)
		}
		if n != int64(buf.Len()) || strings.Join(stages, ",") != "recording,converting,pulling" {
			t.Fatalf("pid %d: %d bytes of %d, stages %q", pid, n, buf.Len(), stages)
		}
		p, err := simpleperf.Load(bytes.NewReader(buf.Bytes()), simpleperf.LoadOptions{})
		if err != nil {
			t.Fatalf("pid %d: %v", pid, err)
		}
		if p.Meta.AppType != appType || p.Meta.SDKVersion != "34" || p.Trace.Sampling.Samples == 0 {
			t.Fatalf("pid %d: meta %+v, %d samples", pid, p.Meta, p.Trace.Sampling.Samples)
		}
		// The hottest Java method of the samples is the method trace's.
		java := p.Trace.Sampling.JavaMethods
		jp := p.Trace.Projected(func(m int32) bool { return java[m] })
		tr, err := dev.VM(pid).MethodProfile()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := hottest(jp, trace.ClockCPU), hottest(tr, trace.ClockWall); got != want {
			t.Errorf("pid %d: hottest sampled method %q, the method trace's %q", pid, got, want)
		}
	}
	_, err := engine.Session(keys[7002]).RecordSamples(ctx, SampleOptions{Duration: 100 * time.Millisecond}, &bytes.Buffer{})
	if !errors.Is(err, devshell.ErrNotProfileable) || !strings.Contains(err.Error(), "not profileable or debuggable") {
		t.Fatalf("system_process: %v", err)
	}
	entries, _ := fs.ReadDir(dev.Files(), "data/local/tmp")
	if len(entries) != 0 {
		t.Errorf("%d files left on the device", len(entries))
	}
}

// hottest is the method with the most exclusive weight on clock c.
func hottest(p *trace.Profile, c trace.Clock) string {
	best, name := uint64(0), ""
	for _, ms := range p.All.Methods {
		if ms.Index >= 2 && ms.Exclusive[c] > best {
			best, name = ms.Exclusive[c], p.Name(ms.Index)
		}
	}
	return name
}
