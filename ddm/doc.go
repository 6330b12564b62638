// Package ddm encodes and decodes the Dalvik Debug Monitor (DDM) chunk
// protocol that Dalvik and ART VMs speak inside JDWP packets of command set
// 0xC7, command 0x01 (see spec/jdwp.md §3 and spec/ddm-chunks.md).
//
// A packet's data is a sequence of chunks (ParseChunks, AppendChunk): a
// four-character Type, a length and a body. Every chunk body layout has a Go
// type implementing Message, with a DecodeXxx function for the direction it
// travels in; where one code has different request and reply layouts there
// are two types (HelloRequest and Hello, StackTraceRequest and StackTrace,
// and so on). DecodeFromVM and DecodeFromMonitor pick the decoder for a
// chunk from a table keyed by its type, per direction; a type with no
// decoder yields ErrUnknownChunk so that callers can log and ignore it.
//
// Heap segment data (HPSG, HPSO, NHSG) is validated once when decoded and can
// then be walked run by run without allocation (HeapSegment.Runs);
// SegmentWriter produces it as VMs do. FAIL chunks decode to *FailError,
// which is also a Go error.
//
// Decoding never allocates more than the body's own size justifies: every
// count and length is checked against the bytes that remain before anything
// is made for it. Decoded byte-slice fields (HeapSegment.Data, HPROF and
// trace payloads, view replies, NativeHeap.Maps) alias the body they were
// decoded from; copy them to keep them beyond the body's lifetime.
// Malformed bodies yield errors wrapping *wire.FormatError (with the byte
// offset inside the body) or, for segment usage data, *SegmentError.
package ddm
