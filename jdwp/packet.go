// Package jdwp is the Java Debug Wire Protocol layer of ddmtui: the
// JDWP-Handshake in both roles, the 11-byte packet codec with a bounded
// length, and Conn, which multiplexes one VM connection between the monitor's
// own requests (matched to replies by id), the packets the VM sends unasked
// (DDM chunks, composite events), and a debugger sharing the stream through
// the proxy. It also names command sets, commands and error codes, and wraps
// the few standard commands a monitor needs for VMs that do not speak DDM.
//
// Everything in JDWP is big-endian; see spec/jdwp.md.
package jdwp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// HeaderLen is the size of a JDWP packet header (spec/jdwp.md §2).
const HeaderLen = 11

// FlagReply marks a reply packet; it is the only flag JDWP defines.
const FlagReply = 0x80

// DefaultMaxPacketLen bounds a packet's length field. It is large because a
// VM streams a whole HPROF heap dump in one DDM packet (spec/ddm-chunks.md
// §7.6); the reader allocates as bytes arrive, never from the claim alone.
const DefaultMaxPacketLen = 512 << 20

// ErrPacketTooLarge is returned when a length field exceeds the maximum.
var ErrPacketTooLarge = errors.New("jdwp: packet length exceeds the limit")

// ErrBadLength is returned when a length field is below the header size.
var ErrBadLength = errors.New("jdwp: packet length shorter than its header")

// Packet is one JDWP command or reply.
type Packet struct {
	ID    uint32
	Flags uint8
	// For commands:
	CommandSet uint8
	Command    uint8
	// For replies:
	ErrorCode ErrorCode
	Data      []byte
}

// IsReply reports whether the packet is a reply.
func (p *Packet) IsReply() bool { return p.Flags&FlagReply != 0 }

// IsDDM reports whether the packet is a DDM command (0xC7/0x01).
func (p *Packet) IsDDM() bool {
	return !p.IsReply() && p.CommandSet == CmdSetDDM && p.Command == CmdDDMChunk
}

// Len is the packet's length on the wire.
func (p *Packet) Len() int { return HeaderLen + len(p.Data) }

// NewCommand builds a command packet.
func NewCommand(id uint32, set, cmd uint8, data []byte) *Packet {
	return &Packet{ID: id, CommandSet: set, Command: cmd, Data: data}
}

// NewReply builds a reply packet. Error replies carry no data (as every VM
// sends them).
func NewReply(id uint32, code ErrorCode, data []byte) *Packet {
	if code != ErrNone {
		data = nil
	}
	return &Packet{ID: id, Flags: FlagReply, ErrorCode: code, Data: data}
}

// AppendHeader appends the 11-byte header for p.
func (p *Packet) AppendHeader(dst []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(p.Len()))
	dst = binary.BigEndian.AppendUint32(dst, p.ID)
	dst = append(dst, p.Flags)
	if p.IsReply() {
		dst = binary.BigEndian.AppendUint16(dst, uint16(p.ErrorCode))
	} else {
		dst = append(dst, p.CommandSet, p.Command)
	}
	return dst
}

// Append appends the whole packet in wire form.
func (p *Packet) Append(dst []byte) []byte {
	return append(p.AppendHeader(dst), p.Data...)
}

// Marshal returns the packet in wire form.
func (p *Packet) Marshal() []byte { return p.Append(make([]byte, 0, p.Len())) }

func (p *Packet) String() string {
	if p.IsReply() {
		if p.ErrorCode != ErrNone {
			return fmt.Sprintf("reply id=%#x error=%s", p.ID, p.ErrorCode)
		}
		return fmt.Sprintf("reply id=%#x len=%d", p.ID, len(p.Data))
	}
	return fmt.Sprintf("command id=%#x %s len=%d", p.ID, CommandName(p.CommandSet, p.Command), len(p.Data))
}

// ParseHeader decodes an 11-byte header. It returns the total packet length
// from the length field after checking it against [HeaderLen, max].
func ParseHeader(h []byte, max int) (p Packet, length int, err error) {
	if len(h) < HeaderLen {
		return p, 0, io.ErrUnexpectedEOF
	}
	l := binary.BigEndian.Uint32(h)
	if l < HeaderLen {
		return p, 0, fmt.Errorf("%w: %d", ErrBadLength, l)
	}
	if max <= 0 {
		max = DefaultMaxPacketLen
	}
	if uint64(l) > uint64(max) {
		return p, 0, fmt.Errorf("%w: %d > %d", ErrPacketTooLarge, l, max)
	}
	p.ID = binary.BigEndian.Uint32(h[4:])
	p.Flags = h[8]
	if p.IsReply() {
		p.ErrorCode = ErrorCode(binary.BigEndian.Uint16(h[9:]))
	} else {
		p.CommandSet, p.Command = h[9], h[10]
	}
	return p, int(l), nil
}

// Decode parses one complete packet from b, which must hold exactly one
// packet. It is the pure form of ReadPacket, used by tests and fuzzing.
func Decode(b []byte, max int) (*Packet, error) {
	p, l, err := ParseHeader(b, max)
	if err != nil {
		return nil, err
	}
	if l != len(b) {
		return nil, fmt.Errorf("jdwp: length field %d but %d bytes given", l, len(b))
	}
	p.Data = b[HeaderLen:]
	return &p, nil
}

// readChunk is the most a reader allocates ahead of the bytes that actually
// arrived; larger packets grow in steps of at most this size.
const readChunk = 1 << 20

// ErrBudget is returned when reading a packet would pass a Budget.
var ErrBudget = errors.New("jdwp: packets being received exceed the memory budget")

// ReadPacket reads one packet from r, rejecting a length above limit (0 means
// DefaultMaxPacketLen). A large length is a claim: the buffer grows only as
// data arrives, so a peer cannot make us allocate what it never sends.
func ReadPacket(r io.Reader, limit int) (*Packet, error) {
	return ReadPacketBudget(r, limit, nil)
}

// ReadPacketBudget is ReadPacket with the bytes of a large packet being
// received taken from b (nil: no budget) until the packet is complete. A
// body larger than 1 MiB is read into pieces that together double what has
// arrived, never past the packet's length, and into one buffer of exactly
// its length once half of it is there: at most 1.5 times the packet is
// allocated, and never more than twice what the peer sent.
func ReadPacketBudget(r io.Reader, limit int, b *Budget) (*Packet, error) {
	return readPacket(r, func() int { return limit }, func(int) *Budget { return b })
}

// readPacket reads one packet, asking limit for the bound once the header
// has arrived (a Conn's bound may change while it waits for one), and
// budget for the budget a packet of that length draws from.
func readPacket(r io.Reader, limit func() int, budget func(length int) *Budget) (*Packet, error) {
	p, l, err := readHeader(r, limit)
	if err != nil {
		return nil, err
	}
	b := budget(l)
	pk, held, err := readBody(r, p, l, b)
	b.Give(held) // the caller owns the packet now
	return pk, err
}

// readHeader reads a packet's header and checks its length against the
// limit in force once it has arrived.
func readHeader(r io.Reader, limit func() int) (Packet, int, error) {
	var h [HeaderLen]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return Packet{}, 0, err
	}
	return ParseHeader(h[:], limit())
}

// readBody reads the body of the packet whose header gave p and length l,
// the bytes of a large one taken from b (nil: no budget). On success the
// packet keeps what it took, held, until the caller releases it (a Conn:
// once the packet is consumed); on an error nothing is kept.
func readBody(r io.Reader, p Packet, l int, b *Budget) (pk *Packet, held int64, err error) {
	n := l - HeaderLen
	if n <= readChunk {
		p.Data = make([]byte, n)
		if _, err := io.ReadFull(r, p.Data); err != nil {
			return nil, 0, unexpected(err)
		}
		return &p, 0, nil
	}
	defer func() {
		if err != nil {
			b.Give(held)
			held = 0
		}
	}()
	take := func(k int) error {
		if !b.Take(int64(k)) {
			return fmt.Errorf("%w (%d bytes more for a %d-byte packet)", ErrBudget, k, l)
		}
		held += int64(k)
		return nil
	}
	// A packet that could not be read whole is refused before its first
	// piece is allocated (its reading would be garbage).
	if !b.Fits(int64(n + n/2)) {
		return nil, 0, fmt.Errorf("%w (%d bytes for a %d-byte packet, %d of %d in use)", ErrBudget, n+n/2, l, b.Used(), b.Limit())
	}
	var pieces [][]byte
	got := 0
	for got < n/2 {
		size := min(n/2-got, max(readChunk, got))
		if err := take(size); err != nil {
			return nil, held, err
		}
		piece := make([]byte, size)
		if _, err := io.ReadFull(r, piece); err != nil {
			return nil, held, unexpected(err)
		}
		pieces = append(pieces, piece)
		got += size
	}
	if err := take(n); err != nil {
		return nil, held, err
	}
	data := make([]byte, n)
	off := 0
	for i, piece := range pieces {
		off += copy(data[off:], piece)
		pieces[i] = nil
	}
	if _, err := io.ReadFull(r, data[off:]); err != nil {
		return nil, held, unexpected(err)
	}
	p.Data = data
	return &p, held, nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// WritePacket writes p to w in one Write call.
func WritePacket(w io.Writer, p *Packet) error {
	_, err := w.Write(p.Marshal())
	return err
}
