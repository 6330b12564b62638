package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/trace"
)

// ddmtui profile records a trace from a simulated VM over DDM and writes a
// standard .trace file with the VM's threads.
func TestProfileCommandWritesTrace(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("t")
	vm := sim.NewVM(sim.VMSpec{PID: 4321, App: "com.example.prof", Family: sim.ART, Threads: 3, Seed: 5})
	dev.Add(vm)
	dev.Add(sim.NewVM(sim.VMSpec{PID: 4322, App: "jvm", Family: sim.JVM, Seed: 6}))
	defer dev.Close()
	base := freePorts(t, 2)
	if _, err := dev.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	scanFlag := fmt.Sprintf("%d-%d", base, base+1)
	for _, sampling := range []string{"", "1ms"} {
		out := filepath.Join(t.TempDir(), "p.trace")
		args := []string{"profile", "--adb", "off", "--scan", scanFlag, "--pid", "4321", "--duration", "200ms", "-o", out}
		if sampling != "" {
			args = append(args, "--sampling", sampling)
		}
		text, err := runApp(t, args...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, text)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		prof, err := trace.ReadProfile(bytes.NewReader(data), trace.BuildOptions{})
		if err != nil {
			t.Fatalf("written trace does not parse: %v", err)
		}
		have := map[string]bool{}
		for _, th := range prof.Header.Threads {
			have[th.Name] = true
		}
		if !have["main"] || !have["Signal Catcher"] || !strings.Contains(text, "wrote "+out) {
			t.Fatalf("trace threads %v; output %q", prof.Header.Threads, text)
		}
		// --sampling asks for the sampling profiler (SPSS) at that interval;
		// without it, full method tracing (MPSS).
		want := sim.ProfileStart{Mode: ddm.ProfilingMethodTrace, BufferSize: 8 << 20}
		if sampling != "" {
			want = sim.ProfileStart{Mode: ddm.ProfilingSampling, IntervalMicros: 1000, BufferSize: 8 << 20}
		}
		if got := vm.LastProfileStart(); got != want {
			t.Fatalf("--sampling %q started %+v, want %+v", sampling, got, want)
		}
	}
	if vm.ProfilingMode() != 0 {
		t.Fatal("the VM is still tracing")
	}
	// A VM without DDM cannot be profiled; a missing pid is a clear error.
	if _, err := runApp(t, "profile", "--adb", "off", "--scan", scanFlag, "--pid", "99999", "--wait", "300ms", "-o", filepath.Join(t.TempDir(), "x")); err == nil || !strings.Contains(err.Error(), "no VM with pid 99999") {
		t.Fatalf("missing pid: %v", err)
	}
}
