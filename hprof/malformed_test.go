package hprof

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// Malformed input gives a FormatError at the offset of the bad field (or
// where the data ended), after the records before it were returned.
func TestReaderMalformed(t *testing.T) {
	android := func(records ...[]byte) []byte { return fileBytes(VersionAndroid, 4, records...) }
	seg := func(subs ...[]byte) []byte { return android(rec(TagHeapDumpSegment, 0, subs...)) }
	const body = 31 + 9 // first record body
	cd := func(tail []byte) []byte {
		return newRaw().u1(0x20).b(make([]byte, 36)...).b(tail...).bytes()
	}
	for _, tc := range []struct {
		name    string
		in      []byte
		off     int
		records int   // returned before the error
		is      error // wrapped sentinel, when there is one
		msg     string
	}{
		{"empty", nil, 0, 0, wire.ErrShort, "no NUL"},
		{"version without NUL", []byte("JAVA PROFILE 1.0.3"), 18, 0, wire.ErrShort, "no NUL"},
		{"endless version", bytes.Repeat([]byte("J"), 100), 0, 0, ErrUnknownVersion, "first 64 bytes"},
		{"unknown version", fileBytes("JAVA PROFILE 1.0.4", 4), 0, 0, ErrUnknownVersion, `"JAVA PROFILE 1.0.4"`},
		{"truncated header", fileBytes(VersionAndroid, 4)[:24], 24, 0, wire.ErrShort, "5 of 12 bytes"},
		{"identifier size", fileBytes(VersionAndroid, 2), 19, 0, nil, "2 is not 4 or 8"},
		{"truncated record header", append(android(), 0x01, 0, 0), 34, 0, wire.ErrShort, "3 of 9 bytes"},
		{"record length past the end", android(rec(TagString, 0, id4(1), []byte("abc")))[:body+5], body + 5, 0, wire.ErrShort, "5 of 7 bytes"},
		{"huge record length", android(newRaw().u1(0x01).u4(0).u4(0xFFFFFFF0).u4(1).bytes()), body + 4, 0, wire.ErrShort, "4 of 4294967280 bytes"},
		{"load class too short", android(rec(TagLoadClass, 0, []byte{0, 0, 0, 1, 0})), body + 4, 0, wire.ErrShort, "class id"},
		{"load class too long", android(rec(TagLoadClass, 0, make([]byte, 17))), body + 16, 0, wire.ErrTrailing, "LOAD CLASS"},
		{"stack trace count", android(rec(TagStackTrace, 0, newRaw().u4(1).u4(1).u4(1000).u4(5).bytes())), body + 12, 0, wire.ErrTooLong, "stack trace frames"},
		{"unknown sub-record", seg(newRaw().u1(0xFF).u4(1).bytes(), []byte{0x55, 1, 2, 3, 4}), body + 5, 2, nil, "unknown tag 0x55"},
		{"sub-record past its record", seg([]byte{0x8E, 0, 0, 0, 1, 0, 0}), body + 5, 1, wire.ErrShort, "root thread serial"},
		{"instance data past its record", seg(newRaw().u1(0x21).u4(1).u4(0).u4(2).u4(3).b(1, 2).bytes()), body + 17, 1, wire.ErrTooLong, "instance data"},
		{"object array past its record", seg(newRaw().u1(0x22).u4(1).u4(0).u4(2).u4(9).u4(1).bytes()), body + 17, 1, wire.ErrTooLong, "object array elements"},
		{"primitive array past its record", seg(newRaw().u1(0x23).u4(1).u4(0).u4(3).u1(10).u4(1).bytes()), body + 14, 1, wire.ErrTooLong, "primitive array elements"},
		{"primitive array of objects", seg(newRaw().u1(0x23).u4(1).u4(0).u4(1).u1(2).u4(1).bytes()), body + 13, 1, nil, "invalid basic type 2"},
		{"nodata of type 12", seg(newRaw().u1(0xC3).u4(1).u4(0).u4(1).u1(12).bytes()), body + 13, 1, nil, "invalid basic type 12"},
		{"constant type 3", seg(cd(newRaw().u2(1).u2(1).u1(3).u4(0).bytes())), body + 41, 1, nil, "constant type"},
		{"static field type 0", seg(cd(newRaw().u2(0).u2(1).u4(7).u1(0).u1(0).bytes())), body + 45, 1, nil, "static field type"},
		{"instance field type 1", seg(cd(newRaw().u2(0).u2(0).u2(1).u4(7).u1(1).bytes())), body + 47, 1, nil, "instance field type"},
		{"field count past the record", seg(cd(newRaw().u2(0).u2(0).u2(9).u4(7).u1(10).bytes())), body + 43, 1, wire.ErrTooLong, "instance fields"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(tc.in))
			n := 0
			if err == nil {
				for {
					_, err = r.Next()
					if err != nil {
						break
					}
					n++
				}
				if err == io.EOF {
					t.Fatalf("read %d records without an error", n)
				}
				if _, again := r.Next(); again != err {
					t.Errorf("error not sticky: %v, then %v", err, again)
				}
			}
			formatErr(t, err, tc.off)
			if n != tc.records {
				t.Errorf("%d records before the error, want %d", n, tc.records)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("%v does not wrap %v", err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("error %q does not mention %q", err, tc.msg)
			}
			if _, serr := Summarize(bytes.NewReader(tc.in)); serr == nil || serr.Error() != err.Error() {
				t.Errorf("Summarize: %v, want %v", serr, err)
			}
		})
	}
}

// A record length is a claim: a file that claims a 4 GiB record and ends
// allocates about what it holds, not what it claims.
func TestHugeLengthDoesNotAllocate(t *testing.T) {
	in := fileBytes(VersionAndroid, 4, newRaw().u1(0x1C).u4(0).u4(0xFFFFFFFF).bytes(), make([]byte, 1<<20))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range 4 {
		if _, err := readErr(t, in); !errors.Is(err, wire.ErrShort) {
			t.Fatalf("err %v", err)
		}
		if err := Convert(io.Discard, bytes.NewReader(in), ConvertOptions{}); !errors.Is(err, wire.ErrShort) {
			t.Fatalf("convert: %v", err)
		}
	}
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 8*4*(2<<20) {
		t.Errorf("allocated %d bytes for 8 reads of a 1 MiB body claiming 4 GiB", got)
	}
}

// Every prefix of a valid file is either a clean end (at a record
// boundary) or a FormatError at or before the cut; never a panic.
func TestEveryTruncation(t *testing.T) {
	full := synthBytes(t, Synth{Seed: 4, Classes: 2, Instances: 8, Arrays: 4, MaxArrayLength: 4, NoData: true})
	boundaries := map[int]bool{}
	r, _ := NewReader(bytes.NewReader(full))
	for {
		if _, err := r.Next(); err != nil {
			break
		}
		info := r.RecordInfo()
		boundaries[int(info.Offset)] = true
		boundaries[int(info.Offset)+recordHeaderLen+int(info.Length)] = true
	}
	for cut := range len(full) {
		in := full[:cut]
		_, err := readErr(t, in)
		cerr := Convert(io.Discard, bytes.NewReader(in), ConvertOptions{})
		if cut >= 31 && boundaries[cut] {
			if err != nil || cerr != nil {
				t.Fatalf("cut at record boundary %d: %v; convert: %v", cut, err, cerr)
			}
			continue
		}
		var fe *FormatError
		if !errors.As(err, &fe) || fe.Offset > cut {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		if !errors.As(cerr, &fe) || fe.Offset > cut {
			t.Fatalf("convert cut at %d: %v", cut, cerr)
		}
	}
}
