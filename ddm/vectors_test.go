package ddm

import (
	"bytes"
	"reflect"
	"testing"
)

// vector is a chunk body written out byte by byte and the value it stands
// for. Every vector is checked in both directions: the body decodes to want
// and want encodes to the body.
type vector struct {
	name string
	dir  direction
	typ  Type
	body []byte
	want Message
}

// String used in several vectors: "Win" and "V@1".
const (
	hexWin = "00 00 00 03  00 57 00 69 00 6E"
	hexV1  = "00 00 00 03  00 56 00 40 00 31"
)

var vectors = []vector{
	// ---- requests, monitor → VM ----
	{"HELO request (jdwp.md §3)", monitorToVM, TypeHELO, hx("00 00 00 01"), &HelloRequest{ServerVersion: 1}},
	{"FEAT request", monitorToVM, TypeFEAT, nil, &FeaturesRequest{}},
	{"EXIT 0", monitorToVM, TypeEXIT, hx("00 00 00 00"), &ExitRequest{Status: 0}},
	{"EXIT -1", monitorToVM, TypeEXIT, hx("FF FF FF FF"), &ExitRequest{Status: -1}},
	{"THEN on", monitorToVM, TypeTHEN, hx("01"), &ThreadNotifyRequest{Enable: true}},
	{"THEN off", monitorToVM, TypeTHEN, hx("00"), &ThreadNotifyRequest{Enable: false}},
	{"THST request", monitorToVM, TypeTHST, nil, &ThreadStatusRequest{}},
	{"STKL request", monitorToVM, TypeSTKL, hx("00 00 00 0B"), &StackTraceRequest{ThreadID: 11}},
	{"HPIF every GC", monitorToVM, TypeHPIF, hx("03"), &HeapInfoRequest{When: HeapInfoEveryGC}},
	{"HPGC", monitorToVM, TypeHPGC, nil, &GCRequest{}},
	{"HPSG on", monitorToVM, TypeHPSG, hx("01 00"), &SegmentRequest{Type: TypeHPSG, When: SegmentWhenEveryGC, What: SegmentWhatMerged}},
	{"NHSG off (as ddmlib after NHGT)", monitorToVM, TypeNHSG, hx("00 01"), &SegmentRequest{Type: TypeNHSG, When: SegmentWhenNever, What: SegmentWhatObjects}},
	{"HPDU request", monitorToVM, TypeHPDU, hx(
		"00 00 00 11", // 17 units: "/sdcard/app.hprof"
		"00 2F 00 73 00 64 00 63 00 61 00 72 00 64 00 2F 00 61 00 70 00 70 00 2E 00 68 00 70 00 72 00 6F 00 66",
	), &HeapDumpRequest{FileName: "/sdcard/app.hprof"}},
	{"HPDS request", monitorToVM, TypeHPDS, nil, &HeapDumpStreamRequest{}},
	{"REAE on", monitorToVM, TypeREAE, hx("01"), &AllocTrackerEnableRequest{Enable: true}},
	{"REAQ request", monitorToVM, TypeREAQ, nil, &AllocTrackerStatusRequest{}},
	{"REAL request", monitorToVM, TypeREAL, nil, &AllocationsRequest{}},
	{"NHGT request", monitorToVM, TypeNHGT, nil, &NativeHeapRequest{}},
	{"MPRS", monitorToVM, TypeMPRS, hx(
		"00 80 00 00", // 8 MiB buffer
		"00 00 00 00", // flags
		"00 00 00 11", // "/sdcard/app.trace"
		"00 2F 00 73 00 64 00 63 00 61 00 72 00 64 00 2F 00 61 00 70 00 70 00 2E 00 74 00 72 00 61 00 63 00 65",
	), &MethodTraceStartRequest{BufferSize: 8 << 20, Flags: 0, FileName: "/sdcard/app.trace"}},
	{"MPRE request", monitorToVM, TypeMPRE, nil, &MethodTraceStopRequest{}},
	{"MPSS", monitorToVM, TypeMPSS, hx("00 80 00 00", "00 00 00 01"), &MethodTraceStreamStartRequest{BufferSize: 8 << 20, Flags: TraceCountAllocs}},
	{"MPSE request", monitorToVM, TypeMPSE, nil, &MethodTraceStreamStopRequest{}},
	{"SPSS", monitorToVM, TypeSPSS, hx("00 80 00 00", "00 00 00 00", "00 00 03 E8"), &SamplingStartRequest{BufferSize: 8 << 20, IntervalMicros: 1000}},
	{"SPSE request", monitorToVM, TypeSPSE, nil, &SamplingStopRequest{}},
	{"MPRQ request", monitorToVM, TypeMPRQ, nil, &ProfilingStatusRequest{}},
	{"VULW request", monitorToVM, TypeVULW, hx("00 00 00 01"), &ViewWindowsRequest{Arg: 1}},
	{"VURT dump hierarchy with v2", monitorToVM, TypeVURT, hx(
		"00 00 00 01", hexWin, "00 00 00 01", "00 00 00 00", "00 00 00 01",
	), &ViewRootRequest{Op: ViewDumpHierarchy, ViewRoot: "Win", SkipChildren: true, HasV2: true, V2: true}},
	{"VURT dump hierarchy, older frameworks", monitorToVM, TypeVURT, hx(
		"00 00 00 01", hexWin, "00 00 00 00", "00 00 00 01",
	), &ViewRootRequest{Op: ViewDumpHierarchy, ViewRoot: "Win", IncludeProperties: true}},
	{"VURT capture layers", monitorToVM, TypeVURT, hx("00 00 00 02", hexWin), &ViewRootRequest{Op: ViewCaptureLayers, ViewRoot: "Win"}},
	{"VUOP capture view", monitorToVM, TypeVUOP, hx("00 00 00 01", hexWin, hexV1), &ViewOpRequest{Op: ViewCapture, ViewRoot: "Win", View: "V@1"}},
	{"VUOP invoke method", monitorToVM, TypeVUOP, hx(
		"00 00 00 04", hexWin, hexV1,
		"00 00 00 04  00 73 00 65 00 74 00 58", // "setX"
		"00 00 00 02",                          // two arguments
		"00 5A  01",                            // 'Z' true
		"00 4A  01 02 03 04 05 06 07 08",       // 'J'
	), &ViewOpRequest{Op: ViewInvokeMethod, ViewRoot: "Win", View: "V@1", Method: "setX",
		Args: []ViewArg{{Type: 'Z', Value: 1}, {Type: 'J', Value: 0x0102030405060708}}}},
	{"VUOP set layout parameter", monitorToVM, TypeVUOP, hx(
		"00 00 00 05", hexWin, hexV1,
		"00 00 00 05  00 77 00 69 00 64 00 74 00 68", // "width"
		"FF FF FF FF",
	), &ViewOpRequest{Op: ViewSetLayoutParam, ViewRoot: "Win", View: "V@1", Param: "width", Value: -1}},
	{"VUGL on", monitorToVM, TypeVUGL, hx("00 00 00 01"), &GLTracingRequest{Enable: true}},

	// ---- replies and unsolicited chunks, VM → monitor ----
	{"HELO reply, Dalvik, fields 1-6", vmToMonitor, TypeHELO, hx(
		"00 00 00 01", // protocol 1
		"00 00 10 92", // pid 4242
		"00 00 00 0D", // 13 units of VM ident
		"00 00 00 0B", // 11 units of app name
		"00 44 00 61 00 6C 00 76 00 69 00 6B 00 20 00 76 00 31 00 2E 00 36 00 2E 00 30", // "Dalvik v1.6.0"
		"00 63 00 6F 00 6D 00 2E 00 65 00 78 00 61 00 6D 00 70 00 6C 00 65",             // "com.example"
	), &Hello{ClientVersion: 1, PID: 4242, VMIdent: "Dalvik v1.6.0", AppName: "com.example"}},
	{"HELO reply, ART, every field", vmToMonitor, TypeHELO, hx(
		"00 00 00 01", "00 00 10 92", "00 00 00 0D", "00 00 00 0B",
		"00 44 00 61 00 6C 00 76 00 69 00 6B 00 20 00 76 00 32 00 2E 00 31 00 2E 00 30", // "Dalvik v2.1.0"
		"00 63 00 6F 00 6D 00 2E 00 65 00 78 00 61 00 6D 00 70 00 6C 00 65",             // "com.example"
		"00 00 00 0A", // user 10
		"00 00 00 0E  00 36 00 34 00 2D 00 62 00 69 00 74 00 20 00 28 00 61 00 72 00 6D 00 36 00 34 00 29", // "64-bit (arm64)"
		"00 00 00 0E  00 43 00 68 00 65 00 63 00 6B 00 4A 00 4E 00 49 00 3D 00 66 00 61 00 6C 00 73 00 65", // "CheckJNI=false"
		"01", // native debuggable
		"00 00 00 0B  00 63 00 6F 00 6D 00 2E 00 65 00 78 00 61 00 6D 00 70 00 6C 00 65", // "com.example"
	), &Hello{ClientVersion: 1, PID: 4242, VMIdent: "Dalvik v2.1.0", AppName: "com.example",
		Extent: HelloPackageName, UserID: 10, ABI: "64-bit (arm64)", JVMFlags: "CheckJNI=false",
		NativeDebuggable: true, PackageName: "com.example"}},
	{"FEAT reply", vmToMonitor, TypeFEAT, hx(
		"00 00 00 02",
		"00 00 00 0F  00 68 00 70 00 72 00 6F 00 66 00 2D 00 68 00 65 00 61 00 70 00 2D 00 64 00 75 00 6D 00 70", // "hprof-heap-dump"
		"00 00 00 0E  00 76 00 69 00 65 00 77 00 2D 00 68 00 69 00 65 00 72 00 61 00 72 00 63 00 68 00 79",       // "view-hierarchy"
	), &Features{Names: []string{FeatureHeapDump, FeatureViewHierarchy}}},
	{"FEAT reply, empty list", vmToMonitor, TypeFEAT, hx("00 00 00 00"), &Features{}},
	{"APNM name only", vmToMonitor, TypeAPNM, hx(
		"00 00 00 0E  00 73 00 79 00 73 00 74 00 65 00 6D 00 5F 00 70 00 72 00 6F 00 63 00 65 00 73 00 73", // "system_process"
	), &AppName{Name: "system_process"}},
	{"APNM with user id", vmToMonitor, TypeAPNM, hx(
		"00 00 00 0E  00 73 00 79 00 73 00 74 00 65 00 6D 00 5F 00 70 00 72 00 6F 00 63 00 65 00 73 00 73",
		"00 00 00 00",
	), &AppName{Name: "system_process", Extent: AppNameUserID}},
	{"APNM with package", vmToMonitor, TypeAPNM, hx(
		"00 00 00 12  00 63 00 6F 00 6D 00 2E 00 65 00 78 00 61 00 6D 00 70 00 6C 00 65 00 3A 00 72 00 65 00 6D 00 6F 00 74 00 65", // "com.example:remote"
		"00 00 00 0A",
		"00 00 00 0B  00 63 00 6F 00 6D 00 2E 00 65 00 78 00 61 00 6D 00 70 00 6C 00 65", // "com.example"
	), &AppName{Name: "com.example:remote", Extent: AppNamePackageName, UserID: 10, PackageName: "com.example"}},
	{"APNM non-ASCII with a surrogate pair", vmToMonitor, TypeAPNM, hx(
		"00 00 00 07  00 63 00 61 00 66 00 E9 00 20 D8 3D DE 00",
	), &AppName{Name: "café 😀"}},
	{"WAIT", vmToMonitor, TypeWAIT, hx("00"), &Wait{Reason: WaitForDebugger}},
	{"FAIL (spec §5.6 example)", vmToMonitor, TypeFAIL, hx(
		"00 00 00 01", "00 00 00 17",
		"00 53 00 74 00 61 00 63 00 6B 00 20 00 74 00 72 00 61 00 63 00 65 00 20", // "Stack trace "
		"00 75 00 6E 00 61 00 76 00 61 00 69 00 6C 00 61 00 62 00 6C 00 65",       // "unavailable"
	), &FailError{Code: 1, Message: "Stack trace unavailable"}},
	{"FAIL view debugging", vmToMonitor, TypeFAIL, hx("FF FF FF FE", "00 00 00 00"), &FailError{Code: -2}},
	{"TEST", vmToMonitor, TypeTEST, hx("01 02"), &TestChunk{Data: []byte{1, 2}}},
	{"THCR", vmToMonitor, TypeTHCR, hx("00 00 00 01", "00 00 00 04  00 6D 00 61 00 69 00 6E"), &ThreadCreated{ID: 1, Name: "main"}},
	{"THDE", vmToMonitor, TypeTHDE, hx("00 00 00 09"), &ThreadDied{ID: 9}},
	{"THNM", vmToMonitor, TypeTHNM, hx(
		"00 00 00 09",
		"00 00 00 0B  00 42 00 69 00 6E 00 64 00 65 00 72 00 3A 00 34 00 32 00 5F 00 31", // "Binder:42_1"
	), &ThreadRenamed{ID: 9, Name: "Binder:42_1"}},
	{"THST (spec §6.3 example)", vmToMonitor, TypeTHST, hx(
		"04 12 00 02",
		"00 00 00 01  01  00 00 10 92  00 00 00 96  00 00 00 1E  00",
		"00 00 00 09  04  00 00 10 9B  00 00 00 02  00 00 00 01  01",
	), &ThreadStatusTable{HeaderLen: 4, EntryLen: 18, Threads: []ThreadStatus{
		{ID: 1, Status: 1, SysTID: 4242, UTime: 150, STime: 30},
		{ID: 9, Status: 4, SysTID: 4251, UTime: 2, STime: 1, Daemon: true},
	}}},
	{"THST with longer header and entries", vmToMonitor, TypeTHST, hx(
		"06 14 00 01  00 00", // header 6, entry 20, one thread, 2 bytes of header padding
		"00 00 00 05  FF  00 00 10 00  00 00 00 01  00 00 00 02  01  00 00", // status -1 (Dalvik UNDEFINED)
	), &ThreadStatusTable{HeaderLen: 6, EntryLen: 20, Threads: []ThreadStatus{
		{ID: 5, Status: -1, SysTID: 4096, UTime: 1, STime: 2, Daemon: true},
	}}},
	{"THST 17-byte entries without daemon byte", vmToMonitor, TypeTHST, hx(
		"04 11 00 01",
		"00 00 00 02  05  00 00 10 01  00 00 00 00  00 00 00 00",
	), &ThreadStatusTable{HeaderLen: 4, EntryLen: 17, Threads: []ThreadStatus{{ID: 2, Status: 5, SysTID: 4097}}}},
	{"THST no threads", vmToMonitor, TypeTHST, hx("04 12 00 00"), &ThreadStatusTable{HeaderLen: 4, EntryLen: 18}},
	{"STKL reply", vmToMonitor, TypeSTKL, hx(
		"00 00 00 00", "00 00 00 01", "00 00 00 02",
		"00 00 00 10  00 6A 00 61 00 76 00 61 00 2E 00 6C 00 61 00 6E 00 67 00 2E 00 54 00 68 00 72 00 65 00 61 00 64", // "java.lang.Thread"
		"00 00 00 05  00 73 00 6C 00 65 00 65 00 70", // "sleep"
		"00 00 00 00", // no file
		"FF FF FF FE", // native
		"00 00 00 10  00 63 00 6F 00 6D 00 2E 00 65 00 78 00 61 00 6D 00 70 00 6C 00 65 00 2E 00 4D 00 61 00 69 00 6E", // "com.example.Main"
		"00 00 00 03  00 72 00 75 00 6E",                                     // "run"
		"00 00 00 09  00 4D 00 61 00 69 00 6E 00 2E 00 6A 00 61 00 76 00 61", // "Main.java"
		"00 00 00 11", // line 17
	), &StackTrace{ThreadID: 1, Frames: []StackFrame{
		{Class: "java.lang.Thread", Method: "sleep", Line: LineNative},
		{Class: "com.example.Main", Method: "run", File: "Main.java", Line: 17},
	}}},
	{"HPIF (spec §7.1 example)", vmToMonitor, TypeHPIF, hx(
		"00 00 00 01", "00 00 00 01", "00 00 01 57 4D 42 B5 FB", "03",
		"10 00 00 00", "00 C0 00 00", "00 80 00 00", "00 01 64 62",
	), &HeapInfo{Heaps: []HeapStats{{HeapID: 1, Timestamp: 0x0000_0157_4D42_B5FB, Reason: HeapInfoEveryGC,
		MaxBytes: 256 << 20, SizeBytes: 12 << 20, AllocatedBytes: 8 << 20, AllocatedObjects: 91234}}}},
	{"HPST", vmToMonitor, TypeHPST, hx("00 00 00 01"), &HeapStart{HeapID: 1}},
	{"HPEN", vmToMonitor, TypeHPEN, hx("00 00 00 01"), &HeapEnd{HeapID: 1}},
	{"NHST", vmToMonitor, TypeNHST, hx("00 00 00 01"), &NativeHeapStart{HeapID: 1}},
	{"NHEN", vmToMonitor, TypeNHEN, hx("00 00 00 01"), &NativeHeapEnd{HeapID: 1}},
	{"HPSG (spec §7.5 example)", vmToMonitor, TypeHPSG, hpsgSpecExample, &HeapSegment{Type: TypeHPSG, HeapID: 1, UnitSize: 8,
		Address: 0x12C00000, Units: 316, Data: hx("01 01  19 03  00 09  91 FF  11 2B")}},
	{"HPSO", vmToMonitor, TypeHPSO, hx(
		"00 00 00 01  08  13 00 00 00  00 00 00 00  00 00 00 03",
		"01 00", // hard data object, 1 unit
		"09 01", // hard class object, 2 units
	), &HeapSegment{Type: TypeHPSO, HeapID: 1, UnitSize: 8, Address: 0x13000000, Units: 3, Data: hx("01 00 09 01")}},
	{"NHSG", vmToMonitor, TypeNHSG, hx(
		"00 00 00 01  08  B0 00 10 00  00 00 00 00  00 00 00 14",
		"39 0F", // hard native, 16 units
		"00 03", // free, 4 units
	), &HeapSegment{Type: TypeNHSG, HeapID: 1, UnitSize: 8, Address: 0xB0001000, Units: 20, Data: hx("39 0F 00 03")}},
	{"HPSG without usage data", vmToMonitor, TypeHPSG, hx("00 00 00 01  08  12 C0 00 00  00 00 00 00  00 00 00 00"),
		&HeapSegment{Type: TypeHPSG, HeapID: 1, UnitSize: 8, Address: 0x12C00000}},
	{"HPDU written", vmToMonitor, TypeHPDU, hx("00"), &HeapDumpResult{Result: 0}},
	{"HPDU failed", vmToMonitor, TypeHPDU, hx("FF"), &HeapDumpResult{Result: 0xFF}},
	{"HPDS data", vmToMonitor, TypeHPDS, hx("4A 41 56 41 20 50 52 4F 46 49 4C 45 20 31 2E 30 2E 33 00"), // "JAVA PROFILE 1.0.3\0"
		&HeapDumpData{HPROF: []byte("JAVA PROFILE 1.0.3\x00")}},
	{"REAQ on", vmToMonitor, TypeREAQ, hx("01"), &AllocTrackerStatus{Enabled: true}},
	{"REAL (spec §7.7 example)", vmToMonitor, TypeREAL, realSpecExample, &Allocations{
		HeaderLen: 15, EntryHeaderLen: 9, FrameLen: 8,
		Entries: []Allocation{{Size: 24, ThreadID: 1, Class: "Ljava/lang/String;",
			Frames: []AllocFrame{{Class: "Lcom/example/Foo;", Method: "bar", File: "Foo.java", Line: 42}}}},
	}},
	{"REAL two entries, native frame", vmToMonitor, TypeREAL, hx(
		"0F 09 08  00 02  00 00 00 29  00 02 00 01 00 01", // 2 entries, strings at 41
		"00 00 00 10  00 02  00 01  00",                   // 16 bytes, thread 2, class 1 "[I", no frames
		"00 00 00 20  00 03  00 00  01",                   // 32 bytes, thread 3, class 0, one frame
		"00 00  00 00  00 00  FF FE",                      // Object.<init>, no file, native
		"00 00 00 12  00 4C 00 6A 00 61 00 76 00 61 00 2F 00 6C 00 61 00 6E 00 67 00 2F 00 4F 00 62 00 6A 00 65 00 63 00 74 00 3B", // "Ljava/lang/Object;"
		"00 00 00 02  00 5B 00 49",                         // "[I"
		"00 00 00 06  00 3C 00 69 00 6E 00 69 00 74 00 3E", // "<init>"
		"00 00 00 00", // ""
	), &Allocations{HeaderLen: 15, EntryHeaderLen: 9, FrameLen: 8, Entries: []Allocation{
		{Size: 16, ThreadID: 2, Class: "[I"},
		{Size: 32, ThreadID: 3, Class: "Ljava/lang/Object;",
			Frames: []AllocFrame{{Class: "Ljava/lang/Object;", Method: "<init>", Line: LineNative}}},
	}}},
	{"REAL empty", vmToMonitor, TypeREAL, hx("0F 09 08  00 00  00 00 00 0F  00 00 00 00 00 00"),
		&Allocations{HeaderLen: 15, EntryHeaderLen: 9, FrameLen: 8}},
	{"NHGT 32-bit", vmToMonitor, TypeNHGT, hx(
		"04 00 00 00",              // map size 4
		"10 00 00 00",              // allocation bytes 16
		"10 00 00 00",              // record size 16
		"00 10 00 00",              // total memory 4096
		"02 00 00 00",              // 2 return addresses per record
		"61 62 63 0A",              // "abc\n"
		"10 00 00 80",              // size 16, zygote flag
		"03 00 00 00",              // count 3
		"00 10 00 00  00 00 00 00", // pc 0x1000, unused slot
	), &NativeHeap{PointerSize: 4, TotalMemory: 4096, BacktraceSize: 2, RecordSize: 16, Maps: []byte("abc\n"),
		Allocations: []NativeAllocation{{Size: 0x80000010, Count: 3, Backtrace: []uint64{0x1000, 0}}}}},
	{"NHGT 32-bit without malloc debug", vmToMonitor, TypeNHGT, hx(
		"02 00 00 00  00 00 00 00  00 00 00 00  00 00 00 00  00 00 00 00", "78 0A",
	), &NativeHeap{PointerSize: 4, Maps: []byte("x\n")}},
	{"NHGT 64-bit", vmToMonitor, TypeNHGT, hx(
		"DD 45 23 81  02 00  08 00", // signature, version 2, pointer size 8
		"00 00 00 00 00 00 00 00",   // no maps
		"18 00 00 00 00 00 00 00",   // allocation bytes 24
		"18 00 00 00 00 00 00 00",   // record size 24
		"00 20 00 00 00 00 00 00",   // total memory 8192
		"01 00 00 00 00 00 00 00",   // 1 return address per record
		"20 00 00 00 00 00 00 00  01 00 00 00 00 00 00 00  34 12 00 00 7F 00 00 00",
	), &NativeHeap{Wide: true, Version: 2, PointerSize: 8, TotalMemory: 8192, BacktraceSize: 1, RecordSize: 24,
		Allocations: []NativeAllocation{{Size: 32, Count: 1, Backtrace: []uint64{0x7F00001234}}}}},
	{"MPRE written", vmToMonitor, TypeMPRE, hx("00"), &MethodTraceResult{Result: 0}},
	{"MPSE data", vmToMonitor, TypeMPSE, hx("2A 76 65 72 73 69 6F 6E 0A 33 0A"), // "*version\n3\n"
		&MethodTraceData{Trace: []byte("*version\n3\n")}},
	{"MPRQ sampling", vmToMonitor, TypeMPRQ, hx("02"), &ProfilingStatus{Mode: ProfilingSampling}},
	{"VULW reply", vmToMonitor, TypeVULW, hx("00 00 00 01", hexWin), &ViewWindows{Names: []string{"Win"}}},
	{"VURT reply", vmToMonitor, TypeVURT, hx("56 31 0A"), &ViewRootData{Data: []byte("V1\n")}},
	{"VUOP reply (PNG)", vmToMonitor, TypeVUOP, hx("89 50 4E 47 0D 0A 1A 0A"), &ViewOpData{Data: []byte("\x89PNG\r\n\x1a\n")}},
}

// hpsgSpecExample is the HPSG piece of spec/ddm-chunks.md §7.5.
var hpsgSpecExample = hx(
	"00 00 00 01", // heap 1
	"08",          // unit 8 bytes
	"12 C0 00 00", // start address
	"00 00 00 00", // offset
	"00 00 01 3C", // 316 units
	"01 01",       // hard/object, 2 units
	"19 03",       // hard/2-byte array, 4 units
	"00 09",       // free, 10 units
	"91 FF",       // hard/1-byte array, partial, 256 units
	"11 2B",       // hard/1-byte array, 44 units
)

// realSpecExample is the 140-byte REAL reply of spec/ddm-chunks.md §7.7.
var realSpecExample = hx(
	"0F 09 08  00 01  00 00 00 20  00 02 00 01 00 01", // header; strings at offset 32
	"00 00 00 18  00 01  00 01  01",                   // size 24, thread 1, class 1, depth 1
	"00 00  00 00  00 00  00 2A",                      // Foo, bar, Foo.java, line 42
	"00 00 00 11  00 4C 00 63 00 6F 00 6D 00 2F 00 65 00 78 00 61 00 6D 00 70 00 6C 00 65 00 2F 00 46 00 6F 00 6F 00 3B",       // "Lcom/example/Foo;"
	"00 00 00 12  00 4C 00 6A 00 61 00 76 00 61 00 2F 00 6C 00 61 00 6E 00 67 00 2F 00 53 00 74 00 72 00 69 00 6E 00 67 00 3B", // "Ljava/lang/String;"
	"00 00 00 03  00 62 00 61 00 72",                               // "bar"
	"00 00 00 08  00 46 00 6F 00 6F 00 2E 00 6A 00 61 00 76 00 61", // "Foo.java"
)

func TestVectorsDecode(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.dir.String()+" "+v.name, func(t *testing.T) {
			if got := v.want.ChunkType(); got != v.typ {
				t.Fatalf("want.ChunkType() = %v, vector type %v", got, v.typ)
			}
			got, err := decodeIn(v.dir, Chunk{Type: v.typ, Data: v.body})
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if !reflect.DeepEqual(plain(got), plain(v.want)) {
				t.Fatalf("decoded\n  %#v\nwant\n  %#v", got, v.want)
			}
		})
	}
}

func TestVectorsEncode(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.dir.String()+" "+v.name, func(t *testing.T) {
			body := v.want.AppendBody(nil)
			if !bytes.Equal(body, v.body) {
				t.Fatalf("encoded\n  % X\nwant\n  % X", body, v.body)
			}
			// AppendMessage frames it, after whatever dst holds.
			prefix := []byte{0xEE}
			chunk := AppendMessage(prefix, v.want)
			if want := AppendChunk([]byte{0xEE}, v.typ, v.body); !bytes.Equal(chunk, want) {
				t.Fatalf("AppendMessage\n  % X\nwant\n  % X", chunk, want)
			}
			if c := EncodeChunk(v.want); c.Type != v.typ || !bytes.Equal(c.Data, v.body) {
				t.Fatalf("EncodeChunk = %v % X", c.Type, c.Data)
			}
		})
	}
}

// TestVectorsCoverEveryDecoder makes sure each entry of both decoder tables
// has at least one byte-exact vector.
func TestVectorsCoverEveryDecoder(t *testing.T) {
	covered := map[direction]map[Type]bool{monitorToVM: {}, vmToMonitor: {}}
	for _, v := range vectors {
		covered[v.dir][v.typ] = true
	}
	for typ := range fromMonitor {
		if !covered[monitorToVM][typ] {
			t.Errorf("no M→V vector for %v", typ)
		}
	}
	for typ := range fromVM {
		if !covered[vmToMonitor][typ] {
			t.Errorf("no V→M vector for %v", typ)
		}
	}
}

// TestHELORequestPacket checks the worked example of spec/jdwp.md §3: the
// data of ddmlib's HELO packet is exactly one HELO chunk.
func TestHELORequestPacket(t *testing.T) {
	packet := hx(
		"00 00 00 17", // length = 23 = 11 + 8 + 4
		"40 00 00 01", // id
		"00",          // flags (command)
		"C7 01",       // DDM command set / command
		"48 45 4C 4F", // chunk type "HELO"
		"00 00 00 04", // chunk length
		"00 00 00 01", // body: version 1
	)
	data := packet[11:]
	chunks, err := ParseChunks(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 1 || chunks[0].Type != TypeHELO {
		t.Fatalf("chunks = %+v", chunks)
	}
	m, err := DecodeFromMonitor(chunks[0])
	if err != nil {
		t.Fatal(err)
	}
	if req, ok := m.(*HelloRequest); !ok || req.ServerVersion != ServerProtocolVersion {
		t.Fatalf("decoded %#v", m)
	}
	if enc := AppendMessage(nil, &HelloRequest{ServerVersion: ServerProtocolVersion}); !bytes.Equal(enc, data) {
		t.Fatalf("encoded % X, want % X", enc, data)
	}
}

// TestHPSGSpecExampleElements checks that the spec's HPSG piece walks to the
// four elements ddmlib-25.2.2 reports: (solidity, kind, bytes).
func TestHPSGSpecExampleElements(t *testing.T) {
	seg, err := DecodeHeapSegment(TypeHPSG, hpsgSpecExample)
	if err != nil {
		t.Fatal(err)
	}
	type element struct {
		solidity Solidity
		kind     Kind
		bytes    uint64
	}
	want := []element{
		{SolidityHard, KindObject, 16},
		{SolidityHard, KindArray2, 32},
		{SolidityFree, KindObject, 80},
		{SolidityHard, KindArray1, 2400},
	}
	var got []element
	for run := range seg.Runs {
		if run.State.Partial() {
			t.Errorf("run %v keeps the partial bit", run)
		}
		got = append(got, element{run.State.Solidity(), run.State.Kind(), run.Bytes(seg.UnitSize)})
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("elements %v, want %v", got, want)
	}
}

// TestREALSpecExample checks the 140-byte example against the line
// ddmlib-25.2.2 prints for it, and that re-encoding (tables sorted as ART
// does) reproduces it byte for byte.
func TestREALSpecExample(t *testing.T) {
	if len(realSpecExample) != 140 {
		t.Fatalf("example is %d bytes", len(realSpecExample))
	}
	m, err := DecodeAllocations(realSpecExample)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Entries) != 1 {
		t.Fatalf("%d entries", len(m.Entries))
	}
	const want = "java.lang.String size=24 tid=1 at com.example.Foo.bar(Foo.java:42)"
	if got := m.Entries[0].String(); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if enc := m.AppendBody(nil); !bytes.Equal(enc, realSpecExample) {
		t.Fatalf("re-encoded\n  % X\nwant\n  % X", enc, realSpecExample)
	}
}

// TestREALUnsortedTables decodes a Dalvik-style reply whose tables are not
// sorted: only the indices matter, so it decodes to the same value as the
// sorted vector.
func TestREALUnsortedTables(t *testing.T) {
	unsorted := hx(
		"0F 09 08  00 02  00 00 00 29  00 02 00 01 00 01",
		"00 00 00 10  00 02  00 00  00", // class 0 is "[I" here
		"00 00 00 20  00 03  00 01  01",
		"00 01  00 00  00 00  FF FE",
		"00 00 00 02  00 5B 00 49", // "[I"
		"00 00 00 12  00 4C 00 6A 00 61 00 76 00 61 00 2F 00 6C 00 61 00 6E 00 67 00 2F 00 4F 00 62 00 6A 00 65 00 63 00 74 00 3B",
		"00 00 00 06  00 3C 00 69 00 6E 00 69 00 74 00 3E",
		"00 00 00 00",
	)
	got, err := DecodeAllocations(unsorted)
	if err != nil {
		t.Fatal(err)
	}
	var sorted *vector
	for i := range vectors {
		if vectors[i].name == "REAL two entries, native frame" {
			sorted = &vectors[i]
		}
	}
	if sorted == nil {
		t.Fatal("sorted vector missing")
	}
	if !reflect.DeepEqual(got, sorted.want) {
		t.Fatalf("decoded %#v\nwant %#v", got, sorted.want)
	}
	if want := "int[] size=16 tid=2"; got.Entries[0].String() != want {
		t.Errorf("entry 0 = %q, want %q", got.Entries[0].String(), want)
	}
	if want := "java.lang.Object size=32 tid=3 at java.lang.Object.<init>(Native Method)"; got.Entries[1].String() != want {
		t.Errorf("entry 1 = %q, want %q", got.Entries[1].String(), want)
	}
}
