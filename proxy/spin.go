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

// spinState is an attachment's polling state.
type spinState struct {
	reply waitEstimate // a command forwarded → its reply read
	next  waitEstimate // the last pending reply delivered → the next command read
	// idleSince is when the last pending reply was delivered (nanoseconds
	// on monotonicNow's clock; 0: a command has come since).
	idleSince atomic.Int64
}

// epoch anchors monotonicNow.
var epoch = time.Now()

// monotonicNow is the time since the process began, on the monotonic clock.
// It is never 0, which idleSince keeps for "none".
func monotonicNow() int64 { return max(int64(time.Since(epoch)), 1) }

// SpinStats counts the busy polls since the proxy started, for a VM's
// reply and for a debugger's next command: polls taken and, of them, those
// that caught the packet within the bound.
type SpinStats struct {
	ReplyPolls, ReplyCaught     uint64
	CommandPolls, CommandCaught uint64
}

// spinCounters are a Proxy's SpinStats as they are counted.
type spinCounters struct {
	replyPolls, replyCaught, commandPolls, commandCaught atomic.Uint64
}

// SpinStats reports the busy polls so far.
func (p *Proxy) SpinStats() SpinStats {
	c := &p.spins
	return SpinStats{
		ReplyPolls: c.replyPolls.Load(), ReplyCaught: c.replyCaught.Load(),
		CommandPolls: c.commandPolls.Load(), CommandCaught: c.commandCaught.Load(),
	}
}

// poll busy-polls socks for up to the proxy's bound, counting the poll in
// polls and, if it caught a packet, in caught.
func (p *Proxy) poll(polls, caught *atomic.Uint64, socks ...syscall.RawConn) {
	polls.Add(1)
	if busypoll.Readable(p.opts.Spin, socks...) {
		caught.Add(1)
	}
}

// awaitReply polls for the VM's reply to a command just forwarded, when
// replies have been quick.
func (a *attachment) awaitReply() {
	if a.p.opts.Spin > 0 && a.vmSock != nil && a.spin.reply.within(a.p.opts.Spin) {
		a.p.poll(&a.p.spins.replyPolls, &a.p.spins.replyCaught, a.vmSock)
	}
}

// commandRead notes a command from the debugger: if it was waiting for no
// reply, the time since the last one was delivered is its think time.
func (a *attachment) commandRead() {
	if since := a.spin.idleSince.Swap(0); since != 0 {
		a.spin.next.add(time.Duration(monotonicNow() - since))
	}
}

// replied notes a reply delivered, took after its command was forwarded;
// with none pending (none) it polls for the debugger's next command, when
// the debugger has been quick.
func (a *attachment) replied(took time.Duration, none bool) {
	a.spin.reply.add(took)
	if !none {
		return
	}
	a.spin.idleSince.Store(monotonicNow())
	if a.p.opts.Spin > 0 && a.raw != nil && a.vmSock != nil && a.spin.next.within(a.p.opts.Spin) {
		a.p.poll(&a.p.spins.commandPolls, &a.p.spins.commandCaught, a.raw, a.vmSock)
	}
}
