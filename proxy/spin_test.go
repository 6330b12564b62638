package proxy

import (
	"fmt"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/internal/busypoll"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/scan"
)

func TestWaitEstimate(t *testing.T) {
	var e waitEstimate
	if e.within(time.Hour) {
		t.Fatal("no sample yet: want not within any bound")
	}
	e.add(100 * time.Microsecond)
	if got := e.ns.Load(); got != 100_000 {
		t.Fatalf("first sample: got %d ns, want it taken whole (100000)", got)
	}
	if !e.within(100*time.Microsecond) || e.within(99*time.Microsecond) {
		t.Fatal("average 100µs: want within 100µs and not within 99µs")
	}
	e.add(500 * time.Microsecond) // 100 + (500-100)/4
	if got := e.ns.Load(); got != 200_000 {
		t.Fatalf("second sample: got %d ns, want 200000 (a quarter of the way)", got)
	}
	e.add(0) // 200 + (1-200000)/4: a zero wait still counts as a sample
	if got := e.ns.Load(); got != 150_001 {
		t.Fatalf("third sample: got %d ns, want 150001", got)
	}
	var z waitEstimate
	z.add(0)
	if !z.within(time.Nanosecond) {
		t.Fatal("a zero first wait: want known (1ns) and within 1ns")
	}
}

// steadyPolls makes the proxy's polls blind to preemption (busypoll's
// Readable), for the tests of the polling mechanism: on a machine shared
// with other work real polls end early, as they should, and the rule then
// stops polling (TestSpinRule tests that, with a stubbed signal).
func steadyPolls(t testing.TB) {
	old := pollSocks
	pollSocks = func(d time.Duration, socks ...syscall.RawConn) busypoll.Result {
		return busypoll.Result{Ready: busypoll.Readable(d, socks...)}
	}
	t.Cleanup(func() { pollSocks = old })
}

// spinRig is a proxy over one fake VM that answers after delay, and a
// debugger attached through it.
func spinRig(t testing.TB, spin, delay time.Duration) (*rig, *jdwp.Conn) {
	t.Helper()
	return spinRigGate(t, spin, delay, openGate())
}

// openGate is a core gate that never closes: the tests of the spin rule
// run beside other packages' tests, whose load would close the real one.
func openGate() *coreGate {
	g := &coreGate{read: func() cpuSample { return cpuSample{} }, now: time.Now}
	g.free.Store(true)
	return g
}

// spinRigGate is spinRig with the proxy's core gate.
func spinRigGate(t testing.TB, spin, delay time.Duration, gate *coreGate) (*rig, *jdwp.Conn) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skipf("busy polling is implemented on Linux only (this is %s)", runtime.GOOS)
	}
	vm := startFakeVM(t)
	vm.mu.Lock()
	vm.delay = delay
	vm.mu.Unlock()
	r := startRig(t, scan.PortRange{First: vm.port(), Last: vm.port()}, Options{Spin: spin, cores: gate})
	// The attach waits for the session's HELO to be decided.
	return r, dialDebugger(t, r.waitPort(localKey(vm.port())), 1)
}

// needPolling skips a test that expects polls where the proxy takes none.
func needPolling(t *testing.T) {
	if !multiCore() {
		t.Skipf("one CPU or GOMAXPROCS=1 (%d, %d): the proxy does not poll", runtime.NumCPU(), runtime.GOMAXPROCS(0))
	}
}

// versions sends n VirtualMachine.Version commands, pausing think between
// a reply and the next command.
func versions(t testing.TB, c *jdwp.Conn, n int, think time.Duration) {
	t.Helper()
	for i := 0; i < n; i++ {
		if _, err := c.Request(ctxT(t), jdwp.CmdSetVirtualMachine, jdwp.CmdVMVersion, nil); err != nil {
			t.Fatal(err)
		}
		if think > 0 {
			time.Sleep(think)
		}
	}
}

// spinAttempts is how many fresh rigs a polling test may try: whether a
// poll catches its packet depends on the scheduler, and a machine busy with
// other work (two cores shared with a parallel test run) stalls the peers
// now and then. A proxy that does not poll, or polls when it should not,
// fails every attempt.
const spinAttempts = 3

// spinCase runs measure on fresh rigs until check finds nothing wrong, up
// to spinAttempts times, and reports the last attempt's complaints.
func spinCase(t *testing.T, spin, delay time.Duration, measure func(c *jdwp.Conn), check func(SpinStats) []string) {
	t.Helper()
	steadyPolls(t)
	var why []string
	for i := 0; i < spinAttempts; i++ {
		r, c := spinRig(t, spin, delay)
		measure(c)
		s := r.proxy.SpinStats()
		t.Logf("attempt %d: %+v", i+1, s)
		if why = check(s); len(why) == 0 {
			return
		}
		c.Close()
		r.stop()
	}
	for _, w := range why {
		t.Error(w)
	}
}

// A quick VM and a quick debugger: both waits are considered for polling,
// polls are taken and catch their packets. How many polls catch theirs,
// and whether the rule keeps polling, depend on the scheduler (a loaded
// machine stalls the peers: 6 of 199 were seen at load 15), so those
// shares are speed figures, reported by BenchmarkSpinQuickPeers; this test
// asserts the mechanism: every reply after the first is decided on (polled
// for, or not because polling did not pay), the rule polls until it has
// measured the other way (the first firstProbeGap-1 waits at least), the
// quick debugger's commands are considered too, and a poll delivers what
// it catches.
func TestSpinPollsForQuickPeers(t *testing.T) {
	needPolling(t)
	spinCase(t, 50*time.Millisecond, 0, func(c *jdwp.Conn) { versions(t, c, 200, 0) }, func(s SpinStats) (why []string) {
		// The first command has no estimate; after it every reply is
		// decided on, whatever the load.
		decided := s.ReplyPolls + s.ReplyPlain
		if decided < 150 || decided > 200 || s.ReplyPolls < firstProbeGap-1 || s.ReplyCaught < 1 || s.ReplyCaught > s.ReplyPolls {
			why = append(why, fmt.Sprintf("replies: %d polled (%d caught), %d not; want 150-200 in all, at least %d polled, some caught", s.ReplyPolls, s.ReplyCaught, s.ReplyPlain, firstProbeGap-1))
		}
		// Commands sent back to back are polled for once the debugger's
		// gaps are measured (a stalled debugger looks slower: fewer).
		if s.CommandPolls < 1 || s.CommandPolls+s.CommandPlain > 200 || s.CommandCaught < 1 || s.CommandCaught > s.CommandPolls {
			why = append(why, fmt.Sprintf("command polls: %d taken, %d caught; want some, some caught", s.CommandPolls, s.CommandCaught))
		}
		if s.ReplyPreempted+s.CommandPreempted != 0 {
			why = append(why, fmt.Sprintf("%d polls preempted with polls blind to preemption", s.ReplyPreempted+s.CommandPreempted))
		}
		return why
	})
}

// BenchmarkSpinQuickPeers reports the share of polls that catch their
// packet for a quick VM and a quick debugger (200 round trips a run; near
// 100% on an idle machine with two cores).
func BenchmarkSpinQuickPeers(b *testing.B) {
	if !multiCore() {
		b.Skipf("one CPU or GOMAXPROCS=1: the proxy does not poll")
	}
	steadyPolls(b)
	var replies, caughtR, commands, caughtC int
	for range b.N {
		r, c := spinRig(b, 50*time.Millisecond, 0)
		versions(b, c, 200, 0)
		s := r.proxy.SpinStats()
		replies, caughtR = replies+int(s.ReplyPolls), caughtR+int(s.ReplyCaught)
		commands, caughtC = commands+int(s.CommandPolls), caughtC+int(s.CommandCaught)
		c.Close()
		r.stop()
	}
	if replies > 0 {
		b.ReportMetric(100*float64(caughtR)/float64(replies), "reply-caught-%")
	}
	if commands > 0 {
		b.ReportMetric(100*float64(caughtC)/float64(commands), "command-caught-%")
	}
	b.ReportMetric(float64(replies)/float64(b.N), "reply-polls/run")
	b.ReportMetric(float64(commands)/float64(b.N), "command-polls/run")
}

// The bound of the two tests below, and the delay of the slow peer: ten
// times apart, and the bound well above what "at once" takes on a loaded
// machine (a fake VM's reply took over 200 µs in a CI run beside a
// CPU-bound job), so that each peer is on its side of the bound whatever
// the load.
const (
	loadedBound = 2 * time.Millisecond
	slowPeer    = 20 * time.Millisecond
)

// A VM that answers later than the bound is not polled for after its
// first reply; the quick debugger still is.
func TestSpinSkipsSlowVM(t *testing.T) {
	needPolling(t)
	spinCase(t, loadedBound, slowPeer, func(c *jdwp.Conn) { versions(t, c, 40, 0) }, func(s SpinStats) (why []string) {
		if s.ReplyPolls+s.ReplyPlain != 0 {
			why = append(why, fmt.Sprintf("replies take 20ms against a 2ms bound: %d polls, %d decided against; want none considered", s.ReplyPolls, s.ReplyPlain))
		}
		if s.CommandPolls+s.CommandPlain < 30 || s.CommandPolls < 1 {
			why = append(why, fmt.Sprintf("a debugger sending back to back: %d command polls, %d not; want most of 40 considered, some polled", s.CommandPolls, s.CommandPlain))
		}
		return why
	})
}

// A debugger that thinks between commands is not polled for; the quick
// VM still is.
func TestSpinSkipsThinkingDebugger(t *testing.T) {
	needPolling(t)
	spinCase(t, loadedBound, 0, func(c *jdwp.Conn) { versions(t, c, 40, slowPeer) }, func(s SpinStats) (why []string) {
		if s.CommandPolls+s.CommandPlain != 0 {
			why = append(why, fmt.Sprintf("20ms between commands against a 2ms bound: %d command polls, %d decided against; want none considered", s.CommandPolls, s.CommandPlain))
		}
		if s.ReplyPolls+s.ReplyPlain < 30 || s.ReplyPolls < 1 {
			why = append(why, fmt.Sprintf("a VM answering at once: %d reply polls, %d not; want most of 40 considered, some polled", s.ReplyPolls, s.ReplyPlain))
		}
		return why
	})
}

// With one CPU or one P the proxy never polls, whatever the bound.
func TestSpinOffOnOneCore(t *testing.T) {
	old := multiCore
	multiCore = func() bool { return false }
	defer func() { multiCore = old }()
	r, c := spinRig(t, 50*time.Millisecond, 0)
	versions(t, c, 50, 0)
	if s := r.proxy.SpinStats(); s != (SpinStats{}) {
		t.Errorf("one core: got %+v, want no polls", s)
	}
	multiCore = old
	if !multiCore() && runtime.NumCPU() > 1 && runtime.GOMAXPROCS(0) > 1 {
		t.Error("multiCore says one core on a multi-core machine")
	}
}

// A negative bound turns polling off.
func TestSpinOff(t *testing.T) {
	r, c := spinRig(t, -1, 0)
	versions(t, c, 50, 0)
	if s := r.proxy.SpinStats(); s != (SpinStats{}) {
		t.Errorf("Spin < 0: got %+v, want no polls", s)
	}
}

// The rule, fed waits as a fake clock would: polling stops when the waits
// with a poll are longer than those without, probes the other way less
// often while it keeps losing, and comes back when polling pays again.
func TestSpinRule(t *testing.T) {
	const bound = 200 * time.Microsecond
	var r spinRule
	// run decides n waits, feeding each the wait its mode takes, and
	// returns how many were polled for.
	run := func(n int, spun, plain time.Duration, preempted bool) (polled int) {
		for range n {
			s := r.decide()
			d := plain
			if s {
				polled++
				d = spun
			}
			r.observe(s, d, bound, preempted && s)
		}
		return polled
	}
	// Idle: polling wins (60 µs against 100 µs): every wait but the probes.
	if got := run(100, 60*time.Microsecond, 100*time.Microsecond, false); got < 100-100/firstProbeGap || got == 100 {
		t.Fatalf("polling pays: %d of 100 polled, want all but the probes (some probes)", got)
	}
	// Busy: a poll steals the peer's core (250 µs against 70 µs): polling
	// stops within a few waits and is only probed.
	if got := run(20, 250*time.Microsecond, 70*time.Microsecond, false); got > 6 {
		t.Fatalf("polling does not pay: %d of the first 20 waits polled, want it to stop within a few", got)
	}
	if r.polling.Load() {
		t.Fatal("polling does not pay: the rule still polls")
	}
	if got := run(1000, 250*time.Microsecond, 70*time.Microsecond, false); got < 1 || got > 1000/firstProbeGap {
		t.Fatalf("polling does not pay: %d of 1000 polled, want a few probes (gap growing from %d to %d)", got, firstProbeGap, maxProbeGap)
	}
	if g := r.probeGap.Load(); g != maxProbeGap {
		t.Fatalf("probes that confirm the choice: gap %d, want it grown to %d", g, maxProbeGap)
	}
	// Idle again: the next probe finds polling quicker, and polling
	// comes back within a probe gap or two.
	if run(2*maxProbeGap, 60*time.Microsecond, 100*time.Microsecond, false); !r.polling.Load() {
		t.Fatal("polling pays again: the rule did not come back to it")
	}
	if got := run(100, 60*time.Microsecond, 100*time.Microsecond, false); got < 100-100/firstProbeGap {
		t.Fatalf("polling pays again: %d of 100 polled", got)
	}
	// The scheduler's signal: polls preempted count as the whole bound,
	// so quick-looking polls on a contested CPU stop too.
	if got := run(20, 10*time.Microsecond, 100*time.Microsecond, true); got > 6 || r.polling.Load() {
		t.Fatalf("polls preempted: %d of 20 polled (polling %v), want it to stop within a few", got, r.polling.Load())
	}
	// Coming back takes a clear gain: 5% is noise, 20% is not.
	if run(2*maxProbeGap, 95*time.Microsecond, 100*time.Microsecond, false); r.polling.Load() {
		t.Fatal("polling 5% quicker: the rule came back to it")
	}
	if run(2*maxProbeGap, 80*time.Microsecond, 100*time.Microsecond, false); !r.polling.Load() {
		t.Fatal("polling 20% quicker: the rule did not come back to it")
	}
	// Staying on takes a gain too: 10% keeps polling on, 3% is not worth
	// a poll's CPU, and 10% does not bring it back (that takes 20%).
	if run(2*maxProbeGap, 90*time.Microsecond, 100*time.Microsecond, false); !r.polling.Load() {
		t.Fatal("polling 10% quicker: the rule stopped polling")
	}
	if run(2*maxProbeGap, 97*time.Microsecond, 100*time.Microsecond, false); r.polling.Load() {
		t.Fatal("polling 3% quicker: the rule kept polling")
	}
	if run(2*maxProbeGap, 90*time.Microsecond, 100*time.Microsecond, false); r.polling.Load() {
		t.Fatal("polling 10% quicker after it stopped: the rule came back to it")
	}
}

// A live proxy whose polls are all preempted (the scheduler's signal
// stubbed) stops polling and waits the ordinary way.
func TestSpinStopsWhenPreempted(t *testing.T) {
	needPolling(t)
	old := pollSocks
	pollSocks = func(d time.Duration, socks ...syscall.RawConn) busypoll.Result {
		return busypoll.Result{Preempted: true}
	}
	defer func() { pollSocks = old }()
	r, c := spinRig(t, 50*time.Millisecond, 0)
	versions(t, c, 300, 0)
	s := r.proxy.SpinStats()
	t.Logf("%+v", s)
	if s.ReplyPolls != s.ReplyPreempted || s.ReplyPolls == 0 {
		t.Fatalf("every poll preempted: %d polls, %d preempted", s.ReplyPolls, s.ReplyPreempted)
	}
	// The first waits poll (nothing measured yet); once a wait without a
	// poll is seen, only probes do.
	if s.ReplyPolls > 40 || s.ReplyPlain < 250 {
		t.Fatalf("replies: %d polled, %d not; want polling stopped (at most 40 of 300 polled)", s.ReplyPolls, s.ReplyPlain)
	}
}

// The rule is told of whole round trips, from one command read to the
// next with the reply between, not of single waits; a command sent while
// a reply is pending makes its round trip tell nothing. (A fake clock.)
func TestSpinRuleTimesRoundTrips(t *testing.T) {
	var clock int64 = 1
	old := monotonicNow
	monotonicNow = func() int64 { return clock }
	defer func() { monotonicNow = old }()
	_, side := tcpPair(t)
	rc, err := side.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	a := &attachment{p: &Proxy{opts: Options{Spin: time.Second}, cores: openGate()}, vmSock: rc}
	a.spin.reply.add(time.Millisecond) // quick peers
	ms := int64(time.Millisecond)
	// trip: a command, its reply vm later, the next command think after.
	trip := func(vm, think int64) {
		a.commandRead()
		clock += vm
		a.replied(time.Duration(vm), true)
		clock += think
	}
	told := func() time.Duration { return time.Duration(a.spin.rule.spun.ns.Load() + a.spin.rule.plain.ns.Load()) }
	trip(10*ms, 20*ms) // the first command: nothing decided before it
	trip(30*ms, 40*ms) // decided: 70 ms to the next command
	if told() != 0 {
		t.Fatalf("no round trip over yet: the rule was told %v", told())
	}
	a.commandRead()
	if got := told(); got != 70*time.Millisecond {
		t.Fatalf("a reply after 30ms, the next command 40ms later: the rule was told %v, want 70ms", got)
	}
	before := told()
	clock += 5 * ms
	a.commandRead() // a second command while the first's reply is pending
	clock += 5 * ms
	a.replied(10*time.Millisecond, true)
	clock += 50 * ms
	a.commandRead()
	if told() != before {
		t.Fatalf("overlapping commands: the rule was told of their round trip (%v, was %v)", told(), before)
	}
	// A command in a round trip the rule did not decide on is not polled
	// for, whatever the last decision was.
	a.spin.tripSpun.Store(true)
	a.commandRead()
	a.commandRead() // overlapping: undecided
	req := &request{}
	a.spinReply(req)
	if req.spun {
		t.Fatal("a reply in a round trip not decided on: polled for")
	}
	if got := a.spin.next.ns.Load(); got != 20*ms+(40*ms-20*ms)/4+(50*ms-25*ms)/4 {
		t.Fatalf("think times 20, 40, 50ms: average %v", time.Duration(got))
	}
}
