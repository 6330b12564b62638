package monitor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
)

// vmConn is a VM's JDWP connection as a session's parts use it: the wait
// for the handshake and HELO's decision, then DDM requests, each with its
// own deadline, and posts whose reply does not matter. The session writes
// its fields before ready is closed; nobody writes them after.
type vmConn struct {
	jc      *jdwp.Conn    // nil until the handshake succeeded (and for a process without JDWP)
	ready   chan struct{} // closed once HELO decided whether the VM speaks DDM
	hsErr   error         // the handshake failed (jc stays nil)
	isDDM   bool          // the VM answered HELO
	refused bool          // the VM refused HELO with a JDWP error (a plain JDWP VM, polled with JDWP)
	family  ddm.VMFamily  // from HELO's VM identity (FamilyUnknown for a VM without DDM)
	timeout time.Duration // SessionOptions.RequestTimeout
}

// waitReady waits until HELO is decided; an error says the VM cannot be
// asked (the handshake failed, the connection ended, ctx ended).
func (c *vmConn) waitReady(ctx context.Context) error {
	select {
	case <-c.ready:
		if c.jc == nil { // the handshake failed (hsErr), or a replayed VM
			if c.hsErr != nil {
				return c.hsErr
			}
			return ErrNoLiveVM
		}
		if c.jc.Err() != nil {
			return c.jc.Err()
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// readyDDM is waitReady for a request only a DDM VM answers: ErrNotDDM
// for one that refused HELO.
func (c *vmConn) readyDDM(ctx context.Context) error {
	if err := c.waitReady(ctx); err != nil {
		return err
	}
	if !c.isDDM {
		return ErrNotDDM
	}
	return nil
}

func (c *vmConn) request(ctx context.Context, m ddm.Message) (ddm.Message, error) {
	return c.requestWithin(ctx, m, c.timeout)
}

// requestWithin sends a DDM request and waits at most d for its reply.
func (c *vmConn) requestWithin(ctx context.Context, m ddm.Message, d time.Duration) (ddm.Message, error) {
	reply, _, err := c.requestChunk(ctx, m, d)
	return reply, err
}

// requestChunk is requestWithin that also returns the reply's chunk as it
// came (for the recording of replies that change the model: HELO, FEAT,
// THST).
func (c *vmConn) requestChunk(ctx context.Context, m ddm.Message, d time.Duration) (ddm.Message, ddm.Chunk, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	p, err := c.jc.Request(ctx, jdwp.CmdSetDDM, jdwp.CmdDDMChunk, ddm.AppendMessage(nil, m))
	if err != nil {
		return nil, ddm.Chunk{}, err
	}
	chunks, err := ddm.ParseChunks(p.Data, len(p.Data))
	if err != nil {
		return nil, ddm.Chunk{}, fmt.Errorf("%v reply: %w", m.ChunkType(), err)
	}
	reply, err := decodeReply(chunks)
	if err != nil || len(chunks) == 0 {
		return reply, ddm.Chunk{}, err
	}
	return reply, chunks[0], nil
}

// post sends a DDM request whose reply (if any) does not matter.
func (c *vmConn) post(m ddm.Message) error {
	_, err := c.jc.Post(jdwp.CmdSetDDM, jdwp.CmdDDMChunk, ddm.AppendMessage(nil, m))
	return err
}

// decodeReply decodes the first chunk of a reply (nil for an empty one).
func decodeReply(chunks []ddm.Chunk) (ddm.Message, error) {
	if len(chunks) == 0 {
		return nil, nil // empty reply: success, nothing to say
	}
	reply, err := ddm.DecodeFromVM(chunks[0])
	if err != nil {
		return nil, err
	}
	if f, ok := reply.(*ddm.FailError); ok {
		return nil, f
	}
	return reply, nil
}

// isSoftTimeout reports a request that timed out while ctx itself is alive:
// the VM is one that leaves requests unanswered.
func isSoftTimeout(ctx context.Context, err error) bool {
	return err != nil && errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil
}
