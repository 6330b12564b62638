// Package record reads and writes ddmtui recordings: what the engine
// received that changed its model (DDM chunks, /proc and meminfo samples,
// VMs appearing and going), each with its time since the recording started,
// so that a session can be replayed through the same decoders later
// (docs/RECORDING.md describes the format byte by byte).
//
// A recording is a header and a sequence of blocks. Each block is
// length-prefixed and checksummed and holds whole records (zstd-compressed
// unless the header says otherwise); the writer closes a block at every
// Flush, so a crash loses only what was not yet flushed, and a truncated or
// damaged file reads up to its last whole block.
package record

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"time"

	"github.com/klauspost/compress/zstd"
)

// Magic starts every recording; Version follows it.
const (
	Magic   = "DDMTREC"
	Version = 1
)

// Compression of a recording's blocks.
const (
	CompressNone uint8 = 0
	CompressZstd uint8 = 1
)

// Bounds on what a reader accepts (and a writer produces).
const (
	MaxRecord = 16 << 20 // one record's body
	MaxBlock  = 32 << 20 // one block, compressed or not
	headerLen = len(Magic) + 1 + 1 + 8
)

// Kind says what a record holds.
type Kind uint8

// Record kinds. The data of each is documented in docs/RECORDING.md.
const (
	KindEndpoint Kind = 1 // a VM's endpoint appeared: JSON {source, pid, api, ...}
	KindChunk    Kind = 2 // a DDM chunk the VM sent: type (4 bytes) + body
	KindProcStat Kind = 3 // output of cat /proc/PID/task/*/stat
	KindMeminfo  Kind = 4 // output of dumpsys meminfo PID
	KindGone     Kind = 5 // the VM's session ended: the reason, as text
	KindThreads  Kind = 6 // a non-DDM VM's thread table (JDWP polling), JSON
	KindLog      Kind = 7 // a device log entry (logcat binary format)
	KindState    Kind = 8 // a VM's model fields set by the engine itself (debugger, error), JSON
	KindViews    Kind = 9 // a window's view hierarchy dump: u2 name length, the window name (UTF-8), the VURT reply
)

func (k Kind) String() string {
	switch k {
	case KindEndpoint:
		return "endpoint"
	case KindChunk:
		return "chunk"
	case KindProcStat:
		return "procstat"
	case KindMeminfo:
		return "meminfo"
	case KindGone:
		return "gone"
	case KindThreads:
		return "threads"
	case KindLog:
		return "log"
	case KindState:
		return "state"
	case KindViews:
		return "views"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Record is one thing the engine received.
type Record struct {
	Time time.Duration // since the recording started
	Kind Kind
	Key  string // the VM's key; "" for a device-wide record
	Data []byte
}

// Header is what a recording says about itself.
type Header struct {
	Version     int
	Compression uint8
	Start       time.Time // wall-clock time the recording started
}

// ErrTruncated ends a recording whose last block is incomplete (the writer
// was killed mid-block): every record before it was read.
var ErrTruncated = errors.New("record: recording ends in the middle of a block")

// ErrCorrupt ends a recording with a damaged block.
var ErrCorrupt = errors.New("record: damaged block")

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Writer writes a recording. It is not safe for concurrent use.
type Writer struct {
	w       io.Writer
	comp    uint8
	enc     *zstd.Encoder
	block   []byte // records of the open block, uncompressed
	out     []byte
	written int64
	// MaxSize, when positive, bounds the file: a Flush that would pass it
	// writes nothing and returns ErrFull.
	MaxSize int64
	full    bool
}

// ErrFull is returned once the recording reached Writer.MaxSize.
var ErrFull = errors.New("record: recording reached its size limit")

// NewWriter writes a header to w and returns a writer of blocks compressed
// with comp, stamped as started at start.
func NewWriter(w io.Writer, comp uint8, start time.Time) (*Writer, error) {
	wr := &Writer{w: w, comp: comp}
	switch comp {
	case CompressNone:
	case CompressZstd:
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return nil, err
		}
		wr.enc = enc
	default:
		return nil, fmt.Errorf("record: unknown compression %d", comp)
	}
	h := make([]byte, 0, headerLen)
	h = append(h, Magic...)
	h = append(h, Version, comp)
	h = binary.BigEndian.AppendUint64(h, uint64(start.UnixNano()))
	n, err := w.Write(h)
	wr.written += int64(n)
	return wr, err
}

// Add appends a record to the open block.
func (w *Writer) Add(r Record) error {
	if w.full {
		return ErrFull
	}
	body := 1 + binary.MaxVarintLen64*2 + len(r.Key) + len(r.Data)
	if body > MaxRecord {
		return fmt.Errorf("record: %s record of %d bytes exceeds %d", r.Kind, len(r.Data), MaxRecord)
	}
	var tmp [1 + 2*binary.MaxVarintLen64]byte
	t := tmp[:0]
	t = append(t, byte(r.Kind))
	t = binary.AppendUvarint(t, uint64(max(r.Time, 0)))
	t = binary.AppendUvarint(t, uint64(len(r.Key)))
	w.block = binary.AppendUvarint(w.block, uint64(len(t)+len(r.Key)+len(r.Data)))
	w.block = append(w.block, t...)
	w.block = append(w.block, r.Key...)
	w.block = append(w.block, r.Data...)
	if len(w.block) > MaxBlock/2 {
		return w.Flush()
	}
	return nil
}

// Pending is the size of the open block's records, uncompressed.
func (w *Writer) Pending() int { return len(w.block) }

// Written is how many bytes the recording holds so far.
func (w *Writer) Written() int64 { return w.written }

// Flush closes the open block and writes it; with nothing pending it writes
// nothing.
func (w *Writer) Flush() error {
	if len(w.block) == 0 {
		return nil
	}
	if w.full {
		return ErrFull
	}
	payload := w.block
	if w.enc != nil {
		w.out = w.enc.EncodeAll(w.block, w.out[:0])
		payload = w.out
	}
	if w.MaxSize > 0 && w.written+8+int64(len(payload)) > w.MaxSize {
		w.full = true
		w.block = w.block[:0]
		return ErrFull
	}
	var h [8]byte
	binary.BigEndian.PutUint32(h[:4], uint32(len(payload)))
	binary.BigEndian.PutUint32(h[4:], crc32.Checksum(payload, crcTable))
	n, err := w.w.Write(append(h[:], payload...))
	w.written += int64(n)
	w.block = w.block[:0]
	return err
}

// Reader reads a recording record by record.
type Reader struct {
	r      *bufio.Reader
	Header Header
	dec    *zstd.Decoder
	block  []byte
	raw    []byte
	pos    int
	at     int64 // file offset of the block being read
	offset int64 // file offset of the next block
}

// NewReader reads and checks the header.
func NewReader(r io.Reader) (*Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	h := make([]byte, headerLen)
	if n, err := io.ReadFull(br, h); err != nil {
		if n == 0 && err == io.EOF {
			return nil, errors.New("record: empty file")
		}
		return nil, fmt.Errorf("%w (in the header)", ErrTruncated)
	}
	if string(h[:len(Magic)]) != Magic {
		return nil, errors.New("record: not a ddmtui recording")
	}
	rd := &Reader{r: br, offset: int64(headerLen)}
	rd.Header.Version = int(h[len(Magic)])
	if rd.Header.Version != Version {
		return nil, fmt.Errorf("record: version %d, this ddmtui reads version %d", rd.Header.Version, Version)
	}
	rd.Header.Compression = h[len(Magic)+1]
	rd.Header.Start = time.Unix(0, int64(binary.BigEndian.Uint64(h[len(Magic)+2:])))
	switch rd.Header.Compression {
	case CompressNone:
	case CompressZstd:
		dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(MaxBlock))
		if err != nil {
			return nil, err
		}
		rd.dec = dec
	default:
		return nil, fmt.Errorf("record: unknown compression %d", rd.Header.Compression)
	}
	return rd, nil
}

// Close releases the decoder.
func (rd *Reader) Close() {
	if rd.dec != nil {
		rd.dec.Close()
	}
}

// Next returns the next record. At the end it returns io.EOF, or
// ErrTruncated / ErrCorrupt (wrapped, with the block's offset) when the file
// ends mid-block or a block is damaged; the records before were all
// returned. The record's Data is valid until the next call.
func (rd *Reader) Next() (Record, error) {
	for rd.pos >= len(rd.block) {
		if err := rd.nextBlock(); err != nil {
			return Record{}, err
		}
	}
	b := rd.block[rd.pos:]
	l, n := binary.Uvarint(b)
	if n <= 0 || l > uint64(len(b)-n) || l > MaxRecord {
		return Record{}, rd.corrupt("record length")
	}
	body := b[n : n+int(l)]
	rd.pos += n + int(l)
	if len(body) < 1 {
		return Record{}, rd.corrupt("empty record")
	}
	r := Record{Kind: Kind(body[0])}
	body = body[1:]
	t, n := binary.Uvarint(body)
	if n <= 0 || t > uint64(1<<62) {
		return Record{}, rd.corrupt("record time")
	}
	r.Time = time.Duration(t)
	body = body[n:]
	kl, n := binary.Uvarint(body)
	if n <= 0 || kl > uint64(len(body)-n) {
		return Record{}, rd.corrupt("record key")
	}
	r.Key = string(body[n : n+int(kl)])
	r.Data = body[n+int(kl):]
	return r, nil
}

func (rd *Reader) corrupt(what string) error {
	rd.block, rd.pos = nil, 0
	return fmt.Errorf("%w at offset %d: %s", ErrCorrupt, rd.at, what)
}

func (rd *Reader) nextBlock() error {
	var h [8]byte
	n, err := io.ReadFull(rd.r, h[:])
	if err == io.EOF {
		return io.EOF
	}
	if err != nil {
		return fmt.Errorf("%w (%d of 8 header bytes at offset %d)", ErrTruncated, n, rd.offset)
	}
	size := binary.BigEndian.Uint32(h[:4])
	if size == 0 || size > MaxBlock {
		return fmt.Errorf("%w at offset %d: block of %d bytes", ErrCorrupt, rd.offset, size)
	}
	if cap(rd.raw) < int(size) {
		rd.raw = make([]byte, size)
	}
	rd.raw = rd.raw[:size]
	if n, err := io.ReadFull(rd.r, rd.raw); err != nil {
		return fmt.Errorf("%w: %d of %d bytes of the block at offset %d", ErrTruncated, n, size, rd.offset)
	}
	if crc32.Checksum(rd.raw, crcTable) != binary.BigEndian.Uint32(h[4:]) {
		return fmt.Errorf("%w at offset %d: checksum", ErrCorrupt, rd.offset)
	}
	block := rd.raw
	if rd.dec != nil {
		out, err := rd.dec.DecodeAll(rd.raw, rd.block[:0])
		if err != nil || len(out) > MaxBlock {
			return fmt.Errorf("%w at offset %d: %v", ErrCorrupt, rd.offset, err)
		}
		block = out
	} else {
		block = bytes.Clone(block)
	}
	rd.at = rd.offset
	rd.offset += 8 + int64(size)
	rd.block, rd.pos = block, 0
	return nil
}
