package trace

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
)

func dataHeader(version, offset, recordSize int) []byte {
	b := binary.LittleEndian.AppendUint32(nil, Magic)
	b = binary.LittleEndian.AppendUint16(b, uint16(version))
	b = binary.LittleEndian.AppendUint16(b, uint16(offset))
	b = binary.LittleEndian.AppendUint64(b, 0)
	if version >= 3 || version&0xF0 == StreamingFlag {
		b = binary.LittleEndian.AppendUint16(b, uint16(recordSize))
	}
	for len(b) < offset {
		b = append(b, 0)
	}
	return b
}

func record2(thread uint16, word, time uint32) []byte {
	b := binary.LittleEndian.AppendUint16(nil, thread)
	b = binary.LittleEndian.AppendUint32(b, word)
	return binary.LittleEndian.AppendUint32(b, time)
}

const smallKey = "*version\n2\nclock=thread-cpu\n*threads\n1\tmain\n*methods\n0x4\ta.A\tf\t()V\n0x8\ta.A\tg\t()V\n*end\n"

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestMalformedInputErrors(t *testing.T) {
	longLine := "*version\n2\nx=" + strings.Repeat("a", 200) + "\n*end\n"
	cases := []struct {
		name   string
		input  []byte
		lim    Limits
		want   error
		offset int64 // -1: do not check
	}{
		{"empty", nil, Limits{}, ErrNotTrace, 0},
		{"text", []byte("hello world\n"), Limits{}, ErrNotTrace, 0},
		{"no *end", []byte("*version\n2\n*threads\n1\tmain\n"), Limits{}, ErrTruncated, -1},
		{"version 7", []byte("*version\n7\n*end\n"), Limits{}, ErrVersion, 9},
		{"version word", []byte("*version\nthree\n*end\n"), Limits{}, ErrMalformed, 9},
		{"no version number", []byte("*version\n*threads\n*end\n"), Limits{}, ErrMalformed, -1},
		{"key without data", []byte(smallKey), Limits{}, ErrTruncated, int64(len(smallKey))},
		{"bad magic", cat([]byte(smallKey), []byte("SLOX\x02\x00\x10\x00\x00\x00\x00\x00\x00\x00\x00\x00")), Limits{}, ErrNotTrace, int64(len(smallKey))},
		{"short data header", cat([]byte(smallKey), []byte("SLOW\x02\x00")), Limits{}, ErrTruncated, int64(len(smallKey))},
		{"data version 9", cat([]byte(smallKey), dataHeader(9, 32, 0)), Limits{}, ErrVersion, int64(len(smallKey)) + 4},
		{"data offset inside the header", cat([]byte(smallKey), dataHeader(2, 12, 0)), Limits{}, ErrMalformed, int64(len(smallKey)) + 6},
		{"data offset past the end", cat([]byte(smallKey), dataHeader(2, 16, 0)[:16], []byte{1, 2})[:0:0], Limits{}, nil, -1},
		{"v3 record size 8", cat([]byte("*version\n3\n*end\n"), dataHeader(3, 32, 8)), Limits{}, ErrMalformed, 16 + 16},
		{"line too long", []byte(longLine), Limits{MaxLineBytes: 100}, ErrLimit, 11},
		{"key too long", []byte(longLine), Limits{MaxKeyBytes: 50}, ErrLimit, -1},
		{"too many methods", []byte("*version\n2\n*methods\n0x4\ta\n0x8\tb\n0xc\tc\n*end\n"), Limits{MaxMethods: 2}, ErrLimit, 32},
		{"streaming opcode 9", cat(dataHeader(0xF2, 32, 10), []byte{0, 0, 9}), Limits{}, ErrMalformed, 32},
		{"streaming summary too long", cat(dataHeader(0xF2, 32, 10), []byte{0, 0, 3, 0xff, 0xff, 0xff, 0x7f}), Limits{MaxKeyBytes: 1000}, ErrLimit, 32},
	}
	// Offset past the end needs its own bytes: header says 200.
	cases[11].input = cat([]byte(smallKey), dataHeader(2, 16, 0)[:16])
	binary.LittleEndian.PutUint16(cases[11].input[len(smallKey)+6:], 200)
	cases[11].want, cases[11].offset = ErrTruncated, -1

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ReadProfile(bytes.NewReader(c.input), BuildOptions{Limits: c.lim})
			if !errors.Is(err, c.want) {
				t.Fatalf("got %v (profile %v), want %v", err, p != nil, c.want)
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("%v is not a FormatError", err)
			}
			if c.offset >= 0 && fe.Offset != c.offset {
				t.Fatalf("offset %d, want %d (%v)", fe.Offset, c.offset, err)
			}
			if !strings.Contains(err.Error(), "offset") {
				t.Fatalf("message lacks the offset: %v", err)
			}
		})
	}
}

func TestMalformedRecordsWarnWithOffsets(t *testing.T) {
	key := []byte(smallKey)
	base := int64(len(key)) + 32
	data := cat(dataHeader(2, 32, 0),
		record2(1, 0x4, 10),  // enter f
		record2(1, 0x10, 12), // enter unknown id 0x10
		record2(1, 0x11, 15), // exit unknown
		record2(1, 0x9, 16),  // exit g: unmatched (g is not on the stack)... f is on top: mismatch, ignored
		record2(1, 0x4, 14),  // enter f again at an earlier time: clamped
		record2(1, 0x7, 20),  // action 3 on f: read as an exit
		record2(1, 0x5, 25),  // exit f
		record2(1, 0x9, 30),  // exit g with an empty stack: unmatched
		[]byte{1, 0, 4},      // partial record
	)
	p, err := ReadProfile(bytes.NewReader(cat(key, data)), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[WarningKind]int64{
		WarnUnknownMethod:  base + 10,
		WarnMismatchedExit: base + 30,
		WarnTimeBackwards:  base + 40,
		WarnReservedAction: base + 50,
		WarnUnmatchedExit:  base + 70,
		WarnTruncatedData:  base + 80,
	}
	for kind, off := range want {
		found := false
		for _, w := range p.Warnings.List {
			if w.Kind == kind {
				found = true
				if w.Offset != off {
					t.Errorf("%v at offset %d, want %d: %s", kind, w.Offset, off, w.Message)
				}
			}
		}
		if !found {
			t.Errorf("no %v warning; got %v", kind, p.Warnings.List)
		}
	}
	if p.Records != 8 {
		t.Errorf("%d records, want 8 (the partial one dropped)", p.Records)
	}
	f := p.All.Stats(firstKeyMethod)
	g := p.All.Stats(firstKeyMethod + 1)
	unknown := p.All.Stats(Unknown)
	// f: outer call 10..25 (inner call 16..20 after the clamped entry), g:
	// unmatched exit at 30 counted from 0; unknown 12..15.
	if f.Calls != 2 || f.RecursiveCalls != 1 || f.Inclusive[ClockCPU] != 15 || unknown.Calls != 1 || unknown.Inclusive[ClockCPU] != 3 ||
		g.Calls != 1 || g.Inclusive[ClockCPU] != 30 || g.Exclusive[ClockCPU] != 5 {
		t.Errorf("f %+v\ng %+v\nunknown %+v", f, g, unknown)
	}
	if ids := p.UnknownMethodIDs; len(ids) != 1 || ids[0] != 0x10 {
		t.Errorf("unknown ids %v", ids)
	}
}

func TestWarningsAreBounded(t *testing.T) {
	// A million unmatched exits: counted, but only a few kept.
	key := []byte(smallKey)
	var data bytes.Buffer
	data.Write(dataHeader(2, 32, 0))
	for i := range 1_000_000 {
		data.Write(record2(1, 0x5, uint32(i)))
	}
	p, err := ReadProfile(bytes.NewReader(cat(key, data.Bytes())), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Warnings.Count(WarnUnmatchedExit) != 1_000_000 || len(p.Warnings.List) != PerKindLimit {
		t.Fatalf("%d counted, %d kept", p.Warnings.Count(WarnUnmatchedExit), len(p.Warnings.List))
	}
}

func TestStackDepthLimit(t *testing.T) {
	var data bytes.Buffer
	data.Write([]byte(smallKey))
	data.Write(dataHeader(2, 32, 0))
	for i := range 100 {
		data.Write(record2(1, 0x4, uint32(i)))
	}
	_, err := ReadProfile(bytes.NewReader(data.Bytes()), BuildOptions{Limits: Limits{MaxStackDepth: 50}})
	var fe *FormatError
	if !errors.As(err, &fe) || !errors.Is(err, ErrLimit) || fe.Offset != int64(len(smallKey))+32+50*10 {
		t.Fatalf("got %v", err)
	}
}

type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(b []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(b, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestReadErrorsPropagate(t *testing.T) {
	boom := errors.New("disk on fire")
	b := specExampleBytes(t)
	for _, cut := range []int{0, 100, 317, 330, len(b) - 5} {
		_, err := ReadProfile(&failingReader{data: b[:cut], err: boom}, BuildOptions{})
		if !errors.Is(err, boom) {
			t.Errorf("cut at %d: got %v", cut, err)
		}
	}
	// A clean EOF mid-record is a warning, not an error.
	p, err := ReadProfile(&failingReader{data: b[:len(b)-5], err: io.EOF}, BuildOptions{})
	if err != nil || p.Warnings.Count(WarnTruncatedData) != 1 {
		t.Fatalf("err %v warnings %v", err, p.Warnings.List)
	}
}

func TestLenientKey(t *testing.T) {
	// CRLF tokens, an unknown section, a bad thread line, an option without
	// '=', a method with action bits, a duplicate method id, dmtracedump's
	// one-name method line and Dalvik's six fields.
	key := "*version\r\n0x2\r\nclock=wall\r\nnoequals\r\n*threads\r\nx\tbad\r\n7 seven\n*weird\nstuff\n" +
		"*methods\n0x4\tonly.Name\n0x9\ta.B\tc\t()V\n0x4\tdup.A\tx\t()V\n0x10\ta.D\trun\t()V\tD.java\t42\n*end\r\n"
	data := cat(dataHeader(2, 32, 0), record2(7, 0x10, 1), record2(7, 0x11, 4), record2(7, 0x4, 5), record2(7, 0x5, 9))
	p, err := ReadProfile(bytes.NewReader(cat([]byte(key), data)), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Clocks != WallOnly || p.Header.Version != 2 || len(p.Header.Threads) != 1 || p.Header.Threads[0].Name != "seven" {
		t.Fatalf("header %+v", p.Header)
	}
	if got := p.Warnings.Count(WarnKey); got != 5 {
		t.Errorf("%d key warnings, want 5: %v", got, p.Warnings.List)
	}
	d := p.Header.Methods[3]
	if d.File != "D.java" || d.Line != 42 || p.All.Stats(firstKeyMethod + 3).Inclusive[ClockWall] != 3 {
		t.Errorf("Dalvik line: %+v", d)
	}
	// The first line for id 4 wins, as for a record.
	if p.All.Stats(firstKeyMethod).Calls != 1 || p.Name(firstKeyMethod) != "only.Name" {
		t.Errorf("duplicate id resolved to the wrong line")
	}
}

func TestDistinctUnknownIDsAreBounded(t *testing.T) {
	var data bytes.Buffer
	data.Write([]byte(smallKey))
	data.Write(dataHeader(2, 32, 0))
	const n = maxUnknownIDsKept + 1000
	for i := range n {
		data.Write(record2(1, uint32(0x1000+4*i)|1, uint32(i))) // exits: no stack growth
	}
	p, err := ReadProfile(bytes.NewReader(data.Bytes()), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.UnknownMethodIDs) != maxUnknownIDsKept || p.Warnings.Count(WarnUnknownMethod) != n {
		t.Fatalf("%d ids kept, %d warnings counted", len(p.UnknownMethodIDs), p.Warnings.Count(WarnUnknownMethod))
	}
	if s := p.All.Stats(Unknown); s.Calls != n {
		t.Fatalf("(unknown) has %d calls, want %d", s.Calls, n)
	}
}
