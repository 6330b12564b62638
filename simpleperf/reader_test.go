package simpleperf

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// A stream written by hand from the proto's field numbers: one sample of
// thread 7 at 5 ns, event count 1000, two frames (file 1 symbol 2; file 3
// without symbol at 0x1a2b0, JIT), then a thread and the end.
const vectorHex = "" +
	"53494d504c45504552460100" + // "SIMPLEPERF", version 1
	"26000000" + // size 38
	"0a24" + // Record.sample, 36 bytes
	"0805" + "1007" + // time 5, thread_id 7
	"1a06" + "0810" + "1001" + "1802" + // entry: vaddr 16, file 1, symbol 2 (native: the default)
	"1a13" + "08b0c506" + "1003" + "18ffffffffffffffffff01" + // entry: vaddr 0x1a2b0, file 3, symbol -1
	"2002" + // ...execution_type JIT
	"20e807" + // event_count 1000
	"0c000000" + // size 12
	"220a" + "0807" + "1001" + "1a046d61696e" + // Record.thread: 7, pid 1, "main"
	"00000000"

func TestVector(t *testing.T) {
	b, err := hex.DecodeString(vectorHex)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(bytes.NewReader(b), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := r.Next()
	if err != nil || k != KindSample {
		t.Fatalf("Next = %v, %v", k, err)
	}
	want := Sample{Time: 5, ThreadID: 7, EventCount: 1000, Callchain: []Frame{
		{VAddr: 16, FileID: 1, SymbolID: 2, Exec: NativeMethod},
		{VAddr: 0x1a2b0, FileID: 3, SymbolID: -1, Exec: JITJVMMethod},
	}}
	if !reflect.DeepEqual(r.Sample, want) {
		t.Fatalf("sample = %+v, want %+v", r.Sample, want)
	}
	if k, err = r.Next(); err != nil || k != KindThread || r.Thread != (Thread{ThreadID: 7, ProcessID: 1, Name: "main"}) {
		t.Fatalf("Next = %v %+v, %v", k, r.Thread, err)
	}
	if _, err = r.Next(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
	if _, err = r.Next(); err != io.EOF {
		t.Fatalf("after the end: %v", err)
	}
}

// The writer writes the vector byte for byte.
func TestWriterVector(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Sample(&Sample{Time: 5, ThreadID: 7, EventCount: 1000, Callchain: []Frame{
		{VAddr: 16, FileID: 1, SymbolID: 2},
		{VAddr: 0x1a2b0, FileID: 3, SymbolID: -1, Exec: JITJVMMethod},
	}})
	w.Thread(Thread{ThreadID: 7, ProcessID: 1, Name: "main"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString(buf.Bytes()); got != vectorHex {
		t.Fatalf("wrote\n%s\nwant\n%s", got, vectorHex)
	}
}

func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	meta := MetaInfo{EventTypes: []string{"cpu-clock", "sched:sched_switch"}, AppPackage: "com.example", AppType: "debuggable", SDKVersion: "34", BuildType: "user", TraceOffCPU: true}
	sample := Sample{Time: 1 << 40, ThreadID: -3, EventCount: 1 << 33, EventTypeID: 1, Callchain: []Frame{{VAddr: 1, FileID: 0, SymbolID: 0, Exec: ARTMethod}, {VAddr: 2, FileID: 9, SymbolID: -1}},
		Unwinding: UnwindingResult{RawErrorCode: 4, ErrorAddr: 0xdead, ErrorCode: 2}, HasUnwinding: true}
	file := File{ID: 9, Path: "/system/lib64/libc.so", Symbols: []string{"malloc", "free"}, Mangled: []string{"", "_Z4freePv"}}
	steps := []func() error{
		func() error { return w.Meta(&meta) },
		func() error { return w.Sample(&sample) },
		func() error { return w.Lost(Lost{SampleCount: 10, LostCount: 2}) },
		func() error { return w.File(&file) },
		func() error { return w.Thread(Thread{ThreadID: 5, ProcessID: 4, Name: "RenderThread"}) },
		func() error { return w.ContextSwitch(ContextSwitch{SwitchOn: true, Time: 77, ThreadID: 5}) },
		w.Close,
	}
	for _, s := range steps {
		if err := s(); err != nil {
			t.Fatal(err)
		}
	}
	r, err := NewReader(&buf, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []Kind{KindMeta, KindSample, KindLost, KindFile, KindThread, KindContextSwitch} {
		k, err := r.Next()
		if err != nil || k != want {
			t.Fatalf("Next = %v, %v; want %v", k, err, want)
		}
		var got, exp any
		switch k {
		case KindMeta:
			got, exp = r.Meta, meta
		case KindSample:
			got, exp = r.Sample, sample
		case KindLost:
			got, exp = r.Lost, Lost{SampleCount: 10, LostCount: 2}
		case KindFile:
			got, exp = r.File, file
		case KindThread:
			got, exp = r.Thread, Thread{ThreadID: 5, ProcessID: 4, Name: "RenderThread"}
		case KindContextSwitch:
			got, exp = r.Switch, ContextSwitch{SwitchOn: true, Time: 77, ThreadID: 5}
		}
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%v: got %+v, want %+v", k, got, exp)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
}

// record frames a Record body with its size.
func record(body string) string {
	b, _ := hex.DecodeString(body)
	n := len(b)
	return hex.EncodeToString([]byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)}) + body
}

func TestBadInput(t *testing.T) {
	const head = "53494d504c45504552460100"
	tests := []struct {
		name   string
		hex    string
		err    error
		record int64
		what   string
	}{
		{"empty", "", ErrMagic, 0, "magic"},
		{"wrong magic", "53494d504c45504552450100", ErrMagic, 0, "magic"},
		{"short version", "53494d504c455045524601", ErrTruncated, 0, "version"},
		{"wrong version", "53494d504c45504552460200", ErrVersion, 0, "version"},
		{"no end", head, ErrNoEnd, 1, "size"},
		{"truncated size", head + "0200", ErrTruncated, 1, "size"},
		{"size past the end", head + "ff000000" + "0a00", ErrTruncated, 1, "body"},
		{"size past the limit", head + "ffffffff", ErrTooLarge, 1, "size"},
		{"bad tag", head + record("ff"), ErrMalformed, 1, "record"},
		{"sample truncated inside", head + record("0a05"+"0801"), ErrMalformed, 1, "record"},
		{"wrong wire type", head + record("0a02"+"0a00"), ErrWireType, 1, "sample"},
		{"overlong varint", head + record("0a0b"+"08ffffffffffffffffffff"), ErrMalformed, 1, "sample"},
		{"second record broken", head + record("0a02"+"0801") + record("2202"+"1a05"), ErrMalformed, 2, "thread"},
		{"record is a varint", head + record("0801"), ErrWireType, 1, "record"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := hex.DecodeString(tc.hex)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Load(bytes.NewReader(b), LoadOptions{Limits: Limits{MaxRecord: 1 << 20}})
			var fe *FormatError
			if !errors.As(err, &fe) || !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if fe.Record != tc.record || fe.What != tc.what {
				t.Errorf("err = %v: record %d %q, want %d %q", err, fe.Record, fe.What, tc.record, tc.what)
			}
			if !strings.HasPrefix(err.Error(), "simpleperf: ") {
				t.Errorf("message %q", err)
			}
		})
	}
}

// A size past the end of a short stream is refused without allocating
// what it claims.
func TestClaimedSizeNotAllocated(t *testing.T) {
	b, _ := hex.DecodeString("53494d504c45504552460100" + "00000004" + "0a00")
	allocs := testing.AllocsPerRun(1, func() {})
	_ = allocs
	r, err := NewReader(bytes.NewReader(b), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); !errors.Is(err, ErrTruncated) {
		t.Fatalf("err = %v", err)
	}
	if cap(r.buf) > 2<<20 {
		t.Fatalf("buffer of %d bytes for a 2-byte stream", cap(r.buf))
	}
}

func TestLimits(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.Sample(&Sample{Callchain: make([]Frame, 20)})
	w.File(&File{Symbols: make([]string, 20)})
	w.Close()
	r, _ := NewReader(bytes.NewReader(buf.Bytes()), Limits{MaxCallChain: 10, MaxSymbols: 10})
	if _, err := r.Next(); !errors.Is(err, ErrLimit) || r.Record() != 1 {
		t.Fatalf("call chain: %v", err)
	}
	r, _ = NewReader(bytes.NewReader(buf.Bytes()), Limits{MaxCallChain: 30, MaxSymbols: 10})
	r.Next()
	if _, err := r.Next(); !errors.Is(err, ErrLimit) || r.Record() != 2 {
		t.Fatalf("symbols: %v", err)
	}
}

func TestSkipsUnknown(t *testing.T) {
	// A Record field 9 (a kind this reader does not know) and unknown
	// fields inside a sample (a fixed64, a fixed32, bytes) are skipped.
	b, _ := hex.DecodeString("53494d504c45504552460100" + record("4a00") +
		record("0a13"+"0801"+"39"+"0102030405060708"+"4d"+"01020304"+"4201ff") + "00000000")
	r, err := NewReader(bytes.NewReader(b), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	k, err := r.Next()
	if err != nil || k != KindSample || r.Sample.Time != 1 || r.Record() != 2 {
		t.Fatalf("Next = %v %+v, %v (record %d)", k, r.Sample, err, r.Record())
	}
}

func TestSniff(t *testing.T) {
	if !Sniff([]byte(Magic+"\x01\x00")) || Sniff([]byte("*version\n3")) || Sniff([]byte("SIMPLE")) {
		t.Fatal("Sniff")
	}
}
