package ddm

import (
	"reflect"
	"strconv"
	"testing"
)

// roundTrip encodes m, decodes it in direction d and compares.
func roundTrip(t *testing.T, d direction, m Message) {
	t.Helper()
	got, err := decodeIn(d, EncodeChunk(m))
	if err != nil {
		t.Fatalf("%T: decode of own encoding: %v", m, err)
	}
	if !reflect.DeepEqual(plain(got), plain(m)) {
		t.Fatalf("round trip of %T\n  got  %#v\n  want %#v", m, got, m)
	}
}

func TestRoundTripVectors(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.dir.String()+" "+v.name, func(t *testing.T) { roundTrip(t, v.dir, v.want) })
	}
}

// TestRoundTripHelloExtents encodes a HELO reply cut after each optional
// field and checks that exactly those fields come back.
func TestRoundTripHelloExtents(t *testing.T) {
	full := Hello{ClientVersion: 1, PID: 77, VMIdent: "Dalvik v2.1.0", AppName: "com.example",
		UserID: 10, ABI: "32-bit (arm)", JVMFlags: "CheckJNI=true", NativeDebuggable: true,
		PackageName: "com.example", Extra: []byte{0xAB, 0xCD}}
	prevLen := -1
	for ext := HelloBasic; ext <= HelloPackageName; ext++ {
		m := full
		m.Extent = ext
		// Fields beyond the extent are absent on the wire, hence zero.
		if ext < HelloUserID {
			m.UserID = 0
		}
		if ext < HelloABI {
			m.ABI = ""
		}
		if ext < HelloJVMFlags {
			m.JVMFlags = ""
		}
		if ext < HelloNativeDebuggable {
			m.NativeDebuggable = false
		}
		if ext < HelloPackageName {
			m.PackageName, m.Extra = "", nil
		}
		body := m.AppendBody(nil)
		if len(body) <= prevLen {
			t.Fatalf("extent %d encodes %d bytes, not more than extent %d's %d", ext, len(body), ext-1, prevLen)
		}
		prevLen = len(body)
		roundTrip(t, vmToMonitor, &m)
	}
}

func TestRoundTripAppNameExtents(t *testing.T) {
	for _, m := range []*AppName{
		{Name: "<pre-initialized>"},
		{Name: "com.example", Extent: AppNameUserID, UserID: 999},
		{Name: "com.example", Extent: AppNamePackageName, UserID: 999, PackageName: "com.example"},
		{Name: "com.example", Extent: AppNamePackageName, PackageName: "p", Extra: []byte{1}},
	} {
		roundTrip(t, vmToMonitor, m)
	}
}

// TestRoundTripMore covers values the byte vectors do not: large counts,
// padding sizes, non-ASCII text, and every enumerated value.
func TestRoundTripMore(t *testing.T) {
	threads := make([]ThreadStatus, 300)
	for i := range threads {
		threads[i] = ThreadStatus{ID: uint32(i + 1), Status: int8(i%11 - 1), SysTID: uint32(1000 + i), UTime: uint32(i * 7), STime: uint32(i), Daemon: i%3 == 0}
	}
	var entries []Allocation
	for i := range 50 {
		e := Allocation{Size: uint32(16 * (i + 1)), ThreadID: uint16(i % 5), Class: []string{"Ljava/lang/String;", "[B", "Lcom/ex/Ä;"}[i%3]}
		for j := range i % 4 {
			e.Frames = append(e.Frames, AllocFrame{Class: "Lcom/ex/C" + string(rune('A'+j)) + ";", Method: "m", File: "C.java", Line: int16(j*10 - 2)})
		}
		entries = append(entries, e)
	}
	for _, tc := range []struct {
		d direction
		m Message
	}{
		{vmToMonitor, &ThreadStatusTable{HeaderLen: 4, EntryLen: 18, Threads: threads}},
		{vmToMonitor, &ThreadStatusTable{HeaderLen: 255, EntryLen: 255, Threads: threads[:3]}},
		{vmToMonitor, &Allocations{HeaderLen: 15, EntryHeaderLen: 9, FrameLen: 8, Entries: entries}},
		{vmToMonitor, &Allocations{HeaderLen: 20, EntryHeaderLen: 12, FrameLen: 10, Entries: entries}},
		{vmToMonitor, &ThreadCreated{ID: 3, Name: "Ünïcödé ✓ \U0001F600"}},
		{vmToMonitor, &FailError{Code: -3, Message: "exception: \x00 inside"}},
		{vmToMonitor, &HeapInfo{Heaps: []HeapStats{{HeapID: 1}, {HeapID: 2, Timestamp: 1<<64 - 1, MaxBytes: 1<<32 - 1}}}},
		{vmToMonitor, &NativeHeap{Wide: true, Version: 2, PointerSize: 4, BacktraceSize: 3, RecordSize: 24,
			Allocations: []NativeAllocation{{Size: 1, Count: 2, Backtrace: []uint64{1, 2, 3}}}}},
		{vmToMonitor, &NativeHeap{PointerSize: 4, BacktraceSize: 1, RecordSize: 16, Maps: []byte("maps\n"),
			Allocations: []NativeAllocation{{Size: 8, Count: 1, Backtrace: []uint64{0xdead}}, {Size: 9, Count: 4, Backtrace: []uint64{0}}}}},
		{vmToMonitor, &ViewWindows{Names: []string{"a", "", "com.example/.Main"}}},
		{monitorToVM, &ViewRootRequest{Op: ViewDumpTheme, ViewRoot: "w"}},
		{monitorToVM, &ViewRootRequest{Op: 99, ViewRoot: "w"}},
		{monitorToVM, &ViewOpRequest{Op: ViewInvokeMethod, ViewRoot: "w", View: "v", Method: "m", Args: []ViewArg{
			{'Z', 1}, {'B', 0xFF}, {'C', 0x263A}, {'S', 0x8000}, {'I', 7}, {'F', 0x3F800000}, {'J', 1 << 40}, {'D', 0x4000000000000000}}}},
		{monitorToVM, &ViewOpRequest{Op: ViewProfile, ViewRoot: "w", View: "v"}},
		{monitorToVM, &ViewOpRequest{Op: ViewDumpDisplayList, ViewRoot: "w", View: "v"}},
		{monitorToVM, &SegmentRequest{Type: TypeHPSG, When: SegmentWhenNever, What: SegmentWhatObjects}},
		{monitorToVM, &HeapInfoRequest{When: HeapInfoNow}},
		{monitorToVM, &AllocTrackerEnableRequest{}},
		{monitorToVM, &GLTracingRequest{}},
		{vmToMonitor, &ProfilingStatus{Mode: ProfilingMethodTrace}},
		{vmToMonitor, &MethodTraceResult{Result: 1}},
		{vmToMonitor, &AllocTrackerStatus{}},
		{vmToMonitor, &Wait{Reason: 7}},
	} {
		roundTrip(t, tc.d, tc.m)
	}
}

// TestEncodeLimits checks what encoders do with values the format cannot
// hold, as documented on AppendBody.
func TestEncodeLimits(t *testing.T) {
	// Standard sizes stand in for zero header and entry lengths.
	th := &ThreadStatusTable{Threads: []ThreadStatus{{ID: 1, Daemon: true}}}
	got, err := DecodeThreadStatusTable(th.AppendBody(nil))
	if err != nil {
		t.Fatal(err)
	}
	if got.HeaderLen != THSTHeaderLen || got.EntryLen != THSTEntryLen || !got.Threads[0].Daemon {
		t.Fatalf("zero sizes encoded as %d/%d, %+v", got.HeaderLen, got.EntryLen, got.Threads)
	}
	al := &Allocations{Entries: []Allocation{{Size: 1, Class: "LA;"}}}
	gotAl, err := DecodeAllocations(al.AppendBody(nil))
	if err != nil {
		t.Fatal(err)
	}
	if gotAl.HeaderLen != REALHeaderLen || gotAl.EntryHeaderLen != REALEntryHeaderLen || gotAl.FrameLen != REALFrameLen {
		t.Fatalf("zero REAL sizes encoded as %d/%d/%d", gotAl.HeaderLen, gotAl.EntryHeaderLen, gotAl.FrameLen)
	}
	// 70000 threads: the u2 count keeps 65535.
	many := &ThreadStatusTable{Threads: make([]ThreadStatus, 70000)}
	gotMany, err := DecodeThreadStatusTable(many.AppendBody(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(gotMany.Threads) != 0xFFFF {
		t.Fatalf("%d threads after encoding 70000", len(gotMany.Threads))
	}
	// 300 frames: the u1 depth keeps 255.
	deep := Allocation{Class: "LA;", Frames: make([]AllocFrame, 300)}
	gotDeep, err := DecodeAllocations((&Allocations{Entries: []Allocation{deep}}).AppendBody(nil))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(gotDeep.Entries[0].Frames); n != 255 {
		t.Fatalf("%d frames after encoding 300", n)
	}
	// A record size too small for the backtrace grows to fit it.
	nh := &NativeHeap{BacktraceSize: 2, RecordSize: 4, Allocations: []NativeAllocation{{Size: 1, Count: 1, Backtrace: []uint64{5}}}}
	gotNH, err := DecodeNativeHeap(nh.AppendBody(nil))
	if err != nil {
		t.Fatal(err)
	}
	if gotNH.RecordSize != 16 || !reflect.DeepEqual(gotNH.Allocations[0].Backtrace, []uint64{5, 0}) {
		t.Fatalf("record size %d, backtrace %v", gotNH.RecordSize, gotNH.Allocations[0].Backtrace)
	}
}

// TestREALTableLimit fills the class table to its u2 limit: the entry that
// would overflow it is not written, everything before it is.
func TestREALTableLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 65536 class names")
	}
	entries := make([]Allocation, 0xFFFF)
	for i := range entries {
		entries[i] = Allocation{Size: 8, Class: "LC" + strconv.Itoa(i) + ";"}
	}
	// Entry 65534 brings a frame with a new class: 65535 + 1 names.
	entries[0xFFFE].Frames = []AllocFrame{{Class: "LExtra;", Method: "m"}}
	got, err := DecodeAllocations((&Allocations{Entries: entries}).AppendBody(nil))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Entries) != 0xFFFE {
		t.Fatalf("%d entries written, want %d", len(got.Entries), 0xFFFE)
	}
	if got.Entries[0xFFFD].Class != "LC65533;" {
		t.Fatalf("last entry %q", got.Entries[0xFFFD].Class)
	}
}
