package hprof

import (
	"fmt"
	"time"
)

// ID is an HPROF identifier (object, class, string or frame id). Files use
// 4- or 8-byte identifiers, as the header says; ART always uses 4.
type ID uint64

// Header is the start of every HPROF file.
type Header struct {
	Version   string `json:"version"`   // e.g. VersionAndroid; written NUL-terminated
	IDSize    int    `json:"id_size"`   // size of identifiers in bytes: 4 or 8
	Timestamp uint64 `json:"timestamp"` // milliseconds since the Unix epoch
}

// Time returns the header's timestamp as a time.Time.
func (h Header) Time() time.Time { return time.UnixMilli(int64(h.Timestamp)) }

// Android reports whether the header announces Android's 1.0.3 variant.
func (h Header) Android() bool { return h.Version == VersionAndroid }

func (h Header) validate() error {
	switch h.Version {
	case VersionAndroid, VersionStandard, Version101:
	default:
		return fmt.Errorf("hprof: unknown version %q", h.Version)
	}
	if h.IDSize != 4 && h.IDSize != 8 {
		return fmt.Errorf("hprof: identifier size %d (want 4 or 8)", h.IDSize)
	}
	return nil
}

// Record is one element of an HPROF stream as Reader returns it and Writer
// takes it: a top-level record (*UTF8, *LoadClass, *UnloadClass,
// *StackFrame, *StackTrace, *HeapSummary, *StartThread, *EndThread,
// *HeapDump, *HeapDumpEnd, *RawRecord) or a heap-dump sub-record (*Root,
// *HeapDumpInfo, *ClassDump, *InstanceDump, *ObjectArrayDump,
// *PrimitiveArrayDump). Sub-records follow the *HeapDump that holds them.
type Record interface {
	hprofRecord()
}

// UTF8 is a STRING record: an id and the string's UTF-8 bytes. Class, field,
// method and heap names refer to strings by id.
type UTF8 struct {
	ID   ID
	Text string
}

// LoadClass is a LOAD CLASS record: it gives a class object its serial
// number and its name (a string id).
type LoadClass struct {
	Serial      uint32
	Class       ID
	StackSerial uint32
	Name        ID
}

// UnloadClass is an UNLOAD CLASS record.
type UnloadClass struct {
	Serial uint32
}

// StackFrame is a STACK FRAME record.
type StackFrame struct {
	Frame       ID
	Method      ID // method name string
	Signature   ID // method signature string
	Source      ID // source file name string
	ClassSerial uint32
	Line        int32 // > 0 line number; 0 none; -1 unknown; -2 compiled; -3 native
}

// StackTrace is a STACK TRACE record: frames from the innermost out.
type StackTrace struct {
	Serial uint32
	Thread uint32 // thread serial number
	Frames []ID
}

// HeapSummary is a HEAP SUMMARY record.
type HeapSummary struct {
	LiveBytes      uint32
	LiveInstances  uint32
	AllocBytes     uint64
	AllocInstances uint64
}

// StartThread is a START THREAD record.
type StartThread struct {
	Thread      uint32 // thread serial number
	Object      ID
	StackSerial uint32
	Name        ID
	Group       ID
	Parent      ID // parent group name
}

// EndThread is an END THREAD record.
type EndThread struct {
	Thread uint32
}

// HeapDump starts a HEAP DUMP (Segment false) or HEAP DUMP SEGMENT record;
// its sub-records follow it in the stream. A Writer ends the record when the
// next top-level record (or Close) comes.
type HeapDump struct {
	Segment bool
}

// HeapDumpEnd is a HEAP DUMP END record, which follows the last segment.
type HeapDumpEnd struct{}

// RawRecord is a top-level record the Reader does not decode (ALLOC SITES,
// CPU SAMPLES, CONTROL SETTINGS and unknown tags). Reader's Body aliases its
// buffer and is valid until the next call to Next.
type RawRecord struct {
	Tag  Tag
	Body []byte
}

// Root is a GC root sub-record of any kind. Fields that Kind's layout does
// not have are zero.
type Root struct {
	Kind   SubTag // one of the Sub*Root tags
	Object ID
	// JNIRef is the JNI global reference id (SubRootJNIGlobal).
	JNIRef ID
	// Thread is the thread serial number (JNI LOCAL, JAVA FRAME, NATIVE
	// STACK, THREAD BLOCK, THREAD OBJECT, JNI MONITOR).
	Thread uint32
	// Frame is the frame number in the thread's stack trace (JNI LOCAL, JAVA
	// FRAME; 0xFFFFFFFF when unknown) or the stack depth (JNI MONITOR).
	Frame uint32
	// StackSerial is the thread's stack trace serial number (THREAD OBJECT).
	StackSerial uint32
}

// HeapDumpInfo (Android) says which heap the following objects of the same
// record belong to.
type HeapDumpInfo struct {
	Heap uint32 // HeapApp, HeapImage, HeapZygote or HeapDefault
	Name ID     // string id: "app", "image", "zygote", "default"
}

// ClassDump is a CLASS DUMP sub-record.
type ClassDump struct {
	Class            ID
	StackSerial      uint32
	Super            ID
	Loader           ID
	Signers          ID
	ProtectionDomain ID
	Reserved1        ID
	Reserved2        ID
	InstanceSize     uint32 // bytes, as the VM counts them
	Constants        []Constant
	Statics          []StaticField
	Fields           []Field // instance fields declared by this class, in data order
}

// Constant is a constant-pool entry of a CLASS DUMP.
type Constant struct {
	Index uint16
	Type  Type
	Value uint64 // the value's bits, zero-extended (an id for TypeObject)
}

// StaticField is a static field with its value.
type StaticField struct {
	Name  ID
	Type  Type
	Value uint64 // the value's bits, zero-extended (an id for TypeObject)
}

// Field is an instance field declaration.
type Field struct {
	Name ID
	Type Type
}

// InstanceDump is an INSTANCE DUMP: the values of the object's instance
// fields, its class's fields first, then its superclass's, and so on. The
// Reader's Data aliases its buffer and is valid until the next call to Next.
type InstanceDump struct {
	Object      ID
	StackSerial uint32
	Class       ID
	Data        []byte
}

// ObjectArrayDump is an OBJECT ARRAY DUMP.
type ObjectArrayDump struct {
	Array       ID
	StackSerial uint32
	Class       ID // the array's class
	Elements    []ID
}

// PrimitiveArrayDump is a PRIMITIVE ARRAY DUMP, or (NoData) Android's
// PRIMITIVE ARRAY NODATA, which has the same fields but no element bytes.
// The Reader's Data aliases its buffer and is valid until the next call to
// Next.
type PrimitiveArrayDump struct {
	Array       ID
	StackSerial uint32
	Type        Type
	Count       uint32 // number of elements
	Data        []byte // Count × Type.Size bytes, big-endian; nil when NoData
	NoData      bool
}

func (*UTF8) hprofRecord()               {}
func (*LoadClass) hprofRecord()          {}
func (*UnloadClass) hprofRecord()        {}
func (*StackFrame) hprofRecord()         {}
func (*StackTrace) hprofRecord()         {}
func (*HeapSummary) hprofRecord()        {}
func (*StartThread) hprofRecord()        {}
func (*EndThread) hprofRecord()          {}
func (*HeapDump) hprofRecord()           {}
func (*HeapDumpEnd) hprofRecord()        {}
func (*RawRecord) hprofRecord()          {}
func (*Root) hprofRecord()               {}
func (*HeapDumpInfo) hprofRecord()       {}
func (*ClassDump) hprofRecord()          {}
func (*InstanceDump) hprofRecord()       {}
func (*ObjectArrayDump) hprofRecord()    {}
func (*PrimitiveArrayDump) hprofRecord() {}
