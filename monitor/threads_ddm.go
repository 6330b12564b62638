package monitor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
)

// Threads from DDM: the THST poll and the thread table it keeps.

// thstRequest is the THST request's packet data (an empty chunk), encoded
// once.
var thstRequest = ddm.AppendMessage(nil, &ddm.ThreadStatusRequest{})

// errNoTHST: a reply to THST that holds no thread table (empty).
var errNoTHST = errors.New("THST reply without a thread table")

func (s *Session) pollTHST(ctx context.Context) {
	s.mu.Lock()
	wait := s.opts.RequestTimeout
	if s.src.caps.thst == unknown {
		wait = min(wait, s.opts.ProbeTimeout) // the first ask decides quickly
	}
	s.mu.Unlock()
	rctx, cancel := context.WithTimeout(ctx, wait)
	p, err := s.jc.Request(rctx, jdwp.CmdSetDDM, jdwp.CmdDDMChunk, thstRequest)
	cancel()
	if err == nil {
		err = s.takeTHSTReply(p)
	}
	if err != nil {
		if ctx.Err() != nil || s.jc.Err() != nil {
			return
		}
		s.mu.Lock()
		s.thstMisses++
		miss := s.thstMisses
		first := s.src.caps.thst != unanswered
		s.mu.Unlock()
		if first {
			s.setCaps(func(in *capInput) { in.thst = unanswered })
			s.startProcThreads(ctx)
		}
		if miss == 3 && s.shell == nil {
			s.setErr("VM does not answer thread status (THST)")
		}
	}
}

// takeTHSTReply applies the reply packet to a THST request: the table goes
// into the model as one input (recorded), its entries read where they are.
// An error (malformed, FAIL, empty) counts as a missed poll.
func (s *Session) takeTHSTReply(p *jdwp.Packet) error {
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
	s.input(func(now time.Time) {
		s.rec.chunk(now, s.key, c)
		s.applyThreadStatus(&e, now)
	})
	return nil
}

// applyTHSTChunk applies a recorded THST chunk (a replay).
func (s *Session) applyTHSTChunk(c ddm.Chunk, now time.Time) error {
	e, err := ddm.ParseThreadStatusEntries(c.Data)
	if err != nil {
		return err
	}
	s.applyThreadStatus(&e, now)
	return nil
}

// applyThreadStatus applies a THST reply received at now.
func (s *Session) applyThreadStatus(tab *ddm.ThreadStatusEntries, now time.Time) {
	s.mu.Lock()
	if s.thstMisses >= 3 {
		s.thstMisses = 0
	}
	thstNew := s.src.caps.thst != answered
	if s.threads.applyTHST(tab, s.family, now, s.opts.MaxThreads) {
		s.tooMany = true
	}
	// Published like every other change of the table: at once unless the
	// last publish is under threadPublishInterval old (replies faster than
	// 10 Hz), then when that interval has passed. The table above is the
	// live model, updated by every reply; the store's copy of 200 rows costs
	// more than applying a reply, so it is taken at a bounded rate.
	publish := s.threadsChangedLocked(now)
	s.mu.Unlock()
	if thstNew {
		s.setCaps(func(in *capInput) { in.thst = answered })
	}
	publish()
}
