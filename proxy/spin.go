package proxy

import (
	"runtime"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ddmtui/ddmtui/internal/busypoll"
)

// Busy-polling on the debugger's hot path (issue 15, item 5;
// docs/PERFORMANCE.md, "Debugger proxy").
//
// Every packet the proxy relays wakes one of its threads, and on a virtual
// machine with idle CPUs a wake-up costs about as much as the VM's whole
// answer to a small command. While a debugger sends commands back to back
// (an IDE attaching, stepping), the proxy therefore polls instead of
// sleeping at the two waits that sit on the debugger's path:
//
//   - after forwarding a command, for the VM's reply (on the debugger's
//     reader, watching the VM's socket);
//   - after delivering the last pending reply, for the debugger's next
//     command (on the VM connection's reader, watching both sockets, so
//     that a VM packet ends the poll too).
//
// Each poll is bounded by Options.Spin and taken only when the moving
// average of that wait is within it: a VM behind adb (replies in
// milliseconds) or a debugger whose user is thinking is never polled for.
// Between polls the thread yields the CPU to any other runnable thread.
//
// Polling pays only while a core is free for it (issue 39). On a machine
// busy with other work the poller takes the CPU the VM or the debugger
// needs, and a round trip that took 69 µs without polling took 257 µs with
// it. So whether to poll is measured, not assumed (spinRule), on what the
// debugger feels: its round trips, from one command read to the next with
// the reply between. The rule keeps two moving averages, of the round trips
// whose waits were polled for and of those whose waits were not, and polls
// while the first is the lower by a margin. (It first measured each wait on
// its own. A poll shortened the wait it watched, but in the benchmark the
// round trips were no quicker than with polling off, while the polls cost
// 15 µs of CPU each: docs/PERFORMANCE.md.) The mode that loses is still tried
// now and then (a probe, every 16th round trip at first, less often while
// probes confirm the choice, at least every 256th), so that polling stops
// when it stops paying and comes back when it pays again. A poll whose
// thread is switched out involuntarily (busypoll's Result.Preempted: another
// thread wanted the CPU) ends at once, and its round trip counts as one of
// the whole bound at least, so a contested CPU turns polling off within a
// few round trips. And a wait is polled for only while the rest of the
// machine leaves more than a core free (coreGate, cores.go): polling on a
// machine whose other work leaves no core idle takes the VM's or the
// debugger's.

// DefaultSpin is the default bound of one busy poll.
const DefaultSpin = 200 * time.Microsecond

// multiCore reports whether another thread can run while one polls: more
// than one CPU and more than one P. On one, a poll would keep the answer it
// waits for from being read (the reader needs the P) or written (the peer
// needs the CPU) until the bound ran out.
var multiCore = func() bool { return runtime.NumCPU() > 1 && runtime.GOMAXPROCS(0) > 1 }

// waitEstimate is a moving average of one kind of wait, in nanoseconds (0:
// none seen yet). One goroutine adds samples; any may read.
type waitEstimate struct{ ns atomic.Int64 }

// add folds d in with weight 1/4, so that a few long waits in a row stop
// the polling.
func (e *waitEstimate) add(d time.Duration) {
	v, s := e.ns.Load(), max(d.Nanoseconds(), 1)
	if v == 0 {
		e.ns.Store(s)
		return
	}
	e.ns.Store(v + (s-v)/4)
}

// within reports whether the wait is known and on average at most bound.
func (e *waitEstimate) within(bound time.Duration) bool {
	v := e.ns.Load()
	return v > 0 && v <= bound.Nanoseconds()
}

// spinRule decides, wait by wait, whether polling pays for one kind of
// wait, from the waits it has seen with and without a poll. Its decide and
// observe may be called from different goroutines.
type spinRule struct {
	spun, plain waitEstimate // waits taken with a poll, and without
	// n counts the waits decided; the next probe of the losing mode is
	// when n reaches probeAt, and probeGap is the gap to the one after.
	n, probeAt, probeGap atomic.Int64
	// polling is the mode that wins (true: poll).
	polling atomic.Bool
}

const (
	firstProbeGap = 16  // waits between probes of the losing mode, after a change
	maxProbeGap   = 256 // and at most, while probes confirm the choice
)

// pays reports whether polling is the better mode so far: no round trip
// without a poll seen yet, or those with polls quicker on average, by a
// sixteenth (keepMargin) to keep polling and by an eighth (backMargin) to
// come back to it (polling false). A poll costs CPU, so a gain within the
// noise does not pay for it; and on a loaded machine single round trips
// vary by more than the gain, so a lucky probe alone should not turn
// polling back on.
func (r *spinRule) pays(polling bool) bool {
	s, p := r.spun.ns.Load(), r.plain.ns.Load()
	if p == 0 {
		return true
	}
	if polling {
		return s != 0 && s < p-p/keepMargin
	}
	return s != 0 && s < p-p/backMargin
}

// The margins of pays, as fractions (1/n) of the round trip without polls.
const (
	keepMargin = 16
	backMargin = 8
)

// decide reports whether the next wait is polled for: the winning mode,
// or the other one when a probe is due.
func (r *spinRule) decide() bool {
	n := r.n.Add(1)
	at := r.probeAt.Load()
	if at == 0 {
		r.probeGap.Store(firstProbeGap)
		r.probeAt.Store(n + firstProbeGap)
		r.polling.Store(true)
		return true
	}
	polling := r.polling.Load()
	if n < at {
		return polling
	}
	r.probeAt.Store(n + r.probeGap.Load())
	return !polling
}

// observe folds in a wait, taken with a poll (spun) or without, and, when
// the poll was preempted, as long as the bound at least; a probe's wait
// replaces its mode's average. If the winning
// mode changes the probes start again at their first gap; if a probe
// confirmed the choice the gap doubles.
func (r *spinRule) observe(spun bool, d, bound time.Duration, preempted bool) {
	if spun && preempted {
		d = max(d, bound)
	}
	e := &r.plain
	if spun {
		e = &r.spun
	}
	if spun != r.polling.Load() {
		// A probe: the losing mode's average is of older waits, perhaps
		// under another load; this wait replaces it. If it was a fluke
		// the next waits, in the mode it chose, flip the choice back.
		e.ns.Store(max(d.Nanoseconds(), 1))
	} else {
		e.add(d)
	}
	pays := r.pays(r.polling.Load())
	if pays != r.polling.Swap(pays) {
		r.probeGap.Store(firstProbeGap)
		r.probeAt.Store(r.n.Load() + firstProbeGap)
	} else if spun != pays { // a probe, and its mode still loses
		r.probeGap.Store(min(2*r.probeGap.Load(), maxProbeGap))
	}
}

// spinState is an attachment's polling state.
type spinState struct {
	reply waitEstimate // a command forwarded → its reply read
	next  waitEstimate // the last pending reply delivered → the next command read
	// rule decides, round trip by round trip, whether polling pays: it
	// compares the debugger's round trips (a command read → the next one,
	// with its reply between) taken with polls and without.
	rule spinRule
	// idleSince is when the last pending reply was delivered (nanoseconds
	// on monotonicNow's clock; 0: a command has come since).
	idleSince atomic.Int64
	// The round trip under way: tripStart is when its command was read (0:
	// none the rule decided, or it overlapped another command); tripSpun
	// whether its waits are polled for; tripPreempted whether a poll of it
	// was preempted.
	tripStart               atomic.Int64
	tripSpun, tripPreempted atomic.Bool
}

// epoch anchors monotonicNow.
var epoch = time.Now()

// monotonicNow is the time since the process began, on the monotonic clock.
// It is never 0, which idleSince keeps for "none".
// Tests replace it with a fake clock.
var monotonicNow = func() int64 { return max(int64(time.Since(epoch)), 1) }

// SpinStats counts the busy polls since the proxy started, for a VM's
// reply and for a debugger's next command: polls taken and, of them, those
// that caught the packet within the bound and those that ended because
// their thread was preempted; the quick waits not polled for because
// polling did not pay (spinRule) or no core was free (coreGate), and of
// those the ones the gate closed.
type SpinStats struct {
	ReplyPolls, ReplyCaught, ReplyPreempted, ReplyPlain, ReplyGated           uint64
	CommandPolls, CommandCaught, CommandPreempted, CommandPlain, CommandGated uint64
}

// spinCounters are a Proxy's SpinStats as they are counted.
type spinCounters struct {
	reply, command pollCounters
}

// pollCounters count the polls of one kind of wait.
type pollCounters struct{ polls, caught, preempted, plain, gated atomic.Uint64 }

// SpinStats reports the busy polls so far.
func (p *Proxy) SpinStats() SpinStats {
	r, c := &p.spins.reply, &p.spins.command
	return SpinStats{
		ReplyPolls: r.polls.Load(), ReplyCaught: r.caught.Load(), ReplyPreempted: r.preempted.Load(), ReplyPlain: r.plain.Load(), ReplyGated: r.gated.Load(),
		CommandPolls: c.polls.Load(), CommandCaught: c.caught.Load(), CommandPreempted: c.preempted.Load(), CommandPlain: c.plain.Load(), CommandGated: c.gated.Load(),
	}
}

// pollSocks is busypoll.Poll; tests replace it to stub the scheduler's
// signal.
var pollSocks = busypoll.Poll

// poll busy-polls socks for up to the proxy's bound, counting the poll in
// c, and reports whether the poll was preempted.
func (p *Proxy) poll(c *pollCounters, socks ...syscall.RawConn) (preempted bool) {
	c.polls.Add(1)
	r := pollSocks(p.opts.Spin, socks...)
	if r.Ready {
		c.caught.Add(1)
	}
	if r.Preempted {
		c.preempted.Add(1)
	}
	return r.Preempted
}

// quickPeers reports whether the debugger and its VM have been quick
// enough for a poll of either wait, and polling is on.
func (a *attachment) quickPeers() bool {
	bound := a.p.opts.Spin
	return bound > 0 && a.vmSock != nil && (a.spin.reply.within(bound) || a.spin.next.within(bound))
}

// spinReply decides whether the VM's reply to req, about to be forwarded,
// is polled for: replies have been quick, a core is free, and the rule
// chose to poll in this round trip (req.spun).
func (a *attachment) spinReply(req *request) {
	if a.p.opts.Spin <= 0 || a.vmSock == nil || !a.spin.reply.within(a.p.opts.Spin) {
		return
	}
	if !a.p.cores.ok() {
		a.p.spins.reply.plain.Add(1) // no core free for a poll (cores.go)
		a.p.spins.reply.gated.Add(1)
		return
	}
	req.spun = a.spin.tripStart.Load() != 0 && a.spin.tripSpun.Load()
	if !req.spun {
		a.p.spins.reply.plain.Add(1)
	}
}

// awaitReply polls for the VM's reply to req, just forwarded, if req was
// chosen to be polled for.
func (a *attachment) awaitReply(req *request) {
	if req.spun && a.p.poll(&a.p.spins.reply, a.vmSock) {
		a.spin.tripPreempted.Store(true)
	}
}

// commandRead notes a command from the debugger. If it was waiting for no
// reply, the time since the last one was delivered is its think time, and
// the round trip the rule decided on, from the command before, is over:
// the rule is told how long it took. A round trip begins with this
// command, and the rule decides whether its waits are polled for. A
// command sent while replies are pending overlaps the round trip under
// way, which then tells the rule nothing.
func (a *attachment) commandRead() {
	now := monotonicNow()
	since := a.spin.idleSince.Swap(0)
	if since == 0 {
		a.spin.tripStart.Store(0)
		return
	}
	a.spin.next.add(time.Duration(now - since))
	if start := a.spin.tripStart.Load(); start != 0 {
		a.spin.rule.observe(a.spin.tripSpun.Load(), time.Duration(now-start), a.p.opts.Spin, a.spin.tripPreempted.Load())
	}
	if !a.quickPeers() || !a.p.cores.ok() {
		a.spin.tripStart.Store(0)
		return
	}
	a.spin.tripSpun.Store(a.spin.rule.decide())
	a.spin.tripPreempted.Store(false)
	a.spin.tripStart.Store(now)
}

// replied notes a reply delivered, took after its command was forwarded;
// with none pending (none) it polls for the debugger's next command, when
// the debugger has been quick, a core is free and the rule chose to poll
// in this round trip.
func (a *attachment) replied(took time.Duration, none bool) {
	a.spin.reply.add(took)
	if !none {
		return
	}
	quick := a.p.opts.Spin > 0 && a.raw != nil && a.vmSock != nil && a.spin.next.within(a.p.opts.Spin)
	if quick && !a.p.cores.ok() {
		// No core free for a poll (cores.go).
		a.p.spins.command.plain.Add(1)
		a.p.spins.command.gated.Add(1)
		quick = false
	}
	spin := quick && a.spin.tripStart.Load() != 0 && a.spin.tripSpun.Load()
	if quick && !spin {
		a.p.spins.command.plain.Add(1)
	}
	a.spin.idleSince.Store(monotonicNow())
	if spin && a.p.poll(&a.p.spins.command, a.raw, a.vmSock) {
		a.spin.tripPreempted.Store(true)
	}
}
