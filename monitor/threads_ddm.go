package monitor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
)

// Threads from DDM: the THST poll and the thread table it keeps.

// thstRequest is the THST request's packet data (an empty chunk), encoded
// once.
var thstRequest = ddm.AppendMessage(nil, &ddm.ThreadStatusRequest{})

// hpifNowRequest is HPIF NOW's packet data: the heap summary, asked at each
// poll of a VM that answers HPIF, so that the summary, the timeline's Java
// heap and a recording are at most one poll old rather than as old as the
// last GC (issue 38 #12). It is one small chunk each way.
var hpifNowRequest = ddm.AppendMessage(nil, &ddm.HeapInfoRequest{When: ddm.HeapInfoNow})

// errNoTHST: a reply to THST that holds no thread table (empty).
var errNoTHST = errors.New("THST reply without a thread table")

// thstPoller polls a session's THST on the shared clock (pollclock.go):
// the clock's goroutine writes the request, the connection's reader applies
// the reply, and nothing of the session itself wakes per poll. One request
// is outstanding at most: a tick that finds it unanswered lets it be, or
// counts it missed once it is older than the request timeout.
type thstPoller struct {
	conn  *vmConn
	entry *vmEntry
	book  *threadBook
	// probe and timeout are SessionOptions.ProbeTimeout and RequestTimeout.
	probe, timeout time.Duration
	onDevice       bool // the VM's device can tell its threads (/proc)
	ctx            context.Context
	// unanswered gets a value when THST was first missed: the session's
	// goroutine starts the /proc thread source (ticks start no goroutines).
	unanswered chan struct{}
	hpifAsked  time.Time // when HPIF NOW was asked (the probe of HPIF)
	hpifKnown  bool
	// hpifOut: an HPIF NOW of a poll awaits its (empty) reply; the next is
	// asked once it came, so at most one is outstanding.
	hpifOut atomic.Bool

	mu      sync.Mutex
	stopped bool
	waiting bool   // a request is outstanding
	id      uint32 // the outstanding request's JDWP id
	sent    time.Time
	wait    time.Duration // how long the outstanding request may take
	skip    int           // ticks to let pass before the next request
	// busy counts replies being applied, which stop waits for.
	busy sync.WaitGroup
}

// tick is called at each tick of the clock (and once before the session
// joins it), never by two goroutines at once.
func (p *thstPoller) tick(now time.Time) {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	if p.waiting {
		late, id := now.Sub(p.sent) >= p.wait, p.id
		p.mu.Unlock()
		// Taken back: its callback will not be called. If Forget finds it
		// gone, the callback has it.
		if late && p.conn.jc.Forget(id) {
			p.mu.Lock()
			p.waiting = false
			p.mu.Unlock()
			p.done(fmt.Errorf("%v: no reply within %v", ddm.TypeTHST, p.wait))
		}
		return
	}
	if p.skip > 0 {
		p.skip--
		p.mu.Unlock()
		return
	}
	caps := p.entry.capsNow()
	wait := p.timeout
	if caps.thst == unknown {
		wait = min(wait, p.probe) // the first ask decides quickly
	}
	hpifUnknown := caps.hpif == unknown
	hpifPoll := caps.hpif == answered
	p.waiting, p.sent, p.wait = true, now, wait
	p.mu.Unlock()

	if hpifPoll && p.hpifOut.CompareAndSwap(false, true) {
		// The data comes as an unsolicited HPIF, applied by the reader.
		if _, err := p.conn.jc.TryRequestFunc(jdwp.CmdSetDDM, jdwp.CmdDDMChunk, hpifNowRequest,
			func(*jdwp.Packet, error) { p.hpifOut.Store(false) }); err != nil {
			p.hpifOut.Store(false) // busy writing: asked at the next tick
		}
	}

	// HPIF NOW is answered at once (an unsolicited HPIF) or never.
	if !p.hpifKnown && now.Sub(p.hpifAsked) >= p.probe {
		p.hpifKnown = true
		if hpifUnknown {
			p.entry.setCaps(func(in *capInput) {
				if in.hpif == unknown {
					in.hpif = unanswered
				}
			})
		}
	}
	id, err := p.conn.jc.TryRequestFunc(jdwp.CmdSetDDM, jdwp.CmdDDMChunk, thstRequest, p.reply)
	p.mu.Lock()
	if err != nil { // busy with another write (asked again at the next tick), or closed
		p.waiting = false
	}
	p.id = id
	p.mu.Unlock()
}

// reply takes the reply (or the connection's error) to the outstanding
// request, on the connection's reader goroutine. There is one at most: a
// request tick took back (Forget) gets no call, one refused (ErrBusy) none
// either.
func (p *thstPoller) reply(pk *jdwp.Packet, err error) {
	p.mu.Lock()
	if p.stopped {
		p.mu.Unlock()
		return
	}
	p.waiting = false
	p.busy.Add(1)
	p.mu.Unlock()
	defer p.busy.Done()
	if err == nil {
		err = p.book.takeTHSTReply(pk)
	}
	p.done(err)
}

// done ends a poll: a missed one (err) is counted, and a VM that never
// answers THST (recent frameworks) is asked at every 8th tick only.
func (p *thstPoller) done(err error) {
	if err != nil {
		if p.ctx.Err() != nil || p.conn.jc.Err() != nil {
			return
		}
		miss := p.book.missed()
		first := p.entry.capsNow().thst != unanswered
		if first {
			p.entry.setCaps(func(in *capInput) { in.thst = unanswered })
			select {
			case p.unanswered <- struct{}{}:
			default:
			}
		}
		if miss == 3 && !p.onDevice {
			p.entry.setErr("VM does not answer thread status (THST)")
		}
	}
	skip := 0
	if p.book.missedNow() >= 3 {
		skip = 7
	}
	p.mu.Lock()
	p.skip = skip
	p.mu.Unlock()
}

// stop ends the polls: no reply is applied once it returns. Call it after
// the poller left its clock.
func (p *thstPoller) stop() {
	p.mu.Lock()
	p.stopped = true
	p.mu.Unlock()
	p.busy.Wait()
}

// takeTHSTReply applies the reply packet to a THST request: the table goes
// into the model as one input (recorded), its entries read where they are.
// An error (malformed, FAIL, empty) counts as a missed poll.
func (b *threadBook) takeTHSTReply(p *jdwp.Packet) error {
	chunks, err := ddm.ParseChunks(p.Data, len(p.Data))
	if err != nil {
		return fmt.Errorf("%v reply: %w", ddm.TypeTHST, err)
	}
	if len(chunks) == 0 {
		return errNoTHST
	}
	c := chunks[0]
	if c.Type != ddm.TypeTHST {
		if _, err := decodeReply(chunks); err != nil {
			return err // FAIL, or malformed
		}
		return fmt.Errorf("THST answered with %v", c.Type)
	}
	// Checked first: a malformed table is a missed poll, not recorded.
	e, err := ddm.ParseThreadStatusEntries(c.Data)
	if err != nil {
		return err
	}
	b.input(func(now time.Time) {
		b.entry.rec.chunk(now, b.entry.key, c)
		b.applyStatus(&e, now)
	})
	return nil
}

// applyTHSTChunk applies a recorded THST chunk (a replay).
func (b *threadBook) applyTHSTChunk(c ddm.Chunk, now time.Time) error {
	e, err := ddm.ParseThreadStatusEntries(c.Data)
	if err != nil {
		return err
	}
	b.applyStatus(&e, now)
	return nil
}

// applyStatus applies a THST reply received at now.
func (b *threadBook) applyStatus(tab *ddm.ThreadStatusEntries, now time.Time) {
	thstNew := b.entry.capsNow().thst != answered
	b.mu.Lock()
	if b.misses >= 3 {
		b.misses = 0
	}
	if b.table.applyTHST(tab, b.conn.family, now, b.mostLocked(b.table.len())) {
		b.tooMany = true
	}
	// Published like every other change of the table: at once unless the
	// last publish is under threadPublishInterval old (replies faster than
	// 10 Hz), then when that interval has passed. The table above is the
	// live model, updated by every reply; the store's copy of 200 rows costs
	// more than applying a reply, so it is taken at a bounded rate.
	publish := b.changedLocked(now)
	b.mu.Unlock()
	if thstNew {
		b.entry.setCaps(func(in *capInput) { in.thst = answered })
	}
	publish()
}
