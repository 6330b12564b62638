package heapgraph

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// FormatError reports malformed input: what was being read, at which byte
// offset of the trace, and why (the house's wire.FormatError).
type FormatError = wire.FormatError

// ErrIncomplete is wrapped by the error for a dump with a packet missing:
// an index that skips, or a last packet that says more follow.
var ErrIncomplete = errors.New("heap graph incomplete")

// ErrCompressed is wrapped by the error for a trace whose packets are
// compressed (the config's compression_type): not read here.
var ErrCompressed = errors.New("compressed trace packets are not supported (capture without compression_type)")

// ErrNoHeapGraph is returned for a trace that holds no heap graph (of the
// pid asked for): on user builds Perfetto skips an app that is neither
// debuggable nor profileable without a word.
var ErrNoHeapGraph = errors.New("the trace holds no Java heap graph")

// Field numbers (spec/perfetto-heapgraph.md "The file").
const (
	fTracePacket = 1 // Trace.packet

	fPacketTimestamp   = 8
	fPacketSequenceID  = 10
	fPacketCompressed  = 50
	fPacketHeapGraph   = 56
	fPacketZstdPackets = 133

	fGraphPID           = 1
	fGraphObjects       = 2
	fGraphFieldNames    = 4
	fGraphContinued     = 5
	fGraphIndex         = 6
	fGraphRoots         = 7
	fGraphLocationNames = 8
	fGraphTypes         = 9

	fObjID           = 1
	fObjTypeID       = 2
	fObjSelfSize     = 3
	fObjRefFieldID   = 4
	fObjRefObjectID  = 5
	fObjRefFieldBase = 6
	fObjIDDelta      = 7
	fObjHeapType     = 9

	fTypeID          = 1
	fTypeLocationID  = 2
	fTypeClassName   = 3
	fTypeObjectSize  = 4
	fTypeSuperclass  = 5
	fTypeRefFieldID  = 6
	fTypeKind        = 7
	fTypeClassLoader = 8

	fRootObjectIDs = 1
	fRootType      = 2

	fInternedIID = 1
	fInternedStr = 2
)

// MaxPacket bounds one trace packet (Perfetto's own packets are at most a
// few MB; ART cuts heap graphs at about 400 KB).
const MaxPacket = 256 << 20

// Options choose what Read decodes.
type Options struct {
	// PID keeps only the dumps of this process (0: every dump). The
	// packets of other processes are skipped undecoded.
	PID int32
	// SizeHint is the trace's size in bytes, when known (Read takes it
	// from an *os.File or a *bytes.Reader itself): a dump's slices are
	// then sized once from it rather than grown, at most about 3.5 times
	// the trace's bytes.
	SizeHint int64
}

// Trace is what Read found: the complete dumps, in the order they ended.
type Trace struct {
	Dumps []*Graph
	// Packets is the number of trace packets read, Skipped those without
	// a heap graph (or of another pid).
	Packets, Skipped int
}

// Read decodes the heap graphs of the trace r holds (a Perfetto trace
// file: `Trace { repeated TracePacket packet = 1 }`). Packets and fields
// it does not use are skipped; a trace without any heap graph (of
// opts.PID) is ErrNoHeapGraph. Every error for bad input names the byte
// offset (FormatError) or the dump and the packet index.
//
// The packets of one dump are joined by their trusted sequence id and
// pid: index 0, 1, 2, … with continued set on all but the last; names
// and types may arrive after the objects that use them and are resolved
// when the last packet is in. id_delta continues from the previous object
// of the same packet (a packet's first object has an absolute id, as the
// trace processor reads it); the heap type carries over from the
// previous object of the dump.
//
// Memory: the packet being decoded (bounded by MaxPacket and by the bytes
// actually present) plus the decoded dumps, about 30 bytes per object and
// 12 per reference.
func Read(r io.Reader, opts Options) (*Trace, error) {
	if opts.SizeHint <= 0 {
		opts.SizeHint = sizeOf(r)
	}
	d := &decoder{br: bufio.NewReaderSize(r, 64<<10), opts: opts, open: map[dumpKey]*dumpState{}}
	return d.run()
}

// sizeOf returns the size of a file or an in-memory reader (0: unknown).
func sizeOf(r io.Reader) int64 {
	switch x := r.(type) {
	case interface{ Size() int64 }:
		return x.Size()
	case interface{ Stat() (os.FileInfo, error) }:
		if fi, err := x.Stat(); err == nil && fi.Mode().IsRegular() {
			return fi.Size()
		}
	}
	return 0
}

// Bytes of a trace per object and per reference, at the least, as ART
// writes them (a few more in fact): the capacity a size hint gives.
const (
	hintBytesPerObject = 16
	hintBytesPerRef    = 8
)

// presize gives a new dump's slices the capacity the trace's size
// suggests.
func (g *Graph) presize(size int64) {
	objects, refs := int(size/hintBytesPerObject), int(size/hintBytesPerRef)
	if objects < 1024 {
		return
	}
	g.ID = make([]uint64, 0, objects)
	g.Type = make([]int32, 0, objects)
	g.Size = make([]uint32, 0, objects)
	g.Heap = make([]HeapType, 0, objects)
	g.flags = make([]uint8, 0, objects)
	g.RefEnd = make([]uint32, 0, objects)
	g.Refs = make([]uint64, 0, refs)
	g.FieldOf = make([]uint32, 0, refs)
}

type dumpKey struct {
	seq uint64
	pid int32
}

type dumpState struct {
	g         *Graph
	next      uint64 // the index the next packet must have
	heap      HeapType
	locations map[uint64]string
}

type decoder struct {
	br   *bufio.Reader
	off  int64
	opts Options
	open map[dumpKey]*dumpState
	buf  []byte
	out  Trace
}

func (d *decoder) fail(off int64, what string, err error) error {
	return &FormatError{Offset: int(off), What: what, Err: err}
}

// uvarint reads one varint of the Trace framing.
func (d *decoder) uvarint(what string) (uint64, error) {
	start := d.off
	var x uint64
	for i := 0; i < binary64; i++ {
		c, err := d.br.ReadByte()
		if err != nil {
			if err == io.EOF {
				if i == 0 {
					return 0, io.EOF
				}
				err = wire.ErrShort
			}
			return 0, d.fail(start, what, err)
		}
		d.off++
		if i == binary64-1 && c > 1 {
			break
		}
		x |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return x, nil
		}
	}
	return 0, d.fail(start, what, errors.New("bad varint"))
}

const binary64 = 10 // bytes of the longest varint

// readBody reads n bytes into d.buf, growing it in steps as the bytes
// arrive, so a length that lies costs no more than the bytes present.
func (d *decoder) readBody(n uint64, what string) ([]byte, error) {
	start := d.off
	if n > MaxPacket {
		return nil, d.fail(start, what, fmt.Errorf("%w: %d bytes (at most %d)", wire.ErrTooLong, n, MaxPacket))
	}
	d.buf = d.buf[:0]
	for uint64(len(d.buf)) < n {
		step := min(n-uint64(len(d.buf)), 1<<20)
		l := len(d.buf)
		d.buf = append(d.buf, make([]byte, step)...)
		got, err := io.ReadFull(d.br, d.buf[l:])
		d.off += int64(got)
		if err != nil {
			return nil, d.fail(start, what, fmt.Errorf("%w: %d of %d bytes", wire.ErrShort, l+got, n))
		}
	}
	return d.buf, nil
}

func (d *decoder) run() (*Trace, error) {
	for {
		start := d.off
		tag, err := d.uvarint("trace packet tag")
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		num, typ := protowire.DecodeTag(tag)
		if num < protowire.MinValidNumber {
			return nil, d.fail(start, "trace packet tag", fmt.Errorf("field number %d", num))
		}
		switch typ {
		case protowire.VarintType:
			if _, err := d.uvarint("trace field"); err != nil {
				return nil, err
			}
			continue
		case protowire.Fixed32Type, protowire.Fixed64Type:
			n := uint64(4)
			if typ == protowire.Fixed64Type {
				n = 8
			}
			if _, err := d.readBody(n, "trace field"); err != nil {
				return nil, err
			}
			continue
		case protowire.BytesType:
		default:
			return nil, d.fail(start, "trace packet tag", fmt.Errorf("wire type %d", typ))
		}
		n, err := d.uvarint("trace packet length")
		if err != nil {
			return nil, err
		}
		bodyOff := d.off
		body, err := d.readBody(n, "trace packet")
		if err != nil {
			return nil, err
		}
		if num != fTracePacket {
			continue
		}
		d.out.Packets++
		if err := d.packet(body, int(bodyOff)); err != nil {
			return nil, err
		}
	}
	if len(d.open) > 0 {
		// The first of the open dumps, by sequence and pid, so the error
		// does not depend on map order.
		var k dumpKey
		first := true
		for key := range d.open {
			if first || key.seq < k.seq || key.seq == k.seq && key.pid < k.pid {
				k, first = key, false
			}
		}
		return nil, fmt.Errorf("heap graph of pid %d (sequence %d): %w: the trace ends after packet index %d, which says more follow",
			k.pid, k.seq, ErrIncomplete, d.open[k].next-1)
	}
	if len(d.out.Dumps) == 0 {
		if d.opts.PID != 0 {
			return nil, fmt.Errorf("%w of pid %d (%d packets)", ErrNoHeapGraph, d.opts.PID, d.out.Packets)
		}
		return nil, fmt.Errorf("%w (%d packets)", ErrNoHeapGraph, d.out.Packets)
	}
	return &d.out, nil
}

// field is one field of a message: its number, wire type, value (a
// varint, or a fixed value) or bytes, and its offset in the trace.
type field struct {
	num  protowire.Number
	typ  protowire.Type
	v    uint64
	b    []byte
	off  int
	bOff int // offset of b
}

// fields calls fn for each field of the message b (at offset base of the
// trace). what names the message in errors.
func fields(b []byte, base int, what string, fn func(f *field) error) error {
	var f field
	for i := 0; i < len(b); {
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 {
			return &FormatError{Offset: base + i, What: what + " tag", Err: protowire.ParseError(n)}
		}
		f = field{num: num, typ: typ, off: base + i}
		i += n
		switch typ {
		case protowire.VarintType:
			f.v, n = protowire.ConsumeVarint(b[i:])
		case protowire.Fixed32Type:
			var v uint32
			v, n = protowire.ConsumeFixed32(b[i:])
			f.v = uint64(v)
		case protowire.Fixed64Type:
			f.v, n = protowire.ConsumeFixed64(b[i:])
		case protowire.BytesType:
			var l uint64
			l, n = protowire.ConsumeVarint(b[i:])
			if n >= 0 {
				if l > uint64(len(b)-i-n) {
					return &FormatError{Offset: f.off, What: fmt.Sprintf("%s field %d", what, num),
						Err: fmt.Errorf("%w: length %d, %d bytes left", wire.ErrTooLong, l, len(b)-i-n)}
				}
				f.bOff = base + i + n
				f.b = b[i+n : i+n+int(l)]
				n += int(l)
			}
		default:
			n = protowire.ConsumeFieldValue(num, typ, b[i:])
		}
		if n < 0 {
			return &FormatError{Offset: f.off, What: fmt.Sprintf("%s field %d", what, num), Err: protowire.ParseError(n)}
		}
		i += n
		if err := fn(&f); err != nil {
			return err
		}
	}
	return nil
}

// repeated calls fn for each value of a repeated varint field, packed
// (bytes) or not.
func repeated(f *field, what string, fn func(v uint64) error) error {
	switch f.typ {
	case protowire.VarintType:
		return fn(f.v)
	case protowire.BytesType:
		for i := 0; i < len(f.b); {
			v, n := protowire.ConsumeVarint(f.b[i:])
			if n < 0 {
				return &FormatError{Offset: f.bOff + i, What: what, Err: protowire.ParseError(n)}
			}
			i += n
			if err := fn(v); err != nil {
				return err
			}
		}
		return nil
	}
	return &FormatError{Offset: f.off, What: what, Err: fmt.Errorf("wire type %d", f.typ)}
}

// packet decodes one TracePacket.
func (d *decoder) packet(b []byte, base int) error {
	var (
		ts, seq   uint64
		graph     []byte
		graphOff  int
		hasGraphs int
	)
	err := fields(b, base, "trace packet", func(f *field) error {
		switch f.num {
		case fPacketTimestamp:
			ts = f.v
		case fPacketSequenceID:
			seq = f.v
		case fPacketHeapGraph:
			if f.typ != protowire.BytesType {
				return &FormatError{Offset: f.off, What: "heap_graph", Err: fmt.Errorf("wire type %d", f.typ)}
			}
			graph, graphOff = f.b, f.bOff
			hasGraphs++
		case fPacketCompressed, fPacketZstdPackets:
			return &FormatError{Offset: f.off, What: "trace packet", Err: ErrCompressed}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if hasGraphs == 0 {
		d.out.Skipped++
		return nil
	}
	if hasGraphs > 1 {
		return &FormatError{Offset: base, What: "trace packet", Err: errors.New("more than one heap_graph")}
	}
	return d.heapGraph(graph, graphOff, ts, seq)
}

// heapGraph decodes one HeapGraph message: its header fields first
// (wherever they are), then, for a pid that is kept, its contents.
func (d *decoder) heapGraph(b []byte, base int, ts, seq uint64) error {
	var (
		pid       int32
		index     uint64
		continued bool
	)
	err := fields(b, base, "heap graph", func(f *field) error {
		switch f.num {
		case fGraphPID:
			pid = int32(f.v)
		case fGraphIndex:
			index = f.v
		case fGraphContinued:
			continued = f.v != 0
		}
		return nil
	})
	if err != nil {
		return err
	}
	if d.opts.PID != 0 && pid != d.opts.PID {
		d.out.Skipped++
		return nil
	}
	key := dumpKey{seq: seq, pid: pid}
	st := d.open[key]
	switch {
	case st == nil && index != 0:
		return &FormatError{Offset: base, What: "heap graph index",
			Err: fmt.Errorf("%w: pid %d's dump starts at packet index %d (packets 0–%d are missing)", ErrIncomplete, pid, index, index-1)}
	case st != nil && index != st.next:
		return &FormatError{Offset: base, What: "heap graph index",
			Err: fmt.Errorf("%w: pid %d's dump has packet index %d where %d was expected", ErrIncomplete, pid, index, st.next)}
	case st == nil:
		st = &dumpState{g: &Graph{PID: pid, Timestamp: ts, names: map[uint64]string{}}, locations: map[uint64]string{}}
		if len(d.out.Dumps) == 0 && len(d.open) == 0 {
			st.g.presize(d.opts.SizeHint) // the first dump only: the hint is the whole trace
		}
		d.open[key] = st
	}
	st.next++
	st.g.Packets++
	if err := st.contents(b, base); err != nil {
		return err
	}
	if !continued {
		delete(d.open, key)
		if err := st.finish(); err != nil {
			return err
		}
		d.out.Dumps = append(d.out.Dumps, st.g)
	}
	return nil
}

// contents decodes the repeated fields of one HeapGraph packet.
func (st *dumpState) contents(b []byte, base int) error {
	var prevID uint64
	return fields(b, base, "heap graph", func(f *field) error {
		if f.typ != protowire.BytesType {
			return nil
		}
		switch f.num {
		case fGraphObjects:
			return st.object(f.b, f.bOff, &prevID)
		case fGraphTypes:
			return st.typ(f.b, f.bOff)
		case fGraphRoots:
			return st.root(f.b, f.bOff)
		case fGraphFieldNames:
			return interned(f.b, f.bOff, "field name", st.g.names)
		case fGraphLocationNames:
			return interned(f.b, f.bOff, "location name", st.locations)
		}
		return nil
	})
}

// Object flags kept while a dump is decoded.
const (
	flagSize   = 1 << iota // self_size was written
	flagFields             // reference_field_id was written
)

// object decodes one HeapGraphObject and appends it to the graph. It is
// the hot loop (one call per object): fields are walked inline, without
// the callback of fields.
func (st *dumpState) object(b []byte, base int, prevID *uint64) error {
	g := st.g
	var (
		id, typeID, size, refBase uint64
		hasID, hasSize, hasBase   bool
		refStart                  = len(g.Refs)
		fieldStart                = len(g.FieldOf)
	)
	for i := 0; i < len(b); {
		off := i
		num, typ, n := protowire.ConsumeTag(b[i:])
		if n < 0 {
			return &FormatError{Offset: base + i, What: "heap graph object tag", Err: protowire.ParseError(n)}
		}
		i += n
		var v uint64
		var data []byte
		switch typ {
		case protowire.VarintType:
			v, n = protowire.ConsumeVarint(b[i:])
		case protowire.BytesType:
			var l uint64
			l, n = protowire.ConsumeVarint(b[i:])
			if n >= 0 {
				if l > uint64(len(b)-i-n) {
					return &FormatError{Offset: base + off, What: fmt.Sprintf("heap graph object field %d", num),
						Err: fmt.Errorf("%w: length %d, %d bytes left", wire.ErrTooLong, l, len(b)-i-n)}
				}
				data = b[i+n : i+n+int(l)]
				n += int(l)
			}
		default:
			n = protowire.ConsumeFieldValue(num, typ, b[i:])
		}
		if n < 0 {
			return &FormatError{Offset: base + off, What: fmt.Sprintf("heap graph object field %d", num), Err: protowire.ParseError(n)}
		}
		dataOff := base + i + n - len(data)
		i += n
		switch num {
		case fObjID:
			id, hasID = v, true
		case fObjIDDelta:
			id, hasID = *prevID+v, true
		case fObjTypeID:
			typeID = v
		case fObjSelfSize:
			size, hasSize = v, true
		case fObjRefFieldBase:
			refBase, hasBase = v, true
		case fObjHeapType:
			if v > math.MaxUint8 {
				return &FormatError{Offset: base + off, What: "heap_type_delta", Err: fmt.Errorf("heap type %d", v)}
			}
			st.heap = HeapType(v)
		case fObjRefObjectID:
			if typ == protowire.VarintType {
				g.Refs = append(g.Refs, v)
				continue
			}
			g.Refs = grow(g.Refs, varints(data))
			for k := 0; k < len(data); {
				x, n := protowire.ConsumeVarint(data[k:])
				if n < 0 {
					return &FormatError{Offset: dataOff + k, What: "reference_object_id", Err: protowire.ParseError(n)}
				}
				k += n
				g.Refs = append(g.Refs, x)
			}
		case fObjRefFieldID:
			if typ == protowire.VarintType {
				data = protowire.AppendVarint(nil, v)
			}
			g.FieldOf = grow(g.FieldOf, varints(data))
			for k := 0; k < len(data); {
				x, n := protowire.ConsumeVarint(data[k:])
				if n < 0 {
					return &FormatError{Offset: dataOff + k, What: "reference_field_id", Err: protowire.ParseError(n)}
				}
				if x > math.MaxUint32 {
					return &FormatError{Offset: dataOff + k, What: "reference_field_id", Err: fmt.Errorf("field name iid %d is out of range", x)}
				}
				k += n
				g.FieldOf = append(g.FieldOf, uint32(x))
			}
		}
	}
	nRefs, nFields := len(g.Refs)-refStart, len(g.FieldOf)-fieldStart
	switch {
	case !hasID || id == 0:
		return &FormatError{Offset: base, What: "heap graph object", Err: errors.New("no object id")}
	case typeID == 0:
		return &FormatError{Offset: base, What: "heap graph object", Err: fmt.Errorf("object %#x has no type", id)}
	case typeID > math.MaxInt32:
		return &FormatError{Offset: base, What: "heap graph object", Err: fmt.Errorf("object %#x: type id %d is out of range", id, typeID)}
	case size > math.MaxUint32:
		return &FormatError{Offset: base, What: "heap graph object", Err: fmt.Errorf("object %#x: self_size %d is out of range", id, size)}
	case nFields != 0 && nFields != nRefs:
		return &FormatError{Offset: base, What: "heap graph object",
			Err: fmt.Errorf("object %#x has %d reference values but %d field ids", id, nRefs, nFields)}
	case len(g.Refs) > math.MaxUint32:
		return &FormatError{Offset: base, What: "heap graph object", Err: errors.New("more than 2^32 references")}
	}
	var flags uint8
	if nFields == 0 {
		g.FieldOf = grow(g.FieldOf, nRefs)
		for range nRefs {
			g.FieldOf = append(g.FieldOf, 0)
		}
	} else {
		flags |= flagFields
	}
	if hasBase {
		for i := refStart; i < len(g.Refs); i++ {
			if g.Refs[i] != 0 {
				g.Refs[i] += refBase
			}
		}
	}
	if hasSize {
		flags |= flagSize
	}
	*prevID = id
	if len(g.ID) == cap(g.ID) {
		g.ID, g.Type, g.Size = grow(g.ID, 1), grow(g.Type, 1), grow(g.Size, 1)
		g.Heap, g.flags, g.RefEnd = grow(g.Heap, 1), grow(g.flags, 1), grow(g.RefEnd, 1)
	}
	g.ID = append(g.ID, id)
	g.Type = append(g.Type, int32(typeID))
	g.Size = append(g.Size, uint32(size))
	g.Heap = append(g.Heap, st.heap)
	g.flags = append(g.flags, flags)
	g.RefEnd = append(g.RefEnd, uint32(len(g.Refs)))
	return nil
}

// typ decodes one HeapGraphType.
func (st *dumpState) typ(b []byte, base int) error {
	t := Type{Super: -1}
	err := fields(b, base, "heap graph type", func(f *field) error {
		switch f.num {
		case fTypeID:
			t.ID = f.v
		case fTypeLocationID:
			t.locationID = f.v
		case fTypeClassName:
			t.Name = string(f.b)
		case fTypeObjectSize:
			t.ObjectSize = f.v
		case fTypeSuperclass:
			t.SuperID = f.v
		case fTypeKind:
			if f.v > math.MaxUint8 {
				return &FormatError{Offset: f.off, What: "type kind", Err: fmt.Errorf("kind %d", f.v)}
			}
			t.Kind = Kind(f.v)
		case fTypeClassLoader:
			t.ClassLoader = f.v
		case fTypeRefFieldID:
			return repeated(f, "type reference_field_id", func(v uint64) error {
				if v > math.MaxUint32 {
					return &FormatError{Offset: f.off, What: "type reference_field_id", Err: fmt.Errorf("field name iid %d is out of range", v)}
				}
				t.RefFields = append(t.RefFields, uint32(v))
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	if t.ID == 0 {
		return &FormatError{Offset: base, What: "heap graph type", Err: fmt.Errorf("type %q has no id", t.Name)}
	}
	st.g.Types = append(st.g.Types, t)
	st.g.typeOff = append(st.g.typeOff, base)
	return nil
}

// root decodes one HeapGraphRoot.
func (st *dumpState) root(b []byte, base int) error {
	var (
		typ   uint64
		start = len(st.g.Roots)
	)
	err := fields(b, base, "heap graph root", func(f *field) error {
		switch f.num {
		case fRootType:
			typ = f.v
		case fRootObjectIDs:
			st.g.Roots = grow(st.g.Roots, varints(f.b))
			return repeated(f, "root object_ids", func(v uint64) error {
				st.g.Roots = append(st.g.Roots, Root{ID: v})
				return nil
			})
		}
		return nil
	})
	if err != nil {
		return err
	}
	if typ > math.MaxUint8 {
		return &FormatError{Offset: base, What: "heap graph root", Err: fmt.Errorf("root type %d", typ)}
	}
	for i := start; i < len(st.g.Roots); i++ {
		st.g.Roots[i].Type = RootType(typ)
	}
	return nil
}

// interned decodes one InternedString into names; an iid defined twice is
// an error.
func interned(b []byte, base int, what string, names map[uint64]string) error {
	var (
		iid uint64
		str string
	)
	err := fields(b, base, what, func(f *field) error {
		switch f.num {
		case fInternedIID:
			iid = f.v
		case fInternedStr:
			str = string(f.b)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if iid == 0 {
		return &FormatError{Offset: base, What: what, Err: fmt.Errorf("%q has iid 0", str)}
	}
	if _, dup := names[iid]; dup {
		return &FormatError{Offset: base, What: what, Err: fmt.Errorf("iid %d is defined twice", iid)}
	}
	names[iid] = str
	return nil
}

// varints counts the varints packed in b: the bytes that end one (high bit
// clear). A cut-off last one is not counted; its decoding reports it.
func varints(b []byte) int {
	n := 0
	for _, c := range b {
		if c < 0x80 {
			n++
		}
	}
	return n
}

// grow makes room for n more elements in s, at least doubling it when it
// must move: append grows a large slice by a quarter, so a column of
// millions was copied several times over on its way (about five times its
// final size).
func grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	return slices.Grow(s, max(n, len(s), 256))
}
