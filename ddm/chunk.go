package ddm

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// Type is a chunk type: four ASCII characters read as a big-endian u4, so
// "HELO" is 0x48454C4F (see spec/ddm-chunks.md §1).
type Type uint32

// Chunk types of the catalogue in spec/ddm-chunks.md §4.
const (
	TypeHELO Type = 'H'<<24 | 'E'<<16 | 'L'<<8 | 'O' // hello: VM identity
	TypeFEAT Type = 'F'<<24 | 'E'<<16 | 'A'<<8 | 'T' // feature list
	TypeAPNM Type = 'A'<<24 | 'P'<<16 | 'N'<<8 | 'M' // app name changed
	TypeWAIT Type = 'W'<<24 | 'A'<<16 | 'I'<<8 | 'T' // waiting for a debugger
	TypeEXIT Type = 'E'<<24 | 'X'<<16 | 'I'<<8 | 'T' // make the VM exit
	TypeFAIL Type = 'F'<<24 | 'A'<<16 | 'I'<<8 | 'L' // generic failure reply
	TypeTEST Type = 'T'<<24 | 'E'<<16 | 'S'<<8 | 'T' // debug only
	TypeTHEN Type = 'T'<<24 | 'H'<<16 | 'E'<<8 | 'N' // thread notifications on/off
	TypeTHCR Type = 'T'<<24 | 'H'<<16 | 'C'<<8 | 'R' // thread created
	TypeTHDE Type = 'T'<<24 | 'H'<<16 | 'D'<<8 | 'E' // thread died
	TypeTHNM Type = 'T'<<24 | 'H'<<16 | 'N'<<8 | 'M' // thread renamed
	TypeTHST Type = 'T'<<24 | 'H'<<16 | 'S'<<8 | 'T' // thread status table
	TypeSTKL Type = 'S'<<24 | 'T'<<16 | 'K'<<8 | 'L' // stack of one thread
	TypeHPIF Type = 'H'<<24 | 'P'<<16 | 'I'<<8 | 'F' // heap summary
	TypeHPGC Type = 'H'<<24 | 'P'<<16 | 'G'<<8 | 'C' // cause a GC
	TypeHPSG Type = 'H'<<24 | 'P'<<16 | 'S'<<8 | 'G' // heap segment map (merged)
	TypeHPSO Type = 'H'<<24 | 'P'<<16 | 'S'<<8 | 'O' // heap segment map (objects)
	TypeHPST Type = 'H'<<24 | 'P'<<16 | 'S'<<8 | 'T' // heap segments start
	TypeHPEN Type = 'H'<<24 | 'P'<<16 | 'E'<<8 | 'N' // heap segments end
	TypeNHSG Type = 'N'<<24 | 'H'<<16 | 'S'<<8 | 'G' // native heap segments
	TypeNHST Type = 'N'<<24 | 'H'<<16 | 'S'<<8 | 'T' // native heap segments start
	TypeNHEN Type = 'N'<<24 | 'H'<<16 | 'E'<<8 | 'N' // native heap segments end
	TypeNHGT Type = 'N'<<24 | 'H'<<16 | 'G'<<8 | 'T' // native allocations
	TypeHPDU Type = 'H'<<24 | 'P'<<16 | 'D'<<8 | 'U' // HPROF dump to a device file
	TypeHPDS Type = 'H'<<24 | 'P'<<16 | 'D'<<8 | 'S' // HPROF dump streamed
	TypeREAE Type = 'R'<<24 | 'E'<<16 | 'A'<<8 | 'E' // allocation tracker on/off
	TypeREAQ Type = 'R'<<24 | 'E'<<16 | 'A'<<8 | 'Q' // allocation tracker status
	TypeREAL Type = 'R'<<24 | 'E'<<16 | 'A'<<8 | 'L' // recent allocations
	TypeMPRS Type = 'M'<<24 | 'P'<<16 | 'R'<<8 | 'S' // method trace to a file: start
	TypeMPRE Type = 'M'<<24 | 'P'<<16 | 'R'<<8 | 'E' // method trace to a file: stop
	TypeMPSS Type = 'M'<<24 | 'P'<<16 | 'S'<<8 | 'S' // method trace streamed: start
	TypeMPSE Type = 'M'<<24 | 'P'<<16 | 'S'<<8 | 'E' // method trace streamed: stop, and its data
	TypeSPSS Type = 'S'<<24 | 'P'<<16 | 'S'<<8 | 'S' // sampling profiler start
	TypeSPSE Type = 'S'<<24 | 'P'<<16 | 'S'<<8 | 'E' // sampling profiler stop
	TypeMPRQ Type = 'M'<<24 | 'P'<<16 | 'R'<<8 | 'Q' // profiling status
	TypeVULW Type = 'V'<<24 | 'U'<<16 | 'L'<<8 | 'W' // view server: list windows
	TypeVURT Type = 'V'<<24 | 'U'<<16 | 'R'<<8 | 'T' // view server: root operations
	TypeVUOP Type = 'V'<<24 | 'U'<<16 | 'O'<<8 | 'P' // view server: view operations
	TypeVUGL Type = 'V'<<24 | 'U'<<16 | 'G'<<8 | 'L' // OpenGL tracing on/off
	TypeDBGD Type = 'D'<<24 | 'B'<<16 | 'G'<<8 | 'D' // draft only: debugger disconnected; never implemented
	TypeZLIB Type = 'Z'<<24 | 'L'<<16 | 'I'<<8 | 'B' // draft only: compressed chunk; never implemented, never inflated (ParseChunks)
)

// String returns the four characters, with bytes outside printable ASCII
// (and the backslash) written as \xNN so that a hostile type cannot put
// control characters on a terminal.
func (t Type) String() string {
	var b strings.Builder
	for shift := 24; shift >= 0; shift -= 8 {
		c := byte(t >> uint(shift))
		if c >= 0x20 && c < 0x7f && c != '\\' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, `\x%02x`, c)
		}
	}
	return b.String()
}

// name is the lower-case code used as an error prefix ("hpsg: ...").
func (t Type) name() string { return strings.ToLower(t.String()) }

// Chunk is one DDM chunk: a type and its body (spec/ddm-chunks.md §2).
type Chunk struct {
	Type Type
	Data []byte
}

// ChunkHeaderLen is the size of a chunk's type and length fields.
const ChunkHeaderLen = 8

// DefaultMaxChunkLen is the body size limit ParseChunks applies when given a
// non-positive limit.
const DefaultMaxChunkLen = 64 << 20

// ParseChunks splits the data of a DDM packet into chunks (spec/ddm-chunks.md
// §2). An empty packet yields no chunks and no error: it is the "empty
// reply". A chunk length larger than the remaining data, a length above
// maxLen, or trailing bytes too few for a chunk header are format errors.
//
// ZLIB chunks are not decompressed: they are returned as they came (type
// ZLIB, compressed body), which the decoders treat as an unknown chunk to
// be ignored. Compressed chunks are a design-draft feature that no VM, no
// ddmlib and no framework ever implemented (spec/ddm-chunks.md §2), so the
// only peer that sends one is a hostile one, and inflating it would let a
// packet turn into many times its size in memory (160 chunks of one 16 MiB
// packet, each inflating to the packet's length, held 3 GiB): refusing costs
// no real VM anything and leaves a packet's memory at its length, which the
// connection's budget already bounds.
//
// Bodies alias data. maxLen <= 0 means DefaultMaxChunkLen.
func ParseChunks(data []byte, maxLen int) ([]Chunk, error) {
	if maxLen <= 0 {
		maxLen = DefaultMaxChunkLen
	}
	var chunks []Chunk
	r := wire.NewReader(data, 0)
	for r.Len() > 0 {
		start := r.Offset()
		if r.Len() < ChunkHeaderLen {
			return nil, &wire.FormatError{Offset: start, What: "chunk header",
				Err: fmt.Errorf("%d trailing bytes, a chunk header needs %d: %w", r.Len(), ChunkHeaderLen, wire.ErrShort)}
		}
		t := Type(r.U4("chunk type"))
		n := r.U4("chunk length")
		if uint64(n) > uint64(r.Len()) {
			return nil, &wire.FormatError{Offset: start + 4, What: t.String() + " chunk length",
				Err: fmt.Errorf("%d bytes claimed, %d remain: %w", n, r.Len(), wire.ErrTooLong)}
		}
		if uint64(n) > uint64(maxLen) {
			return nil, &wire.FormatError{Offset: start + 4, What: t.String() + " chunk length",
				Err: fmt.Errorf("%d bytes, limit %d: %w", n, maxLen, wire.ErrTooLong)}
		}
		chunks = append(chunks, Chunk{Type: t, Data: r.Bytes(int(n), "chunk body")})
	}
	return chunks, nil
}

// AppendChunk appends one chunk (type, length, body) to dst.
func AppendChunk(dst []byte, t Type, body []byte) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(t))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(body)))
	return append(dst, body...)
}

// Message is a decoded chunk body of a known layout. AppendBody appends the
// body bytes (without the chunk header) in the layout of the spec.
type Message interface {
	ChunkType() Type
	AppendBody(b []byte) []byte
}

// AppendMessage appends m as a complete chunk, header included.
func AppendMessage(dst []byte, m Message) []byte {
	start := len(dst)
	dst = binary.BigEndian.AppendUint32(dst, uint32(m.ChunkType()))
	dst = append(dst, 0, 0, 0, 0)
	dst = m.AppendBody(dst)
	binary.BigEndian.PutUint32(dst[start+4:], uint32(len(dst)-start-ChunkHeaderLen))
	return dst
}

// EncodeChunk returns m as a Chunk with a freshly encoded body.
func EncodeChunk(m Message) Chunk {
	return Chunk{Type: m.ChunkType(), Data: m.AppendBody(nil)}
}
