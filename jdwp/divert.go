package jdwp

import (
	"bufio"
	"io"
)

// DivertHead is how much of a large packet's body a Divert sees before it
// decides: a DDM chunk's type and length.
const DivertHead = 8

// divertPiece is the most a diverted body holds in memory at a time.
const divertPiece = 64 << 10

// Divert is offered every incoming packet with a body over 1 MiB that is
// not a reply to the Conn's own requests, once its header and the first
// DivertHead bytes of its body have arrived. To take the body it returns a
// writer, which receives the rest of the body (after head) in pieces of at
// most 64 KiB as they arrive, and end, called once: with nil when the whole
// body was read (or the first error w returned, after which the rest of the
// body is read and dropped, to keep the stream in step), or with the read
// error that ended the connection. The packet then never reaches Incoming
// and no budget is drawn: a streamed heap dump goes to a file without the
// Conn holding it. To leave the packet to the normal path it returns a nil
// writer. Divert and w run on the Conn's reader goroutine: they hold up
// reading while they run.
type Divert func(p *Packet, length int, head []byte) (w io.Writer, end func(error))

// readNext reads the next packet; it returns nil and no error for a packet
// Divert took. A large packet keeps the bytes it took from b (held) until
// the reader releases them, once the packet is consumed.
func (c *Conn) readNext(br *bufio.Reader) (p *Packet, b *Budget, held int64, err error) {
	h, l, err := readHeader(br, c.MaxPacketLen)
	if err != nil {
		return nil, nil, 0, err
	}
	n := l - HeaderLen
	if c.opts.Divert != nil && n > readChunk && !(h.IsReply() && c.OwnsID(h.ID)) {
		taken, err := c.divert(br, &h, n)
		if taken || err != nil {
			return nil, nil, 0, err
		}
	}
	b = c.budgetFor(l)
	p, held, err = readBody(br, h, l, b)
	return p, b, held, err
}

// divert offers a packet with an n-byte body to Divert, and streams the
// body to its writer when it takes it.
func (c *Conn) divert(br *bufio.Reader, p *Packet, n int) (bool, error) {
	head, err := br.Peek(DivertHead)
	if err != nil {
		return false, unexpected(err)
	}
	w, end := c.opts.Divert(p, n, head)
	if w == nil {
		return false, nil
	}
	_, _ = br.Discard(DivertHead)
	buf := make([]byte, divertPiece)
	var werr error
	for rest := n - DivertHead; rest > 0; {
		k, rerr := br.Read(buf[:min(len(buf), rest)])
		if k > 0 && werr == nil {
			_, werr = w.Write(buf[:k])
		}
		rest -= k
		if rerr != nil && rest > 0 {
			rerr = unexpected(rerr)
			end(rerr)
			return true, rerr
		}
	}
	end(werr)
	c.stats.PacketsIn.Add(1)
	c.stats.BytesIn.Add(uint64(HeaderLen + n))
	return true, nil
}
