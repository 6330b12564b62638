package hprof

// Tests that kill the mutants scripts/mutation.sh found alive in this
// package (docs/TESTING.md, "Mutation testing"). Each states exact values.

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math"
	"testing"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// TestDefaultMaxOutput: 16 times the input, at least 16 MiB.
func TestDefaultMaxOutput(t *testing.T) {
	for _, tc := range []struct{ in, want int64 }{
		{0, 16 << 20}, {1, 16 << 20}, {1 << 20, 16 << 20}, {1<<20 + 1, 16<<20 + 16}, {3 << 20, 48 << 20},
	} {
		if got := DefaultMaxOutput(tc.in); got != tc.want {
			t.Errorf("DefaultMaxOutput(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestConvertRecordLengthLimit: a NODATA byte array zero-filled to a heap
// dump record of exactly 2^32-1 bytes fits the u4 length (here the output
// bound then stops it); one element more does not.
func TestConvertRecordLengthLimit(t *testing.T) {
	const sub = 1 + 4 + 4 + 4 + 1 // tag, id, stack serial, count, type
	for _, tc := range []struct {
		count uint32
		want  error
	}{
		{math.MaxUint32 - sub, ErrOutputTooLarge},
		{math.MaxUint32 - sub + 1, ErrRecordTooLarge},
	} {
		nodata := newRaw().u1(uint8(SubPrimitiveArrayNoData)).u4(0x100).u4(1).u4(tc.count).u1(uint8(TypeByte)).bytes()
		in := fileBytes(VersionAndroid, 4, rec(TagHeapDumpSegment, 0, nodata))
		err := Convert(io.Discard, bytes.NewReader(in), ConvertOptions{MaxOutput: 1 << 20})
		if !errors.Is(err, tc.want) {
			t.Errorf("count %d: %v, want %v", tc.count, err, tc.want)
		}
	}
}

// readErr4 reads a 4-byte-id Android file to its first error.
func readErr4(t *testing.T, in []byte) error {
	t.Helper()
	r, err := NewReader(bytes.NewReader(in))
	for err == nil {
		_, err = r.Next()
	}
	return err
}

// TestClassDumpCountsBoundedByEntrySize: a CLASS DUMP's static field count
// is checked against id+2 bytes per entry and its instance field count
// against id+1, before anything is read: 2 statics in 8 bytes, or 2
// instance fields in 6, are refused as too long at the count.
func TestClassDumpCountsBoundedByEntrySize(t *testing.T) {
	const body = 31 + 9 // the file header and the segment's record header
	cd := func(tail []byte) []byte {
		sub := newRaw().u1(0x20).b(make([]byte, 36)...).b(tail...).bytes()
		return fileBytes(VersionAndroid, 4, rec(TagHeapDumpSegment, 0, sub))
	}
	for _, tc := range []struct {
		name string
		in   []byte
		off  int
		what string
	}{
		{"statics", cd(newRaw().u2(0).u2(2).u4(7).u1(10).u1(0).u1(0).u1(0).bytes()), body + 41, "static fields"},
		{"instance fields", cd(newRaw().u2(0).u2(0).u2(2).u4(7).u1(10).u1(0).bytes()), body + 43, "instance fields"},
	} {
		err := readErr4(t, tc.in)
		fe := formatErr(t, err, tc.off)
		if !errors.Is(err, wire.ErrTooLong) || fe.What != tc.what {
			t.Errorf("%s: %v (what %q), want ErrTooLong at %q", tc.name, err, fe.What, tc.what)
		}
	}
}

// TestConvertTruncatedLastSubRecord: a fixed-size sub-record cut short at
// the end of its record, after another one, is an error at its start.
func TestConvertTruncatedLastSubRecord(t *testing.T) {
	in := fileBytes(VersionAndroid, 4, rec(TagHeapDumpSegment, 0, newRaw().u1(0xFF).u4(1).u1(0xFF).u1(0).u1(0).bytes()))
	err := Convert(io.Discard, bytes.NewReader(in), ConvertOptions{})
	formatErr(t, err, 31+9+5)
	if err.Error() != "ROOT UNKNOWN at offset 45: data ends early" {
		t.Fatalf("error %q", err)
	}
}

// TestConvertArrayPastItsRecord: Convert (whose fast path reads the length
// fields itself) refuses instance data and array elements running past
// their record, at the sub-record, also after another sub-record.
func TestConvertArrayPastItsRecord(t *testing.T) {
	root := newRaw().u1(0xFF).u4(1).bytes()
	for _, tc := range []struct {
		name string
		sub  []byte
		want string
	}{
		{"instance", newRaw().u1(0x21).u4(1).u4(0).u4(2).u4(3).b(1, 2).bytes(), "instance data at offset 62: length exceeds the data"},
		{"object array", newRaw().u1(0x22).u4(1).u4(0).u4(2).u4(9).u4(1).bytes(), "object array elements at offset 62: length exceeds the data"},
		{"primitive array", newRaw().u1(0x23).u4(1).u4(0).u4(3).u1(10).u4(1).bytes(), "primitive array elements at offset 59: length exceeds the data"},
	} {
		in := fileBytes(VersionAndroid, 4, rec(TagHeapDumpSegment, 0, root, tc.sub))
		err := Convert(io.Discard, bytes.NewReader(in), ConvertOptions{})
		if err == nil || err.Error() != tc.want || !errors.Is(err, wire.ErrTooLong) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestSummarizeCountsRawRecords: records kept raw (here two of tag 0x0D,
// CPU SAMPLES, and one unknown 0x77) are counted by tag.
func TestSummarizeCountsRawRecords(t *testing.T) {
	in := fileBytes(VersionAndroid, 4, rec(0x0D, 0, []byte{1}), rec(0x0D, 0), rec(0x77, 0, []byte{2, 3}))
	s, err := Summarize(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if s.Records[0x0D] != 2 || s.Records[0x77] != 1 || len(s.Records) != 2 {
		t.Fatalf("records %v, want 0x0D: 2, 0x77: 1", s.Records)
	}
}

// TestSynthDefaults: what Synth fills in for zero fields, and what it keeps.
func TestSynthDefaults(t *testing.T) {
	d := Synth{Seed: 7}.withDefaults()
	if d.Classes != 12 || d.Instances != 500 || d.Arrays != 125 || d.MaxArrayLength != 32 || d.IDSize != 4 || d.Timestamp != 1_700_000_000_007 {
		t.Fatalf("defaults %+v", d)
	}
	d = Synth{Instances: 9, MaxArrayLength: 1, IDSize: 8, Timestamp: 5, Classes: 1, Arrays: 1}.withDefaults()
	if d.Classes != 1 || d.Instances != 9 || d.Arrays != 1 || d.MaxArrayLength != 1 || d.IDSize != 8 || d.Timestamp != 5 {
		t.Fatalf("kept %+v", d)
	}
	if d := (Synth{Instances: 9}).withDefaults(); d.Arrays != 2 {
		t.Fatalf("arrays for 9 instances: %d, want 2", d.Arrays)
	}
}

// TestSynthGolden: Synth is deterministic for a seed, and its output is
// pinned: the simulator's dumps and the tests' inputs change only when this
// digest is updated on purpose (with a reason in the commit).
func TestSynthGolden(t *testing.T) {
	for _, tc := range []struct {
		s      Synth
		n      int
		digest string
	}{
		{Synth{Seed: 1}, 27774, "a255accd0f6b5afe5f3701fc3a731059b1e6ee3736bc854b809af72f81847179"},
		{Synth{Seed: 2, IDSize: 8, NoData: true, Instances: 2000}, 164115, "221d8441ddc67e4d4bb1af45db8f5213835f72a1e3e1b3c4fcd027c2daef9d39"},
		{Synth{Seed: 3, Heap: []ClassCount{{"com.example.Foo", 40}, {"java.lang.String", 7}}}, 5029, "c3a5ed306e74ba5d7447b304a8e9b6005f302f6bd8a3c0445666c77a9ca62020"},
		{Synth{Seed: 4, Classes: 40, Instances: 100}, 15185, "0faccc41649bcf2f0fc3e4810c7f28be7fb53a45b1782bb73c295c1ff23b21c8"},
	} {
		b, err := tc.s.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(b)); len(b) != tc.n || got != tc.digest {
			t.Errorf("Synth%+v: %d bytes, sha256 %s; want %d, %s", tc.s, len(b), got, tc.n, tc.digest)
		}
	}
}
