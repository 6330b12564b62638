package proxy

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/testjvm"
)

// BenchmarkRoundTripSim measures a VirtualMachine.Version round trip
// directly to a simulated JVM-family VM and, interleaved so both see the
// same machine load, through the proxy to an identical VM that the monitor
// holds. It reports both latencies and their ratio.
func BenchmarkRoundTripSim(b *testing.B) {
	spec := sim.VMSpec{PID: 7, App: "jvm", Family: sim.JVM, Threads: 2, Seed: 1}
	dev := sim.NewDevice("bench")
	direct := sim.NewVM(spec)
	spec.PID = 8
	proxied := sim.NewVM(spec)
	dev.Add(direct)
	dev.Add(proxied)
	directAddr, err := dev.ServeVM(direct, "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	base := freeRange(b, 1)
	if _, err := dev.ServeVM(proxied, "127.0.0.1:"+strconv.Itoa(base)); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { dev.Close() })

	ctx := context.Background()
	dc, err := jdwp.Dial(ctx, directAddr, jdwp.Options{IDBase: 1})
	if err != nil {
		b.Fatal(err)
	}
	defer dc.Close()
	r := startRig(b, onePort(base), Options{})
	port := r.waitPort(localKey(base))
	pc := dialDebugger(b, port, 1)
	roundTrips(b, dc, pc)
}

// BenchmarkRoundTripRealJVM does the same against one real JVM: first
// directly, then through the proxy (a JVM takes one connection at a time).
func BenchmarkRoundTripRealJVM(b *testing.B) {
	jvm := testjvm.Start(b)
	ctx := context.Background()
	dc, err := jdwp.Dial(ctx, jvm.Addr, jdwp.Options{IDBase: 1})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var directTotal time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := dc.Version(ctx); err != nil {
			b.Fatal(err)
		}
		directTotal += time.Since(t0)
	}
	b.StopTimer()
	dc.Close()
	time.Sleep(200 * time.Millisecond) // the agent goes back to listening

	r := startRig(b, onePort(jvm.Port), Options{})
	port := r.waitPort(localKey(jvm.Port))
	pc := dialDebugger(b, port, 1)
	if _, err := pc.Version(ctx); err != nil {
		b.Fatal(err)
	}
	b.StartTimer()
	var proxyTotal time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := pc.Version(ctx); err != nil {
			b.Fatal(err)
		}
		proxyTotal += time.Since(t0)
	}
	b.StopTimer()
	report(b, directTotal, proxyTotal)
}

func roundTrips(b *testing.B, direct, proxied *jdwp.Conn) {
	ctx := context.Background()
	for _, c := range []*jdwp.Conn{direct, proxied} { // warm up
		if _, err := c.Version(ctx); err != nil {
			b.Fatal(err)
		}
	}
	var dt, pt time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := direct.Version(ctx); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := proxied.Version(ctx); err != nil {
			b.Fatal(err)
		}
		dt += t1.Sub(t0)
		pt += time.Since(t1)
	}
	b.StopTimer()
	report(b, dt, pt)
}

func report(b *testing.B, direct, proxied time.Duration) {
	d := float64(direct.Nanoseconds()) / float64(b.N)
	p := float64(proxied.Nanoseconds()) / float64(b.N)
	b.ReportMetric(d/1000, "direct-µs")
	b.ReportMetric(p/1000, "proxy-µs")
	b.ReportMetric(p/d, "ratio")
}
