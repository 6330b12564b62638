package proxy

import (
	"encoding/binary"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// stallLimit is how long a proxy operation may take while another one waits
// on the network or on the session before the test calls it stuck. It only
// tells a deadlock from a slow machine: the operations take microseconds.
const stallLimit = 10 * time.Second

// within runs fn on its own goroutine and reports whether it returned within
// stallLimit (fn may stay blocked after a false).
func within(fn func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
		return true
	case <-time.After(stallLimit):
		return false
	}
}

// A listen that takes its time (a slow or stuck bind) does not hold the
// proxy's lock: ports, selection and port lookups answer meanwhile, and the
// port is taken once the listen returns.
func TestListenDoesNotStallProxy(t *testing.T) {
	leakcheck.Check(t)
	_, rng := startFakeVMs(t, 1)
	base := freeRange(t, 2)
	vmAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(base))
	entered := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	r := startRig(t, rng, Options{BasePort: base}, func(p *Proxy) {
		p.listen = func(network, addr string) (net.Listener, error) {
			if addr == vmAddr {
				once.Do(func() { close(entered) })
				<-release
			}
			return net.Listen(network, addr)
		}
	})
	var releaseOnce sync.Once
	unblock := func() { releaseOnce.Do(func() { close(release) }) }
	t.Cleanup(unblock) // before the rig stops (cleanups run last first)
	select {
	case <-entered:
	case <-time.After(stallLimit):
		t.Fatal("the proxy never opened the VM's port")
	}
	key := localKey(rng.First)
	if !within(func() {
		r.proxy.Ports()
		r.proxy.Select(key)
		r.proxy.Selected()
		r.proxy.Port(key)
	}) {
		unblock()
		t.Fatal("Ports/Select/Port blocked while a debugger port's listen ran: the proxy holds its lock across net.Listen")
	}
	unblock()
	if got := r.waitPort(key); got != base {
		t.Fatalf("port %d, want %d", got, base)
	}
	waitFor(t, "the VM's debug port", 10*time.Second, func() bool { return r.vm(key).DebugPort == base })
}

// composite is an Event.Composite from the VM with one event of kind on
// thread, for request 0 and suspend policy NONE.
func composite(id uint32, kind uint8, thread uint64) *jdwp.Packet {
	data := []byte{0, 0, 0, 0, 1, kind}
	data = binary.BigEndian.AppendUint32(data, 0)
	data = binary.BigEndian.AppendUint64(data, thread)
	return jdwp.NewCommand(id, jdwp.CmdSetEvent, jdwp.CmdEventComposite, data)
}

// The proxy calls the session's SetPassthrough without its own lock held:
// a session that calls back into the proxy from there (here: the passthrough
// it was just given delivers a packet at once, as the session's reader may,
// and the proxy's ports are read) does not deadlock. A packet delivered
// that early still comes after the ones SetPassthrough returns (what the VM
// sent before, e.g. VM_START of a JVM started with suspend=y) when a
// debugger attaches.
func TestSetPassthroughCallsBackIntoProxy(t *testing.T) {
	leakcheck.Check(t)
	vm := startFakeVM(t)
	key := localKey(vm.port())
	// The "session" returns a VM_START as sent before the passthrough, and
	// delivers a THREAD_START through the passthrough before returning.
	before := composite(0x10000100, jdwp.EventVMStart, 0x100)
	after := composite(0x10000101, jdwp.EventThreadStart, 0x101)
	var stuck sync.Once
	r := startRig(t, onePort(vm.port()), Options{}, func(p *Proxy) {
		p.setPassthrough = func(s *monitor.Session, fn func(*jdwp.Packet)) []*jdwp.Packet {
			early := s.Link().SetPassthrough(fn)
			if fn == nil {
				return early
			}
			if !within(func() {
				p.Ports()
				p.Port(key)
				fn(after)
			}) {
				stuck.Do(func() {
					t.Error("calling into the proxy from SetPassthrough blocked: the proxy holds its lock across the call into the session")
				})
			}
			return append(early, before)
		}
	})
	port := r.waitPort(key)
	dbg := dialDebugger(t, port, 1)
	for i, want := range []uint8{jdwp.EventVMStart, jdwp.EventThreadStart} {
		select {
		case ev := <-dbg.Incoming():
			c, err := jdwpspy.DecodeComposite(ev.Data, fakeSizes, nil)
			if err != nil || len(c.Events) != 1 || c.Events[0].Kind != want {
				t.Fatalf("packet %d: %v %+v %v; want event kind %d", i, ev, c, err, want)
			}
		case <-time.After(stallLimit):
			t.Fatalf("packet %d (event kind %d) was not delivered", i, want)
		}
	}
}
