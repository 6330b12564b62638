// Package hprof reads, writes, summarizes and converts HPROF heap dumps: the
// standard format ("JAVA PROFILE 1.0.2", as the JDK's heap dumper writes it)
// and Android's variant ("JAVA PROFILE 1.0.3", sent by ART in a DDM HPDS chunk
// or written by HPDU; see spec/ddm-chunks.md §7.6).
//
// The main entry points:
//   - Reader streams a file as a sequence of Records: the top-level records
//     (*UTF8, *LoadClass, *StackTrace, ...) and, after each *HeapDump, the
//     sub-records of its body (*Root, *ClassDump, *InstanceDump, ...).
//   - Convert rewrites an Android file as a standard one, byte for byte as
//     AOSP's hprof-conv does, so desktop tools can open it.
//   - Summarize counts records, heaps and classes for a quick report.
//   - Writer encodes Records; Synth generates a small, valid Android file
//     deterministically (what the simulator sends as an HPDS body).
//
// Every length read from a file is a claim: it is checked against the bytes
// that remain in its record before it is used, and record bodies are read
// in bounded steps, so truncated or hostile input yields a *FormatError with
// the byte offset of the bad field, never a panic or a huge allocation.
package hprof

import (
	"fmt"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// FormatError reports malformed input: what was being read, at which byte
// offset from the start of the file, and why. Offsets are exact for the
// file as read from the start of its header.
type FormatError = wire.FormatError

// Header versions. The version string is NUL-terminated in the file.
const (
	// VersionAndroid is Android's variant, with the extra heap-dump
	// sub-records (HEAP DUMP INFO, the Android root kinds, PRIMITIVE ARRAY
	// NODATA).
	VersionAndroid = "JAVA PROFILE 1.0.3"
	// VersionStandard is the version desktop tools read; Convert writes it.
	VersionStandard = "JAVA PROFILE 1.0.2"
	// Version101 is the JDK's older version without heap dump segments.
	Version101 = "JAVA PROFILE 1.0.1"
)

// maxVersionLen bounds the header string (without its NUL); the known ones
// are 18 bytes.
const maxVersionLen = 64

// recordHeaderLen is the size of a top-level record header: u1 tag, u4 time
// delta, u4 body length.
const recordHeaderLen = 9

// Tag is the type of a top-level record.
type Tag uint8

// Top-level record tags.
const (
	TagString          Tag = 0x01 // STRING IN UTF8: id, UTF-8 bytes
	TagLoadClass       Tag = 0x02
	TagUnloadClass     Tag = 0x03
	TagStackFrame      Tag = 0x04
	TagStackTrace      Tag = 0x05
	TagAllocSites      Tag = 0x06
	TagHeapSummary     Tag = 0x07
	TagStartThread     Tag = 0x0A
	TagEndThread       Tag = 0x0B
	TagHeapDump        Tag = 0x0C
	TagCPUSamples      Tag = 0x0D
	TagControlSettings Tag = 0x0E
	TagHeapDumpSegment Tag = 0x1C
	TagHeapDumpEnd     Tag = 0x2C
)

var tagNames = map[Tag]string{
	TagString:          "STRING",
	TagLoadClass:       "LOAD CLASS",
	TagUnloadClass:     "UNLOAD CLASS",
	TagStackFrame:      "STACK FRAME",
	TagStackTrace:      "STACK TRACE",
	TagAllocSites:      "ALLOC SITES",
	TagHeapSummary:     "HEAP SUMMARY",
	TagStartThread:     "START THREAD",
	TagEndThread:       "END THREAD",
	TagHeapDump:        "HEAP DUMP",
	TagCPUSamples:      "CPU SAMPLES",
	TagControlSettings: "CONTROL SETTINGS",
	TagHeapDumpSegment: "HEAP DUMP SEGMENT",
	TagHeapDumpEnd:     "HEAP DUMP END",
}

// String returns the record kind's name, as the HPROF format calls it.
func (t Tag) String() string {
	if s, ok := tagNames[t]; ok {
		return s
	}
	return fmt.Sprintf("TAG 0x%02X", uint8(t))
}

// MarshalText makes a Tag a readable JSON map key.
func (t Tag) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// isHeapDump reports whether records with this tag hold heap-dump
// sub-records.
func (t Tag) isHeapDump() bool { return t == TagHeapDump || t == TagHeapDumpSegment }

// SubTag is the type of a sub-record inside a HEAP DUMP or HEAP DUMP SEGMENT
// body.
type SubTag uint8

// Heap-dump sub-record tags of the standard format.
const (
	SubRootUnknown      SubTag = 0xFF
	SubRootJNIGlobal    SubTag = 0x01
	SubRootJNILocal     SubTag = 0x02
	SubRootJavaFrame    SubTag = 0x03
	SubRootNativeStack  SubTag = 0x04
	SubRootStickyClass  SubTag = 0x05
	SubRootThreadBlock  SubTag = 0x06
	SubRootMonitorUsed  SubTag = 0x07
	SubRootThreadObject SubTag = 0x08
	SubClassDump        SubTag = 0x20
	SubInstanceDump     SubTag = 0x21
	SubObjectArrayDump  SubTag = 0x22
	SubPrimitiveArray   SubTag = 0x23
)

// Heap-dump sub-record tags that only Android's 1.0.3 files contain.
const (
	SubHeapDumpInfo         SubTag = 0xFE
	SubRootInternedString   SubTag = 0x89
	SubRootFinalizing       SubTag = 0x8A
	SubRootDebugger         SubTag = 0x8B
	SubRootReferenceCleanup SubTag = 0x8C
	SubRootVMInternal       SubTag = 0x8D
	SubRootJNIMonitor       SubTag = 0x8E
	SubRootUnreachable      SubTag = 0x90
	SubPrimitiveArrayNoData SubTag = 0xC3
)

var subTagNames = map[SubTag]string{
	SubRootUnknown:          "ROOT UNKNOWN",
	SubRootJNIGlobal:        "ROOT JNI GLOBAL",
	SubRootJNILocal:         "ROOT JNI LOCAL",
	SubRootJavaFrame:        "ROOT JAVA FRAME",
	SubRootNativeStack:      "ROOT NATIVE STACK",
	SubRootStickyClass:      "ROOT STICKY CLASS",
	SubRootThreadBlock:      "ROOT THREAD BLOCK",
	SubRootMonitorUsed:      "ROOT MONITOR USED",
	SubRootThreadObject:     "ROOT THREAD OBJECT",
	SubClassDump:            "CLASS DUMP",
	SubInstanceDump:         "INSTANCE DUMP",
	SubObjectArrayDump:      "OBJECT ARRAY DUMP",
	SubPrimitiveArray:       "PRIMITIVE ARRAY DUMP",
	SubHeapDumpInfo:         "HEAP DUMP INFO",
	SubRootInternedString:   "ROOT INTERNED STRING",
	SubRootFinalizing:       "ROOT FINALIZING",
	SubRootDebugger:         "ROOT DEBUGGER",
	SubRootReferenceCleanup: "ROOT REFERENCE CLEANUP",
	SubRootVMInternal:       "ROOT VM INTERNAL",
	SubRootJNIMonitor:       "ROOT JNI MONITOR",
	SubRootUnreachable:      "ROOT UNREACHABLE",
	SubPrimitiveArrayNoData: "PRIMITIVE ARRAY NODATA",
}

// String returns the sub-record kind's name, as the HPROF format calls it.
func (t SubTag) String() string {
	if s, ok := subTagNames[t]; ok {
		return s
	}
	return fmt.Sprintf("SUB-TAG 0x%02X", uint8(t))
}

// MarshalText makes a SubTag a readable JSON map key.
func (t SubTag) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// Android reports whether the sub-record kind exists only in Android's
// 1.0.3 files.
func (t SubTag) Android() bool {
	switch t {
	case SubHeapDumpInfo, SubRootInternedString, SubRootFinalizing, SubRootDebugger,
		SubRootReferenceCleanup, SubRootVMInternal, SubRootJNIMonitor, SubRootUnreachable,
		SubPrimitiveArrayNoData:
		return true
	}
	return false
}

// rootLayout says which fields follow a root's object id, in file order:
// a JNI global reference id, then u4 fields.
type rootLayout struct {
	root        bool // the tag is a root
	jniRef      bool // ROOT JNI GLOBAL: id of the JNI global reference
	thread      bool // u4 thread serial number
	frame       bool // u4 frame number (JNI LOCAL, JAVA FRAME) or stack depth (JNI MONITOR)
	stackSerial bool // u4 stack trace serial number (THREAD OBJECT)
}

// rootLayouts is indexed by sub-record tag; root is false for non-roots.
var rootLayouts = [256]rootLayout{
	SubRootUnknown:          {root: true},
	SubRootJNIGlobal:        {root: true, jniRef: true},
	SubRootJNILocal:         {root: true, thread: true, frame: true},
	SubRootJavaFrame:        {root: true, thread: true, frame: true},
	SubRootNativeStack:      {root: true, thread: true},
	SubRootStickyClass:      {root: true},
	SubRootThreadBlock:      {root: true, thread: true},
	SubRootMonitorUsed:      {root: true},
	SubRootThreadObject:     {root: true, thread: true, stackSerial: true},
	SubRootInternedString:   {root: true},
	SubRootFinalizing:       {root: true},
	SubRootDebugger:         {root: true},
	SubRootReferenceCleanup: {root: true},
	SubRootVMInternal:       {root: true},
	SubRootJNIMonitor:       {root: true, thread: true, frame: true},
	SubRootUnreachable:      {root: true},
}

// size is the body length (after the tag byte) of a root sub-record.
func (l rootLayout) size(idSize int) int {
	n := idSize
	if l.jniRef {
		n += idSize
	}
	for _, f := range []bool{l.thread, l.frame, l.stackSerial} {
		if f {
			n += 4
		}
	}
	return n
}

// IsRoot reports whether t is a GC root sub-record (standard or Android).
func (t SubTag) IsRoot() bool {
	return rootLayouts[t].root
}

// Type is an HPROF basic type, as used in CLASS DUMP fields and PRIMITIVE
// ARRAY DUMP elements.
type Type uint8

// Basic types.
const (
	TypeObject  Type = 2
	TypeBoolean Type = 4
	TypeChar    Type = 5
	TypeFloat   Type = 6
	TypeDouble  Type = 7
	TypeByte    Type = 8
	TypeShort   Type = 9
	TypeInt     Type = 10
	TypeLong    Type = 11
)

var typeSizes = [...]int8{TypeObject: -1, TypeBoolean: 1, TypeChar: 2, TypeFloat: 4, TypeDouble: 8, TypeByte: 1, TypeShort: 2, TypeInt: 4, TypeLong: 8}

var typeNames = [...]string{TypeObject: "object", TypeBoolean: "boolean", TypeChar: "char", TypeFloat: "float", TypeDouble: "double", TypeByte: "byte", TypeShort: "short", TypeInt: "int", TypeLong: "long"}

// Size is the number of bytes a value of type t takes in a file whose
// identifiers are idSize bytes, or 0 when t is not a basic type.
func (t Type) Size(idSize int) int {
	if int(t) >= len(typeSizes) || typeSizes[t] == 0 {
		return 0
	}
	if t == TypeObject {
		return idSize
	}
	return int(typeSizes[t])
}

// Valid reports whether t is one of the basic types.
func (t Type) Valid() bool { return t.Size(4) > 0 }

// Primitive reports whether t is a valid non-object type.
func (t Type) Primitive() bool { return t.Valid() && t != TypeObject }

// String returns the Java name of the type ("int", "object").
func (t Type) String() string {
	if t.Valid() {
		return typeNames[t]
	}
	return fmt.Sprintf("type %d", uint8(t))
}

// Heap ids in HEAP DUMP INFO, as ART writes them.
const (
	HeapDefault uint32 = 0
	HeapApp     uint32 = 'A'
	HeapImage   uint32 = 'I'
	HeapZygote  uint32 = 'Z'
)
