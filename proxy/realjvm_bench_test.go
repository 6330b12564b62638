package proxy

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// The proxy against real JVMs (issue 15, item 5): identical OpenJDK VMs side
// by side, each with benchClasses classes loaded (testdata/manyclasses): one
// reached directly, one through the proxy over the monitor's session, and
// one through a plain TCP relay (two goroutines copying bytes, the least any
// user-space relay does: the floor for a proxy). The same client (a
// jdwp.Conn) talks to each, and the runs are interleaved so that all see the
// same machine load. The VMs are started once per test binary and shared by
// the benchmarks; TestMain ends them.
//
//	go test ./proxy -run '^$' -bench 'RealJVMs' -benchtime 2000x -count 5
//
// PROXY_BENCH_RELAY runs another relay in the plain relay's place (see
// scripts/bench-proxy-floor.sh); PROXY_BENCH_CLASSES changes the number of
// classes (default 20000);
// PROXY_BENCH_SPIN sets the proxy's Options.Spin ("-1ns" turns busy polling
// off).

const (
	cmdVMClassesBySignature uint8 = 2
	cmdVMAllClasses         uint8 = 3
)

// benchClasses is the number of classes each benchmark VM defines.
func benchClasses() int {
	if n, err := strconv.Atoi(os.Getenv("PROXY_BENCH_CLASSES")); err == nil && n > 0 {
		return n
	}
	return 20000
}

// jvmSet is the shared fixture.
type jvmSet struct {
	// addrs are the direct, relayed and proxied addresses, in the order
	// of legs.
	addrs   [3]string
	conns   []*jdwp.Conn // this process's clients, dialed on first use
	proxy   *Proxy
	classes int
	stop    func()
}

var (
	setOnce sync.Once
	jvms    *jvmSet
	setErr  error // why the VMs could not start
	setSkip string
)

// stopJVMSet ends the shared VMs, if they were started (from TestMain).
func stopJVMSet() {
	if jvms != nil {
		jvms.stop()
	}
}

// getJVMSet starts the VMs on first use; a missing java or javac skips
// (fails under CI).
func getJVMSet(b *testing.B) *jvmSet {
	b.Helper()
	setOnce.Do(func() {
		java, javac := testpeer.Find("java"), testpeer.Find("javac")
		if java == "" || javac == "" {
			setSkip = "java or javac is not installed (.ci/run installs them)"
			return
		}
		jvms, setErr = startJVMSet(java, javac, benchClasses())
	})
	if setSkip != "" {
		testpeer.Missing(b, setSkip)
	}
	if setErr != nil {
		b.Fatal(setErr)
	}
	return jvms
}

func startJVMSet(java, javac string, classes int) (_ *jvmSet, err error) {
	var undo []func()
	stop := func() {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	dir, err := os.MkdirTemp("", "ddmtui-proxy-bench-")
	if err != nil {
		return nil, err
	}
	undo = append(undo, func() { os.RemoveAll(dir) })
	src, err := filepath.Abs(filepath.Join("testdata", "manyclasses", "ManyClasses.java"))
	if err != nil {
		return nil, err
	}
	if out, err := exec.Command(javac, "-d", dir, src).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("javac: %v\n%s", err, out)
	}
	start := func() (*exec.Cmd, int, error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, 0, err
		}
		port := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		cmd := exec.Command(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1",
			fmt.Sprintf("-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:%d", port),
			"-cp", dir, "ManyClasses", strconv.Itoa(classes))
		out, err := cmd.StdoutPipe()
		if err != nil {
			return nil, 0, err
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			return nil, 0, err
		}
		undo = append(undo, func() { cmd.Process.Kill(); cmd.Wait() })
		ready := make(chan bool, 1)
		go func() {
			sc := bufio.NewScanner(out)
			ok := false
			for sc.Scan() {
				if !ok && strings.HasPrefix(sc.Text(), "READY") {
					ok = true
					ready <- true
				}
			}
			if !ok {
				ready <- false
			}
		}()
		select {
		case ok := <-ready:
			if ok {
				return cmd, port, nil
			}
			return nil, 0, errors.New("the JVM exited before READY")
		case <-time.After(60 * time.Second):
			return nil, 0, errors.New("the JVM did not print READY within 60s")
		}
	}
	_, directPort, err := start()
	if err != nil {
		return nil, err
	}
	_, proxiedPort, err := start()
	if err != nil {
		return nil, err
	}
	_, relayedPort, err := start()
	if err != nil {
		return nil, err
	}
	relayAddr, stopRelay, err := startRelay(fmt.Sprintf("127.0.0.1:%d", relayedPort))
	if err != nil {
		return nil, err
	}
	if cmdline := strings.Fields(os.Getenv("PROXY_BENCH_RELAY")); len(cmdline) > 0 {
		// Another relay in the relay's place (scripts/relayfloor): it is
		// started as CMD... LISTEN_PORT TARGET_PORT.
		stopRelay()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		lport := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		cmd := exec.Command(cmdline[0], append(cmdline[1:], strconv.Itoa(lport), strconv.Itoa(relayedPort))...)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			return nil, fmt.Errorf("PROXY_BENCH_RELAY: %w", err)
		}
		relayAddr = fmt.Sprintf("127.0.0.1:%d", lport)
		stopRelay = func() { cmd.Process.Kill(); cmd.Wait() }
	}
	undo = append(undo, stopRelay)

	// The monitor with its default polling, as ddmtui runs it.
	store := monitor.NewStore(monitor.NewBus())
	engine := monitor.NewEngine(store, monitor.SessionOptions{})
	ectx, ecancel := context.WithCancel(context.Background())
	edone := make(chan struct{})
	go func() {
		defer close(edone)
		engine.Run(ectx, monitor.Discovery{Local: &scan.Local{
			Ports: scan.PortRange{First: proxiedPort, Last: proxiedPort}, Interval: 40 * time.Millisecond}})
	}()
	undo = append(undo, func() { ecancel(); <-edone })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	base := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	spin, _ := time.ParseDuration(os.Getenv("PROXY_BENCH_SPIN")) // "-1ns": no busy polling
	p := New(engine, Options{BasePort: base, SelectedPort: -1, Spin: spin})
	pctx, pcancel := context.WithCancel(context.Background())
	pdone := make(chan struct{})
	go func() {
		defer close(pdone)
		p.Run(pctx)
	}()
	undo = append(undo, func() { pcancel(); <-pdone })
	key := fmt.Sprintf("local:%d", proxiedPort)
	var port int
	for deadline := time.Now().Add(30 * time.Second); ; {
		var ok bool
		if port, ok = p.Port(key); ok {
			break
		}
		if time.Now().After(deadline) {
			return nil, errors.New("the proxied JVM got no debugger port")
		}
		time.Sleep(20 * time.Millisecond)
	}
	jp := &jvmSet{
		addrs:   [3]string{fmt.Sprintf("127.0.0.1:%d", directPort), relayAddr, fmt.Sprintf("127.0.0.1:%d", port)},
		proxy:   p,
		classes: classes,
	}
	undo = append(undo, jp.hangUp)
	jp.stop = stop
	if _, err := jp.dial(); err != nil {
		return nil, err
	}
	return jp, nil
}

// dial connects this process's client to each leg, unless it is connected.
// A VM takes one debugger at a time, and so does the proxy's port: the
// first dial through the proxy waits for the session's HELO to be decided,
// and a dial after hangUp for the proxy to let the last debugger go.
func (jp *jvmSet) dial() ([]*jdwp.Conn, error) {
	if jp.conns != nil {
		return jp.conns, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var conns []*jdwp.Conn
	for _, addr := range jp.addrs {
		c, err := dialAnswering(ctx, addr)
		if err != nil {
			for _, c := range conns {
				c.Close()
			}
			return nil, err
		}
		conns = append(conns, c)
	}
	jp.conns = conns
	return conns, nil
}

// dialAnswering dials addr until a VirtualMachine.Version gets an answer.
func dialAnswering(ctx context.Context, addr string) (*jdwp.Conn, error) {
	for {
		c, err := jdwp.Dial(ctx, addr, jdwp.Options{IDBase: 1})
		if err == nil {
			if _, err = c.Version(ctx); err == nil {
				return c, nil
			}
			c.Close()
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s does not answer: %w", addr, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// hangUp closes this process's clients, so that another process can attach.
func (jp *jvmSet) hangUp() {
	for _, c := range jp.conns {
		c.Close()
	}
	jp.conns = nil
}

// startRelay listens on a loopback port and relays one connection at a time
// to target, byte for byte, with a goroutine per direction.
func startRelay(target string) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, t)
			mu.Unlock()
			wg.Add(2)
			pipe := func(dst, src net.Conn) {
				defer wg.Done()
				buf := make([]byte, 64<<10)
				for {
					n, err := src.Read(buf)
					if n > 0 {
						if _, werr := dst.Write(buf[:n]); werr != nil {
							break
						}
					}
					if err != nil {
						break
					}
				}
				dst.Close()
				src.Close()
			}
			go pipe(t, c)
			go pipe(c, t)
		}
	}()
	stop := func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	}
	return ln.Addr().String(), stop, nil
}

// legTimes are the times of each operation on one leg.
type legTimes []time.Duration

// median is the middle time: on a shared machine a few operations are
// preempted for milliseconds, which a mean would carry into the ratio.
func (t legTimes) median() float64 {
	s := slices.Clone(t)
	slices.Sort(s)
	return float64(s[len(s)/2].Nanoseconds())
}

func (t legTimes) mean() float64 {
	var sum time.Duration
	for _, d := range t {
		sum += d
	}
	return float64(sum.Nanoseconds()) / float64(len(t))
}

// usage is this process's CPU time and voluntary context switches so far.
// The VMs are other processes: what a leg adds here is the client's work and,
// on the relayed and proxied legs, the relay's or the proxy's (with the
// monitor's session reader). On a shared machine these move far less than
// wall times do.
func usage() (cpu time.Duration, switches int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Nvcsw
}

// legUsage sums usage over one leg's operations.
type legUsage struct {
	cpu      time.Duration
	switches int64
}

// interleave runs op on the direct, relayed and proxied connections in
// turn, b.N times each (after a warm-up), rotating which goes first, and
// returns the times and usage of each leg and the bytes of op's last result.
func interleave(b *testing.B, jp *jvmSet, op func(*jdwp.Conn) (int, error)) (times [3]legTimes, use [3]legUsage, bytes int) {
	legs, err := jp.dial()
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		for _, c := range legs {
			if _, err := op(c); err != nil {
				b.Fatal(err)
			}
		}
	}
	for j := range times {
		times[j] = make(legTimes, 0, b.N)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := 0; k < len(legs); k++ {
			j := (i + k) % len(legs)
			c0, s0 := usage()
			t0 := time.Now()
			n, err := op(legs[j])
			d := time.Since(t0)
			c1, s1 := usage()
			if err != nil {
				b.Fatal(err)
			}
			times[j] = append(times[j], d)
			use[j].cpu += c1 - c0
			use[j].switches += s1 - s0
			bytes = n
		}
	}
	b.StopTimer()
	return times, use, bytes
}

// reportLegs reports each leg's median time per operation and the ratios
// of medians to direct: ratio (proxy) and relay-ratio (the plain relay, the
// floor); mean-ratio is the proxy's ratio of means.
func reportLegs(b *testing.B, times [3]legTimes, use [3]legUsage) {
	reportUsage(b, use)
	d, r, p := times[0].median(), times[1].median(), times[2].median()
	b.ReportMetric(d/1000, "direct-µs")
	b.ReportMetric(r/1000, "relay-µs")
	b.ReportMetric(p/1000, "proxy-µs")
	b.ReportMetric(r/d, "relay-ratio")
	b.ReportMetric(p/d, "ratio")
	b.ReportMetric(times[2].mean()/times[0].mean(), "mean-ratio")
}

// BenchmarkRealJVMsVersion: VirtualMachine.Version back to back on each
// leg, from a client in a process of its own. ratio is proxied / direct
// time (target ≤ 1.2); relay-ratio the same for the plain relay.
func BenchmarkRealJVMsVersion(b *testing.B) {
	jp := getJVMSet(b)
	s0 := jp.proxy.SpinStats()
	times, use := clientRoundTrips(b, jp, jdwp.CmdSetVirtualMachine, jdwp.CmdVMVersion, nil)
	reportLegs(b, times, use)
	reportSpins(b, s0, jp.proxy.SpinStats())
}

// BenchmarkRealJVMsAllClasses: VirtualMachine.AllClasses of a VM with
// benchClasses classes (a reply of about 1 MB), direct and through the
// proxy (and the relay). throughput is direct time / proxied time (target
// ≥ 0.9).
func BenchmarkRealJVMsAllClasses(b *testing.B) {
	jp := getJVMSet(b)
	ctx := context.Background()
	times, use, n := interleave(b, jp, func(c *jdwp.Conn) (int, error) {
		pk, err := c.Request(ctx, jdwp.CmdSetVirtualMachine, cmdVMAllClasses, nil)
		if err != nil {
			return 0, err
		}
		if len(pk.Data) < 4 || int(binary.BigEndian.Uint32(pk.Data)) < jp.classes {
			return 0, fmt.Errorf("AllClasses: %d bytes, fewer than %d classes", len(pk.Data), jp.classes)
		}
		return len(pk.Data), nil
	})
	reportThroughput(b, times, use, n)
}

// BenchmarkRealJVMsClassesBySignature: VirtualMachine.ClassesBySignature
// of one generated class (a small reply that makes the VM search every
// loaded class), on each leg, from a client in a process of its own.
func BenchmarkRealJVMsClassesBySignature(b *testing.B) {
	jp := getJVMSet(b)
	sig := fmt.Sprintf("Lgen/C%d;", jp.classes/2)
	data := binary.BigEndian.AppendUint32(nil, uint32(len(sig)))
	data = append(data, sig...)
	times, use := clientRoundTrips(b, jp, jdwp.CmdSetVirtualMachine, cmdVMClassesBySignature, data)
	reportLegs(b, times, use)
}

// reportSpins reports the proxy's busy polls per proxied command: taken
// and caught, waiting for the VM's reply and for the client's next command;
// the quick waits not polled for because polling did not pay (unpolled),
// and the polls ended by preemption.
func reportSpins(b *testing.B, s0, s1 SpinStats) {
	n := float64(b.N)
	b.ReportMetric(float64(s1.ReplyPolls-s0.ReplyPolls)/n, "reply-polls")
	b.ReportMetric(float64(s1.ReplyCaught-s0.ReplyCaught)/n, "reply-caught")
	b.ReportMetric(float64(s1.CommandPolls-s0.CommandPolls)/n, "command-polls")
	b.ReportMetric(float64(s1.CommandCaught-s0.CommandCaught)/n, "command-caught")
	b.ReportMetric(float64(s1.ReplyPlain-s0.ReplyPlain)/n, "reply-unpolled")
	b.ReportMetric(float64(s1.CommandPlain-s0.CommandPlain)/n, "command-unpolled")
	b.ReportMetric(float64(s1.ReplyGated-s0.ReplyGated+s1.CommandGated-s0.CommandGated)/n, "gated")
	b.ReportMetric(float64(s1.ReplyPreempted-s0.ReplyPreempted+s1.CommandPreempted-s0.CommandPreempted)/n, "polls-preempted")
}

// reportUsage reports this process's CPU time and voluntary context
// switches per operation on each leg (direct: the client alone).
func reportUsage(b *testing.B, use [3]legUsage) {
	for j, name := range []string{"direct", "relay", "proxy"} {
		b.ReportMetric(float64(use[j].cpu.Nanoseconds())/float64(b.N)/1000, name+"-cpu-µs")
		b.ReportMetric(float64(use[j].switches)/float64(b.N), name+"-switches")
	}
}

// reportThroughput reports the rates of a large reply on each leg (from the
// median times) and the throughput ratios to direct (direct time / leg
// time).
func reportThroughput(b *testing.B, times [3]legTimes, use [3]legUsage, bytes int) {
	reportUsage(b, use)
	d, r, p := times[0].median(), times[1].median(), times[2].median()
	b.ReportMetric(float64(bytes), "reply-bytes")
	b.ReportMetric(float64(bytes)/(d/1e9)/1e6, "direct-MB/s")
	b.ReportMetric(float64(bytes)/(r/1e9)/1e6, "relay-MB/s")
	b.ReportMetric(float64(bytes)/(p/1e9)/1e6, "proxy-MB/s")
	b.ReportMetric(d/r, "relay-throughput")
	b.ReportMetric(d/p, "throughput")
}
