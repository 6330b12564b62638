package proxy

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/scan"
)

// TestMain starts the runtime's network poller before any test takes a
// leak baseline: its descriptors are created once per process, on first use,
// and are no leak. (Under go test the poller usually starts with the
// process, when stdout is a non-blocking pipe; run directly, it would not.)
//
// With benchClientEnv set, the process is a benchmark's debugger client
// (benchclient_test.go) and runs no tests.
func TestMain(m *testing.M) {
	if spec := os.Getenv(benchClientEnv); spec != "" {
		os.Exit(runBenchClient(spec))
	}
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
	}
	code := m.Run()
	stopJVMSet()
	os.Exit(code)
}

func waitFor(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

var portMu sync.Mutex
var portNext = 20000 + (time.Now().Nanosecond()/1000)%20000

// freeRange finds n consecutive free loopback ports.
func freeRange(t testing.TB, n int) int {
	t.Helper()
	portMu.Lock()
	defer portMu.Unlock()
	for tries := 0; tries < 2000; tries++ {
		base := portNext
		portNext += n + 7
		if portNext > 60000 {
			portNext = 20000
		}
		ok := true
		for p := base; p < base+n && ok; p++ {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				ok = false
				continue
			}
			ln.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no free port range")
	return 0
}

type rig struct {
	t       testing.TB
	engine  *monitor.Engine
	store   *monitor.Store
	proxy   *Proxy
	opts    Options
	pcancel context.CancelFunc
	ecancel context.CancelFunc
	pdone   chan struct{}
	edone   chan struct{}
	stopped bool
}

// startRig monitors the VMs on ports (a local scan) and runs a proxy over
// them. opts.BasePort and SelectedPort default to free ports. prep, if any,
// changes the proxy before it runs.
func startRig(t testing.TB, ports scan.PortRange, opts Options, prep ...func(*Proxy)) *rig {
	t.Helper()
	if opts.BasePort == 0 {
		opts.BasePort = freeRange(t, 4)
	}
	if opts.SelectedPort == 0 {
		opts.SelectedPort = freeRange(t, 1)
	}
	if opts.Grace == 0 {
		opts.Grace = 5 * time.Second
	}
	r := &rig{t: t, opts: opts, pdone: make(chan struct{}), edone: make(chan struct{})}
	r.store = monitor.NewStore(monitor.NewBus())
	r.engine = monitor.NewEngine(r.store, monitor.SessionOptions{
		ThreadInterval: 50 * time.Millisecond, JDWPThreadInterval: 100 * time.Millisecond})
	ectx, ecancel := context.WithCancel(context.Background())
	pctx, pcancel := context.WithCancel(context.Background())
	r.ecancel, r.pcancel = ecancel, pcancel
	go func() {
		defer close(r.edone)
		r.engine.Run(ectx, monitor.Discovery{Local: &scan.Local{Ports: ports, Interval: 40 * time.Millisecond}})
	}()
	r.proxy = New(r.engine, opts)
	for _, f := range prep {
		f(r.proxy)
	}
	go func() {
		defer close(r.pdone)
		if err := r.proxy.Run(pctx); err != nil {
			t.Errorf("proxy.Run: %v", err)
		}
	}()
	t.Cleanup(r.stop)
	return r
}

// stop ends the proxy first (so it can clean up), then the engine.
func (r *rig) stop() {
	if r.stopped {
		return
	}
	r.stopped = true
	r.pcancel()
	<-r.pdone
	r.ecancel()
	<-r.edone
}

func localKey(port int) string { return fmt.Sprintf("local:%d", port) }

// waitPort waits until the VM with key has a listening debugger port.
func (r *rig) waitPort(key string) int {
	r.t.Helper()
	var port int
	waitFor(r.t, key+" debugger port", 10*time.Second, func() bool {
		p, ok := r.proxy.Port(key)
		port = p
		return ok
	})
	return port
}

func (r *rig) vm(key string) monitor.VM {
	vm, _ := r.store.VM(key)
	return vm
}

// dialDebugger connects to a proxy port as a debugger would: handshake, then
// a Conn numbering its commands from base (debuggers use 1).
func dialDebugger(t testing.TB, port int, base uint32) *jdwp.Conn {
	t.Helper()
	nc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := jdwp.ClientHandshake(nc, 5*time.Second); err != nil {
		nc.Close()
		t.Fatalf("handshake with the proxy on %d: %v", port, err)
	}
	c := jdwp.NewConn(nc, jdwp.Options{IDBase: base})
	t.Cleanup(func() { c.Close() })
	return c
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// records returns the inspector's records that match all of the filters.
func (r *rig) records(match func(jdwpspy.Record) bool) []jdwpspy.Record {
	var out []jdwpspy.Record
	for _, rec := range r.proxy.Inspector().Records() {
		if match(rec) {
			out = append(out, rec)
		}
	}
	return out
}

func (r *rig) waitRecord(what string, match func(jdwpspy.Record) bool) jdwpspy.Record {
	r.t.Helper()
	var got jdwpspy.Record
	waitFor(r.t, what, 10*time.Second, func() bool {
		recs := r.records(match)
		if len(recs) == 0 {
			return false
		}
		got = recs[len(recs)-1]
		return true
	})
	return got
}

func summaryHas(s string) func(jdwpspy.Record) bool {
	return func(r jdwpspy.Record) bool { return strings.Contains(r.Summary, s) }
}
