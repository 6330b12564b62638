package simpleperf

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
)

// The messages of cmd_report_sample.proto (spec/simpleperf.md), one
// decoder each. Every decoder reads one message's bytes with protowire,
// skips fields it does not know (a newer simpleperf may add some), and
// refuses a known field of the wrong wire type.

// ExecutionType says how a frame ran (CallChainEntry.execution_type).
type ExecutionType uint8

// Execution types.
const (
	NativeMethod         ExecutionType = 0
	InterpretedJVMMethod ExecutionType = 1
	JITJVMMethod         ExecutionType = 2
	ARTMethod            ExecutionType = 3 // a method of the runtime written in Java (boot image, AOT)
)

// Java reports whether the frame is a Java method (interpreted, JIT or
// compiled) rather than native code.
func (e ExecutionType) Java() bool { return e != NativeMethod }

func (e ExecutionType) String() string {
	switch e {
	case NativeMethod:
		return "native"
	case InterpretedJVMMethod:
		return "interpreted"
	case JITJVMMethod:
		return "jit"
	case ARTMethod:
		return "art"
	}
	return fmt.Sprintf("execution type %d", int(e))
}

// Frame is one CallChainEntry.
type Frame struct {
	VAddr    uint64 // address in the file
	FileID   uint32
	SymbolID int32 // index in the file's symbols; -1: no symbol
	Exec     ExecutionType
}

// UnwindingResult is why a call chain may be short (Sample.unwinding_result).
type UnwindingResult struct {
	RawErrorCode uint32
	ErrorAddr    uint64
	ErrorCode    uint32
}

// Sample is one sample.
type Sample struct {
	Time        uint64 // ns, CLOCK_MONOTONIC
	ThreadID    int32
	EventCount  uint64
	EventTypeID uint32
	// Callchain is leaf first: entry 0 is the sampled frame.
	Callchain    []Frame
	Unwinding    UnwindingResult
	HasUnwinding bool
}

// Lost is a LostSituation: how many samples were taken and lost.
type Lost struct {
	SampleCount, LostCount uint64
}

// File is a file frames run from, with its symbol table: a frame's
// SymbolID indexes Symbols (already demangled by simpleperf); Mangled, when
// present, holds the mangled forms at the same indexes.
type File struct {
	ID      uint32
	Path    string
	Symbols []string
	Mangled []string
}

// Thread names a thread.
type Thread struct {
	ThreadID, ProcessID int32
	Name                string
}

// MetaInfo describes the recording.
type MetaInfo struct {
	EventTypes  []string
	AppPackage  string
	AppType     string // "debuggable", "profileable" or "non_profileable"
	SDKVersion  string
	BuildType   string
	TraceOffCPU bool
}

// ContextSwitch marks a thread leaving (SwitchOn false) or getting back
// (true) the CPU, with --trace-offcpu.
type ContextSwitch struct {
	SwitchOn bool
	Time     uint64
	ThreadID int32
}

// msg walks one message's fields.
type msg struct {
	b    []byte
	what string // the message's name, for errors
}

// field returns the next field's number and type, or ok false at the end.
func (m *msg) field() (protowire.Number, protowire.Type, error) {
	num, typ, n := protowire.ConsumeTag(m.b)
	if n < 0 {
		return 0, 0, fmt.Errorf("%s: tag: %w: %v", m.what, ErrMalformed, protowire.ParseError(n))
	}
	m.b = m.b[n:]
	return num, typ, nil
}

func (m *msg) skip(num protowire.Number, typ protowire.Type) error {
	n := protowire.ConsumeFieldValue(num, typ, m.b)
	if n < 0 {
		return fmt.Errorf("%s: field %d: %w: %v", m.what, num, ErrMalformed, protowire.ParseError(n))
	}
	m.b = m.b[n:]
	return nil
}

func (m *msg) varint(num protowire.Number, typ protowire.Type, name string) (uint64, error) {
	if typ != protowire.VarintType {
		return 0, fmt.Errorf("%s.%s: %w %d", m.what, name, ErrWireType, typ)
	}
	v, n := protowire.ConsumeVarint(m.b)
	if n < 0 {
		return 0, fmt.Errorf("%s.%s: %w: %v", m.what, name, ErrMalformed, protowire.ParseError(n))
	}
	m.b = m.b[n:]
	return v, nil
}

func (m *msg) bytes(num protowire.Number, typ protowire.Type, name string) ([]byte, error) {
	if typ != protowire.BytesType {
		return nil, fmt.Errorf("%s.%s: %w %d", m.what, name, ErrWireType, typ)
	}
	v, n := protowire.ConsumeBytes(m.b)
	if n < 0 {
		return nil, fmt.Errorf("%s.%s: %w: %v", m.what, name, ErrMalformed, protowire.ParseError(n))
	}
	m.b = m.b[n:]
	return v, nil
}

// str reads a string field; a varint (a number written where a string is
// declared, as some versions write android_sdk_version) is read as its
// decimal form.
func (m *msg) str(num protowire.Number, typ protowire.Type, name string) (string, error) {
	if typ == protowire.VarintType {
		v, err := m.varint(num, typ, name)
		return fmt.Sprint(v), err
	}
	b, err := m.bytes(num, typ, name)
	return string(b), err
}

// decodeRecord decodes a Record into the reader's field of its kind; kind
// 0 for a record of none of the known kinds.
func (r *Reader) decodeRecord(b []byte) (Kind, error) {
	m := msg{b: b, what: "record"}
	var kind Kind
	for len(m.b) > 0 {
		num, typ, err := m.field()
		if err != nil {
			return 0, r.fail("record", err)
		}
		if num < 1 || num > 6 {
			if err := m.skip(num, typ); err != nil {
				return 0, r.fail("record", err)
			}
			continue
		}
		body, err := m.bytes(num, typ, Kind(num).String())
		if err != nil {
			return 0, r.fail("record", err)
		}
		kind = Kind(num)
		switch kind {
		case KindSample:
			err = r.decodeSample(body)
		case KindLost:
			r.Lost, err = decodeLost(body)
		case KindFile:
			r.File, err = decodeFile(body, r.lim.MaxSymbols)
		case KindThread:
			r.Thread, err = decodeThread(body)
		case KindMeta:
			r.Meta, err = decodeMeta(body)
		case KindContextSwitch:
			r.Switch, err = decodeContextSwitch(body)
		}
		if err != nil {
			return 0, r.fail(kind.String(), err)
		}
	}
	return kind, nil
}

// callchainTag is Sample.callchain's key: field 3, length-delimited.
const callchainTag = 3<<3 | byte(protowire.BytesType)

func (r *Reader) decodeSample(b []byte) error {
	s := &r.Sample
	chain := s.Callchain[:0]
	*s = Sample{}
	r.chainBytes, r.chainEnds = nil, r.chainEnds[:0]
	r.chainStart, r.chainEnd, r.chainCopied = 0, 0, false
	m := msg{b: b, what: "sample"}
	for len(m.b) > 0 {
		if len(m.b) > 1 && m.b[0] == callchainTag && m.b[1] < 0x80 && int(m.b[1])+2 <= len(m.b) {
			// A call chain entry of fewer than 128 bytes (every one), its
			// tag and length read here: most of a stream's fields.
			if r.rawChains {
				if err := r.rawEntries(b, &m); err != nil {
					return err
				}
				continue
			}
			e := m.b[2 : 2+m.b[1]]
			m.b = m.b[2+len(e):]
			if len(chain) >= r.lim.MaxCallChain {
				return fmt.Errorf("sample.callchain: %w: more than %d frames", ErrLimit, r.lim.MaxCallChain)
			}
			chain = append(chain, Frame{})
			if err := decodeFrame(&chain[len(chain)-1], e); err != nil {
				return fmt.Errorf("sample.callchain[%d]: %w", len(chain)-1, err)
			}
			continue
		}
		at := len(b) - len(m.b)
		num, typ, err := m.field()
		if err != nil {
			return err
		}
		var v uint64
		switch num {
		case 1:
			v, err = m.varint(num, typ, "time")
			s.Time = v
		case 2:
			v, err = m.varint(num, typ, "thread_id")
			s.ThreadID = int32(v)
		case 3:
			var e []byte
			if e, err = m.bytes(num, typ, "callchain"); err != nil {
				return err
			}
			if len(chain)+len(r.chainEnds) >= r.lim.MaxCallChain {
				return fmt.Errorf("sample.callchain: %w: more than %d frames", ErrLimit, r.lim.MaxCallChain)
			}
			if r.rawChains {
				r.rawEntry(b, at, len(b)-len(m.b))
				break
			}
			chain = append(chain, Frame{})
			if err = decodeFrame(&chain[len(chain)-1], e); err != nil {
				return fmt.Errorf("sample.callchain[%d]: %w", len(chain)-1, err)
			}
		case 4:
			v, err = m.varint(num, typ, "event_count")
			s.EventCount = v
		case 5:
			v, err = m.varint(num, typ, "event_type_id")
			s.EventTypeID = uint32(v)
		case 6:
			var e []byte
			if e, err = m.bytes(num, typ, "unwinding_result"); err == nil {
				s.Unwinding, err = decodeUnwinding(e)
				s.HasUnwinding = true
			}
		default:
			err = m.skip(num, typ)
		}
		if err != nil {
			return err
		}
	}
	s.Callchain = chain
	if r.rawChains && !r.chainCopied {
		r.chainBytes = b[r.chainStart:r.chainEnd]
	}
	return nil
}

// rawEntries takes the run of short call chain entries that m.b starts
// with (rawEntry's, in a tight loop).
func (r *Reader) rawEntries(b []byte, m *msg) error {
	from := len(b) - len(m.b)
	if len(r.chainEnds) == 0 {
		r.chainStart, r.chainEnd, r.chainCopied = from, from, false
	}
	e := m.b
	if r.chainCopied || from != r.chainEnd {
		if len(r.chainEnds) >= r.lim.MaxCallChain {
			return fmt.Errorf("sample.callchain: %w: more than %d frames", ErrLimit, r.lim.MaxCallChain)
		}
		to := 2 + int(e[1])
		r.rawEntry(b, from, from+to)
		m.b = e[to:]
		return nil
	}
	ends, base, i := r.chainEnds, int32(from-r.chainStart), 0
	for i+1 < len(e) && e[i] == callchainTag && e[i+1] < 0x80 {
		j := i + 2 + int(e[i+1])
		if j > len(e) {
			break
		}
		if len(ends) >= r.lim.MaxCallChain {
			return fmt.Errorf("sample.callchain: %w: more than %d frames", ErrLimit, r.lim.MaxCallChain)
		}
		ends = append(ends, base+int32(j))
		i = j
	}
	r.chainEnds, r.chainEnd, m.b = ends, from+i, e[i:]
	return nil
}

// rawEntry takes the call chain entry b[from:to] (the whole field: its
// tag, its length and the CallChainEntry) in raw mode. While the entries
// lie one after another in the record, chainBytes will be their run in
// the record's bytes; an entry apart from the others (another field in
// between) makes them copied.
func (r *Reader) rawEntry(b []byte, from, to int) {
	if len(r.chainEnds) == 0 {
		r.chainStart, r.chainEnd, r.chainCopied = from, from, false
	}
	if !r.chainCopied && from == r.chainEnd {
		r.chainEnd = to
		r.chainEnds = append(r.chainEnds, int32(to-r.chainStart))
		return
	}
	if !r.chainCopied {
		r.chainCopied = true
		r.chainCopy = append(r.chainCopy[:0], b[r.chainStart:r.chainEnd]...)
	}
	r.chainCopy = append(r.chainCopy, b[from:to]...)
	r.chainEnds = append(r.chainEnds, int32(len(r.chainCopy)))
	r.chainBytes = r.chainCopy
}

// entryBody is the CallChainEntry of a call chain field's bytes (as
// rawEntry keeps them, so well formed).
func entryBody(e []byte) []byte {
	if len(e) > 1 && e[0] == callchainTag && e[1] < 0x80 {
		return e[2:]
	}
	_, _, n := protowire.ConsumeTag(e)
	_, m := protowire.ConsumeVarint(e[n:])
	return e[n+m:]
}

// decodeFrame decodes a CallChainEntry into f. The form report-sample
// writes (vaddr_in_file, file_id, symbol_id and, with
// --show-execution-type, execution_type, in that order, one-byte tags) is
// read in a straight line, a frame being most of a stream's bytes;
// anything else goes through the general decoder, which also says what is
// wrong.
func decodeFrame(f *Frame, b []byte) error {
	if len(b) >= 6 && b[0] == 1<<3 {
		va, i := uvarint(b, 1)
		if i > 0 && i+1 < len(b) && b[i] == 2<<3 {
			var file, sym, exec uint64
			file, i = uvarint(b, i+1)
			if i > 0 && i+1 < len(b) && b[i] == 3<<3 {
				sym, i = uvarint(b, i+1)
				if i > 0 && i+1 < len(b) && b[i] == 4<<3 {
					exec, i = uvarint(b, i+1)
				}
				if i == len(b) {
					*f = Frame{VAddr: va, FileID: uint32(file), SymbolID: int32(sym), Exec: ExecutionType(min(exec, 255))}
					return nil
				}
			}
		}
	}
	var err error
	*f, err = decodeFrameFields(b)
	return err
}

// uvarint reads the varint at b[i:] and returns it with the index past
// it; -1 when it is malformed (as protowire.ConsumeVarint would refuse it,
// which says why).
func uvarint(b []byte, i int) (uint64, int) {
	var v uint64
	for s := uint(0); i < len(b); s += 7 {
		c := b[i]
		i++
		if c < 0x80 {
			if s == 63 && c > 1 {
				return 0, -1
			}
			return v | uint64(c)<<s, i
		}
		if s == 63 {
			return 0, -1
		}
		v |= uint64(c&0x7f) << s
	}
	return 0, -1
}

func decodeFrameFields(b []byte) (Frame, error) {
	f := Frame{SymbolID: -1}
	m := msg{b: b, what: "entry"}
	for len(m.b) > 0 {
		num, typ, err := m.field()
		if err != nil {
			return f, err
		}
		var v uint64
		switch num {
		case 1:
			v, err = m.varint(num, typ, "vaddr_in_file")
			f.VAddr = v
		case 2:
			v, err = m.varint(num, typ, "file_id")
			f.FileID = uint32(v)
		case 3:
			v, err = m.varint(num, typ, "symbol_id")
			f.SymbolID = int32(v)
		case 4:
			v, err = m.varint(num, typ, "execution_type")
			f.Exec = ExecutionType(min(v, 255))
		default:
			err = m.skip(num, typ)
		}
		if err != nil {
			return f, err
		}
	}
	return f, nil
}

func decodeUnwinding(b []byte) (UnwindingResult, error) {
	var u UnwindingResult
	m := msg{b: b, what: "unwinding_result"}
	for len(m.b) > 0 {
		num, typ, err := m.field()
		if err != nil {
			return u, err
		}
		var v uint64
		switch num {
		case 1:
			v, err = m.varint(num, typ, "raw_error_code")
			u.RawErrorCode = uint32(v)
		case 2:
			v, err = m.varint(num, typ, "error_addr")
			u.ErrorAddr = v
		case 3:
			v, err = m.varint(num, typ, "error_code")
			u.ErrorCode = uint32(v)
		default:
			err = m.skip(num, typ)
		}
		if err != nil {
			return u, err
		}
	}
	return u, nil
}

func decodeLost(b []byte) (Lost, error) {
	var l Lost
	m := msg{b: b, what: "lost"}
	for len(m.b) > 0 {
		num, typ, err := m.field()
		if err != nil {
			return l, err
		}
		switch num {
		case 1:
			l.SampleCount, err = m.varint(num, typ, "sample_count")
		case 2:
			l.LostCount, err = m.varint(num, typ, "lost_count")
		default:
			err = m.skip(num, typ)
		}
		if err != nil {
			return l, err
		}
	}
	return l, nil
}

func decodeFile(b []byte, maxSymbols int) (File, error) {
	var f File
	m := msg{b: b, what: "file"}
	for len(m.b) > 0 {
		num, typ, err := m.field()
		if err != nil {
			return f, err
		}
		var v uint64
		var s string
		switch num {
		case 1:
			v, err = m.varint(num, typ, "id")
			f.ID = uint32(v)
		case 2:
			f.Path, err = m.str(num, typ, "path")
		case 3, 4:
			name := "symbol"
			if num == 4 {
				name = "mangled_symbol"
			}
			if s, err = m.str(num, typ, name); err != nil {
				return f, err
			}
			list := &f.Symbols
			if num == 4 {
				list = &f.Mangled
			}
			if len(*list) >= maxSymbols {
				return f, fmt.Errorf("file.%s: %w: more than %d", name, ErrLimit, maxSymbols)
			}
			*list = append(*list, s)
		default:
			err = m.skip(num, typ)
		}
		if err != nil {
			return f, err
		}
	}
	return f, nil
}

func decodeThread(b []byte) (Thread, error) {
	var t Thread
	m := msg{b: b, what: "thread"}
	for len(m.b) > 0 {
		num, typ, err := m.field()
		if err != nil {
			return t, err
		}
		var v uint64
		switch num {
		case 1:
			v, err = m.varint(num, typ, "thread_id")
			t.ThreadID = int32(v)
		case 2:
			v, err = m.varint(num, typ, "process_id")
			t.ProcessID = int32(v)
		case 3:
			t.Name, err = m.str(num, typ, "thread_name")
		default:
			err = m.skip(num, typ)
		}
		if err != nil {
			return t, err
		}
	}
	return t, nil
}

// maxEventTypes bounds MetaInfo.event_type (simpleperf records a few).
const maxEventTypes = 1024

func decodeMeta(b []byte) (MetaInfo, error) {
	var mi MetaInfo
	m := msg{b: b, what: "meta_info"}
	for len(m.b) > 0 {
		num, typ, err := m.field()
		if err != nil {
			return mi, err
		}
		var v uint64
		var s string
		switch num {
		case 1:
			if s, err = m.str(num, typ, "event_type"); err == nil {
				if len(mi.EventTypes) >= maxEventTypes {
					return mi, fmt.Errorf("meta_info.event_type: %w: more than %d", ErrLimit, maxEventTypes)
				}
				mi.EventTypes = append(mi.EventTypes, s)
			}
		case 2:
			mi.AppPackage, err = m.str(num, typ, "app_package_name")
		case 3:
			mi.AppType, err = m.str(num, typ, "app_type")
		case 4:
			mi.SDKVersion, err = m.str(num, typ, "android_sdk_version")
		case 5:
			mi.BuildType, err = m.str(num, typ, "android_build_type")
		case 6:
			v, err = m.varint(num, typ, "trace_offcpu")
			mi.TraceOffCPU = v != 0
		default:
			err = m.skip(num, typ)
		}
		if err != nil {
			return mi, err
		}
	}
	return mi, nil
}

func decodeContextSwitch(b []byte) (ContextSwitch, error) {
	var c ContextSwitch
	m := msg{b: b, what: "context_switch"}
	for len(m.b) > 0 {
		num, typ, err := m.field()
		if err != nil {
			return c, err
		}
		var v uint64
		switch num {
		case 1:
			v, err = m.varint(num, typ, "switch_on")
			c.SwitchOn = v != 0
		case 2:
			c.Time, err = m.varint(num, typ, "time")
		case 3:
			v, err = m.varint(num, typ, "thread_id")
			c.ThreadID = int32(v)
		default:
			err = m.skip(num, typ)
		}
		if err != nil {
			return c, err
		}
	}
	return c, nil
}
