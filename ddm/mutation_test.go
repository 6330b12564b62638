package ddm

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// Exact behaviour mutation testing found unchecked in chunk framing, HPIF
// and NHGT.

func TestTypeStringPrintableEdges(t *testing.T) {
	for typ, want := range map[Type]string{
		'A'<<24 | ' '<<16 | 'B'<<8 | '~':    "A B~",
		0x1F<<24 | 0x7F<<16 | '\\'<<8 | 'z': `\x1f\x7f\x5cz`,
	} {
		if got := typ.String(); got != want {
			t.Errorf("%#x.String() = %q, want %q", uint32(typ), got, want)
		}
	}
}

func TestParseChunksLengthAtLimit(t *testing.T) {
	data := hx("48454C4F 00000004 01020304")
	chunks, err := ParseChunks(data, 4)
	if err != nil || len(chunks) != 1 || chunks[0].Type != TypeHELO || !bytes.Equal(chunks[0].Data, []byte{1, 2, 3, 4}) {
		t.Fatalf("chunk of exactly maxLen: %v, %v", chunks, err)
	}
	_, err = ParseChunks(data, 3)
	var fe *wire.FormatError
	if !errors.As(err, &fe) || !errors.Is(err, wire.ErrTooLong) || fe.Offset != 4 {
		t.Fatalf("chunk above maxLen: %v", err)
	}
}

func TestHeapInfoNoHeaps(t *testing.T) {
	m, err := DecodeHeapInfo([]byte{0, 0, 0, 0})
	if err != nil || !reflect.DeepEqual(m, &HeapInfo{}) {
		t.Fatalf("got %#v, %v; want an empty HeapInfo with nil Heaps", m, err)
	}
}

func TestNativeHeapSignatureOnly(t *testing.T) {
	_, err := DecodeNativeHeap([]byte{0xDD, 0x45, 0x23, 0x81})
	var fe *wire.FormatError
	if !errors.As(err, &fe) || !errors.Is(err, wire.ErrShort) || fe.What != "version" || fe.Offset != 4 {
		t.Fatalf("a bare 64-bit signature: %v", err)
	}
}

func TestNativeHeapBacktracesPerRecord(t *testing.T) {
	want := &NativeHeap{Wide: true, Version: 2, PointerSize: 8, TotalMemory: 99, BacktraceSize: 2, RecordSize: 32,
		Maps: []byte("maps\n"),
		Allocations: []NativeAllocation{
			{Size: 16, Count: 1, Backtrace: []uint64{0xA1, 0xA2}},
			{Size: 32, Count: 2, Backtrace: []uint64{0xB1, 0xB2}},
			{Size: 48, Count: 3, Backtrace: []uint64{0xC1, 0}},
		}}
	got, err := DecodeNativeHeap(want.AppendBody(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	for i, a := range got.Allocations {
		if len(a.Backtrace) != 2 || cap(a.Backtrace) != 2 {
			t.Errorf("record %d: backtrace len %d cap %d, want 2 and 2", i, len(a.Backtrace), cap(a.Backtrace))
		}
	}
}

// A 16-byte record cannot hold size, count and one 8-byte address.
func TestNativeHeapRecordTooSmall(t *testing.T) {
	w := wire.Writer{}
	w.U4LE(NHGTSignature)
	w.U2LE(2)
	w.U2LE(8)
	for _, v := range []uint64{0, 16, 16, 0, 1} { // maps, alloc size, record size, total, backtrace
		w.U8LE(v)
	}
	w.Bytes(make([]byte, 16))
	_, err := DecodeNativeHeap(w.B)
	var fe *wire.FormatError
	if !errors.As(err, &fe) || fe.What != "allocation info size" || fe.Offset != nhgtWideHeader {
		t.Fatalf("got %v", err)
	}
}

func TestThreadStatusTableShortHeaderLength(t *testing.T) {
	_, err := DecodeThreadStatusTable(hx("03 12 0000"))
	var fe *wire.FormatError
	if !errors.As(err, &fe) || fe.What != "header length" || fe.Offset != 4 {
		t.Fatalf("header length 3: %v", err)
	}
}

func TestStackTraceNoFrames(t *testing.T) {
	m, err := DecodeStackTrace(hx("00000000 00000007 00000000"))
	if err != nil || !reflect.DeepEqual(m, &StackTrace{ThreadID: 7}) {
		t.Fatalf("got %#v, %v; want thread 7 with nil Frames", m, err)
	}
}

func viewInvoke(args func(w *wire.Writer)) []byte {
	w := wire.Writer{}
	w.U4(ViewInvokeMethod)
	w.DDMString("root")
	w.DDMString("view")
	w.DDMString("m")
	args(&w)
	return w.B
}

func TestViewOpRequestArgs(t *testing.T) {
	m, err := DecodeViewOpRequest(viewInvoke(func(w *wire.Writer) { w.U4(0) }))
	if err != nil || m.Method != "m" || m.Args != nil {
		t.Fatalf("no arguments: %#v, %v; want nil Args", m, err)
	}
	// 'X' is no JNI primitive: the type is the error, not the value.
	body := viewInvoke(func(w *wire.Writer) { w.U4(1); w.U2('X'); w.U1(0) })
	_, err = DecodeViewOpRequest(body)
	var fe *wire.FormatError
	if !errors.As(err, &fe) || fe.What != "argument type" || fe.Offset != len(body)-1 {
		t.Fatalf("argument type X: %v", err)
	}
}
