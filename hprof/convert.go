package hprof

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// ErrNotAndroid is wrapped by Convert's error when the input's header is not
// Android's 1.0.3 (hprof-conv refuses such files too; a 1.0.2 file needs no
// conversion).
var ErrNotAndroid = errors.New("not an Android HPROF file (JAVA PROFILE 1.0.3)")

// ErrRecordTooLarge is wrapped by Convert's error when zero-filling NODATA
// arrays would make a heap dump record longer than its u4 length field
// allows.
var ErrRecordTooLarge = errors.New("converted record longer than 4 GiB")

// ErrOutputTooLarge is wrapped by Convert's error when the output would
// grow past ConvertOptions.MaxOutput: NODATA arrays let a few input bytes
// claim gigabytes of zero elements.
var ErrOutputTooLarge = errors.New("converted output larger than its bound")

// DefaultMaxOutput is the output bound ddmtui uses for an input of n bytes:
// 16 times the input, and at least 16 MiB. Real dumps grow by a few bytes at
// most (NODATA arrays are rare); a hostile one is stopped long before it
// fills a disk.
func DefaultMaxOutput(n int64) int64 {
	return max(16*n, 16<<20)
}

// NoDataMode says how Convert rewrites Android's PRIMITIVE ARRAY NODATA
// sub-records, which carry an array's length and type but not its elements.
type NoDataMode int

const (
	// NoDataZeroFill writes a PRIMITIVE ARRAY DUMP with the same id, length
	// and type, stack trace serial 0 (as hprof-conv writes it) and elements
	// that are all zero, so the output stays valid HPROF. It is hprof-conv's
	// output exactly when the array is empty.
	NoDataZeroFill NoDataMode = iota
	// NoDataAsHprofConv writes what hprof-conv 29.0.6 writes: tag 0x23 with
	// the id, stack trace serial 0, the length and the type, and no element
	// bytes. For a non-empty array that output is not valid HPROF (a reader
	// takes the bytes that follow as the elements); use it only to compare
	// with hprof-conv.
	NoDataAsHprofConv
)

// ConvertOptions are Convert's options.
type ConvertOptions struct {
	// ExcludeZygote is hprof-conv's -z: drop the INSTANCE, OBJECT ARRAY and
	// PRIMITIVE ARRAY DUMPs that follow a HEAP DUMP INFO for the zygote or
	// image heap, up to the next HEAP DUMP INFO of the same record. Class
	// dumps, roots and NODATA arrays are kept, as hprof-conv keeps them.
	ExcludeZygote bool
	// NoData chooses the PRIMITIVE ARRAY NODATA rewrite.
	NoData NoDataMode
	// MaxOutput bounds the bytes Convert writes (0: no bound). A record
	// that would pass it is not written; the error wraps ErrOutputTooLarge.
	MaxOutput int64
}

// Convert reads Android's HPROF variant (JAVA PROFILE 1.0.3) from src and
// writes the standard format (1.0.2) to dst, as AOSP's hprof-conv does:
//   - the header's version becomes "JAVA PROFILE 1.0.2"; identifier size
//     and timestamp are kept;
//   - records other than HEAP DUMP and HEAP DUMP SEGMENT are copied as they
//     are, header included (their bodies are not checked);
//   - in heap dumps, HEAP DUMP INFO is dropped; ROOT INTERNED STRING,
//     FINALIZING, DEBUGGER, REFERENCE CLEANUP, VM INTERNAL and UNREACHABLE
//     become ROOT UNKNOWN; ROOT JNI MONITOR becomes ROOT UNKNOWN keeping
//     only its object id; PRIMITIVE ARRAY NODATA is rewritten as opts.NoData
//     says; every other sub-record is copied; each heap dump record's length
//     is recomputed.
//
// For files with 4-byte identifiers (all of ART's) and the NoData modes
// documented above, the output is byte-identical to hprof-conv's. Where
// hprof-conv misbehaves, Convert differs: it honours an identifier size of 8
// (hprof-conv assumes 4 and fails), and it rejects what hprof-conv does not
// check: an invalid basic type (hprof-conv loops forever on one
// among a CLASS DUMP's constants or statics, copies one in an instance field
// declaration as it is, and misframes the record on one in a primitive
// array) and a length running past its record (hprof-conv reads out of
// bounds). An unknown sub-record tag is an error with its offset, as in
// hprof-conv.
//
// Memory is one record: a heap dump record is read whole, rewritten in
// place, and written with its new length (zero fill is streamed, never
// held). On error dst holds the output of the records before the failing
// one; with MaxOutput set, never more than MaxOutput bytes.
func Convert(dst io.Writer, src io.Reader, opts ConvertOptions) error {
	s := newSource(src)
	h, err := s.header()
	if err != nil {
		return err
	}
	if h.Version != VersionAndroid {
		return fmt.Errorf("hprof: convert: %w: the header says %q", ErrNotAndroid, h.Version)
	}
	out := bufio.NewWriterSize(dst, 64<<10)
	c := converter{out: out, lay: layouts[h.IDSize], opts: opts}
	err = c.run(s, h)
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	return err
}

type converter struct {
	out     *bufio.Writer
	written int64 // bytes accepted for output so far
	lay     *layout
	opts    ConvertOptions
	spans   []span // the current heap dump's output, as pieces of its input
	hdr     [recordHeaderLen]byte
}

// span is a piece of a heap dump's output: input bytes [from, to), then
// zeros zero bytes.
type span struct {
	from, to int
	zeros    int64
}

func (c *converter) run(s *source, h Header) error {
	var hdr wire.Writer
	hdr.Bytes([]byte(VersionStandard))
	hdr.U1(0)
	hdr.U4(uint32(h.IDSize))
	hdr.U8(h.Timestamp)
	if err := c.reserve(int64(len(hdr.B)), 0, "header"); err != nil {
		return err
	}
	if _, err := c.out.Write(hdr.B); err != nil {
		return err
	}
	for {
		rh, err := s.record()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		body, err := s.body(rh)
		if err != nil {
			return err
		}
		if !rh.Tag.isHeapDump() {
			if err := c.reserve(recordHeaderLen+int64(len(body)), rh.Offset, rh.Tag.String()); err != nil {
				return err
			}
			if err := c.record(rh.Tag, rh.Time, uint32(len(body))); err != nil {
				return err
			}
			if _, err := c.out.Write(body); err != nil {
				return err
			}
			continue
		}
		if err := c.heapDump(rh, body); err != nil {
			return err
		}
	}
}

// reserve accounts for n more output bytes, failing when they would pass
// MaxOutput; off and what name the input record responsible.
func (c *converter) reserve(n, off int64, what string) error {
	if c.opts.MaxOutput > 0 && c.written+n > c.opts.MaxOutput {
		return &FormatError{Offset: int(off), What: what,
			Err: fmt.Errorf("%w: %d bytes would follow the %d written, the bound is %d", ErrOutputTooLarge, n, c.written, c.opts.MaxOutput)}
	}
	c.written += n
	return nil
}

// record writes a record header.
func (c *converter) record(tag Tag, time, length uint32) error {
	b := c.hdr[:]
	b[0] = byte(tag)
	binary.BigEndian.PutUint32(b[1:], time)
	binary.BigEndian.PutUint32(b[5:], length)
	_, err := c.out.Write(b)
	return err
}

// keep adds input bytes [from, to) and then zeros bytes of zeros to the
// output, merging with the previous span when they touch.
func (c *converter) keep(from, to int, zeros int64) {
	if n := len(c.spans); n > 0 && c.spans[n-1].to == from && c.spans[n-1].zeros == 0 {
		c.spans[n-1].to = to
		c.spans[n-1].zeros = zeros
		return
	}
	c.spans = append(c.spans, span{from, to, zeros})
}

// heapDump rewrites one HEAP DUMP (SEGMENT) body in place and writes it.
func (c *converter) heapDump(rh RecordInfo, body []byte) error {
	id := c.lay.idSize
	base := int(rh.Offset) + recordHeaderLen
	c.spans = c.spans[:0]
	ignore := false // inside a zygote or image heap, with ExcludeZygote
	for start, end := 0, 0; start < len(body); start = end {
		if end = c.lay.fastEnd(body, start); end < 0 {
			r := wire.NewReader(body[start:], base+start)
			c.lay.skipSub(r, body[start:])
			if err := r.Err(); err != nil {
				return err
			}
			end = start + r.Offset()
		}
		tag := SubTag(body[start])
		switch tag {
		case SubHeapDumpInfo:
			heap := binary.BigEndian.Uint32(body[start+1:])
			ignore = c.opts.ExcludeZygote && (heap == HeapZygote || heap == HeapImage)
		case SubInstanceDump, SubObjectArrayDump, SubPrimitiveArray:
			if !ignore {
				c.keep(start, end, 0)
			}
		case SubRootInternedString, SubRootFinalizing, SubRootDebugger, SubRootReferenceCleanup,
			SubRootVMInternal, SubRootUnreachable:
			body[start] = byte(SubRootUnknown)
			c.keep(start, end, 0)
		case SubRootJNIMonitor:
			// Keep the object id; drop the thread serial and stack depth.
			body[start] = byte(SubRootUnknown)
			c.keep(start, start+1+id, 0)
		case SubPrimitiveArrayNoData:
			body[start] = byte(SubPrimitiveArray)
			clear(body[start+1+id : start+1+id+4]) // stack trace serial
			var zeros int64
			if c.opts.NoData == NoDataZeroFill {
				count := binary.BigEndian.Uint32(body[start+1+id+4:])
				zeros = int64(count) * int64(Type(body[end-1]).Size(id))
			}
			c.keep(start, end, zeros)
		default:
			c.keep(start, end, 0)
		}
	}
	var total int64
	for _, sp := range c.spans {
		total += int64(sp.to-sp.from) + sp.zeros
	}
	if total > math.MaxUint32 {
		return &FormatError{Offset: int(rh.Offset), What: rh.Tag.String(),
			Err: fmt.Errorf("%w: %d bytes", ErrRecordTooLarge, total)}
	}
	if err := c.reserve(recordHeaderLen+total, rh.Offset, rh.Tag.String()); err != nil {
		return err
	}
	if err := c.record(rh.Tag, rh.Time, uint32(total)); err != nil {
		return err
	}
	for _, sp := range c.spans {
		if _, err := c.out.Write(body[sp.from:sp.to]); err != nil {
			return err
		}
		for n := sp.zeros; n > 0; {
			k := min(n, int64(len(zeroBlock)))
			if _, err := c.out.Write(zeroBlock[:k]); err != nil {
				return err
			}
			n -= k
		}
	}
	return nil
}

// zeroBlock is read-only: the source of NODATA arrays' zero elements.
var zeroBlock [32 << 10]byte

// ToStandard converts a whole Android HPROF held in memory (the body of an
// HPDS chunk, or a file read back from a device) to standard HPROF with the
// default options and the output bounded by DefaultMaxOutput. To write a
// file, Convert straight into it instead: the output is never held.
func ToStandard(android []byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(android))
	opts := ConvertOptions{MaxOutput: DefaultMaxOutput(int64(len(android)))}
	if err := Convert(&buf, bytes.NewReader(android), opts); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
