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
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/internal/testpeer"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/scan"
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
// PROXY_BENCH_CLASSES changes the number of classes (default 20000).

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
	direct, relayed, proxied *jdwp.Conn
	proxy                    *Proxy
	classes                  int
	stop                     func()
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
	undo = append(undo, stopRelay)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dc, err := jdwp.Dial(ctx, fmt.Sprintf("127.0.0.1:%d", directPort), jdwp.Options{IDBase: 1})
	if err != nil {
		return nil, fmt.Errorf("dial the direct JVM: %w", err)
	}
	undo = append(undo, func() { dc.Close() })
	rc, err := jdwp.Dial(ctx, relayAddr, jdwp.Options{IDBase: 1})
	if err != nil {
		return nil, fmt.Errorf("dial the relayed JVM: %w", err)
	}
	undo = append(undo, func() { rc.Close() })

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
	p := New(engine, Options{BasePort: base, SelectedPort: -1})
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
	var pc *jdwp.Conn
	for deadline := time.Now().Add(30 * time.Second); ; {
		// The port listens once the session is known; the attach waits
		// for the session's HELO to be decided.
		if pc, err = jdwp.Dial(ctx, fmt.Sprintf("127.0.0.1:%d", port), jdwp.Options{IDBase: 1}); err == nil {
			if _, err = pc.Version(ctx); err == nil {
				break
			}
			pc.Close()
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the proxied JVM does not answer through the proxy: %w", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	undo = append(undo, func() { pc.Close() })
	return &jvmSet{direct: dc, relayed: rc, proxied: pc, proxy: p, classes: classes, stop: stop}, nil
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

// legs are the three ways to the VMs, in the order interleave returns them.
func (jp *jvmSet) legs() []*jdwp.Conn { return []*jdwp.Conn{jp.direct, jp.relayed, jp.proxied} }

// interleave runs op on the direct, relayed and proxied connections in
// turn, b.N times each (after a warm-up), rotating which goes first, and
// returns the total time of each and the bytes of op's last result.
func interleave(b *testing.B, jp *jvmSet, op func(*jdwp.Conn) (int, error)) (times [3]time.Duration, bytes int) {
	legs := jp.legs()
	for i := 0; i < 3; i++ {
		for _, c := range legs {
			if _, err := op(c); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for k := 0; k < len(legs); k++ {
			j := (i + k) % len(legs)
			t0 := time.Now()
			n, err := op(legs[j])
			if err != nil {
				b.Fatal(err)
			}
			times[j] += time.Since(t0)
			bytes = n
		}
	}
	b.StopTimer()
	return times, bytes
}

// reportLegs reports each leg's time per operation and the ratios to
// direct: ratio (proxy) and relay-ratio (the plain relay, the floor).
func reportLegs(b *testing.B, times [3]time.Duration) {
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) }
	d, r, p := per(times[0]), per(times[1]), per(times[2])
	b.ReportMetric(d/1000, "direct-µs")
	b.ReportMetric(r/1000, "relay-µs")
	b.ReportMetric(p/1000, "proxy-µs")
	b.ReportMetric(r/d, "relay-ratio")
	b.ReportMetric(p/d, "ratio")
}

// BenchmarkRealJVMsVersion: VirtualMachine.Version back to back on each
// leg. ratio is proxied / direct time (target ≤ 1.2); relay-ratio the same
// for the plain relay.
func BenchmarkRealJVMsVersion(b *testing.B) {
	jp := getJVMSet(b)
	ctx := context.Background()
	times, _ := interleave(b, jp, func(c *jdwp.Conn) (int, error) {
		pk, err := c.Request(ctx, jdwp.CmdSetVirtualMachine, jdwp.CmdVMVersion, nil)
		if err != nil {
			return 0, err
		}
		return len(pk.Data), nil
	})
	reportLegs(b, times)
}

// BenchmarkRealJVMsAllClasses: VirtualMachine.AllClasses of a VM with
// benchClasses classes (a reply of about 1 MB), direct and through the
// proxy (and the relay). throughput is direct time / proxied time (target
// ≥ 0.9).
func BenchmarkRealJVMsAllClasses(b *testing.B) {
	jp := getJVMSet(b)
	ctx := context.Background()
	times, n := interleave(b, jp, func(c *jdwp.Conn) (int, error) {
		pk, err := c.Request(ctx, jdwp.CmdSetVirtualMachine, cmdVMAllClasses, nil)
		if err != nil {
			return 0, err
		}
		if len(pk.Data) < 4 || int(binary.BigEndian.Uint32(pk.Data)) < jp.classes {
			return 0, fmt.Errorf("AllClasses: %d bytes, fewer than %d classes", len(pk.Data), jp.classes)
		}
		return len(pk.Data), nil
	})
	reportThroughput(b, times, n)
}

// BenchmarkRealJVMsClassesBySignature: VirtualMachine.ClassesBySignature
// of one generated class (a small reply that makes the VM search every
// loaded class), on each leg.
func BenchmarkRealJVMsClassesBySignature(b *testing.B) {
	jp := getJVMSet(b)
	ctx := context.Background()
	sig := fmt.Sprintf("Lgen/C%d;", jp.classes/2)
	data := binary.BigEndian.AppendUint32(nil, uint32(len(sig)))
	data = append(data, sig...)
	times, _ := interleave(b, jp, func(c *jdwp.Conn) (int, error) {
		pk, err := c.Request(ctx, jdwp.CmdSetVirtualMachine, cmdVMClassesBySignature, data)
		if err != nil {
			return 0, err
		}
		if len(pk.Data) < 4 || binary.BigEndian.Uint32(pk.Data) != 1 {
			return 0, fmt.Errorf("ClassesBySignature %s: not one class", sig)
		}
		return len(pk.Data), nil
	})
	reportLegs(b, times)
}

// reportThroughput reports the rates of a large reply on each leg and the
// throughput ratios to direct (direct time / leg time).
func reportThroughput(b *testing.B, times [3]time.Duration, bytes int) {
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) }
	d, r, p := per(times[0]), per(times[1]), per(times[2])
	b.ReportMetric(float64(bytes), "reply-bytes")
	b.ReportMetric(float64(bytes)/(d/1e9)/1e6, "direct-MB/s")
	b.ReportMetric(float64(bytes)/(r/1e9)/1e6, "relay-MB/s")
	b.ReportMetric(float64(bytes)/(p/1e9)/1e6, "proxy-MB/s")
	b.ReportMetric(d/r, "relay-throughput")
	b.ReportMetric(d/p, "throughput")
}
