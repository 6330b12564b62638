package logcat

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Byte-exact records, one per header version, written out field by field
// from liblog's struct logger_entry layouts.
var binaryVectors = []struct {
	name string
	hdr  int
	opts BinaryOptions
	hex  string
	want Entry
}{
	{
		name: "v1 20-byte header (kernel logger, __pad 0)",
		hdr:  HeaderV1Size,
		hex: "0d00 0000" + // len 13, __pad
			"d2040000 d8040000" + // pid 1234, tid 1240
			"00f15365 15cd5b07" + // sec 1700000000, nsec 123456789
			"03 4d7941707000 68656c6c6f00", // D "MyApp\0" "hello\0"
		want: Entry{PID: 1234, TID: 1240, UID: -1, Buffer: Main, Priority: Debug, Tag: "MyApp", Message: "hello",
			Time: time.Unix(1700000000, 123456789)},
	},
	{
		name: "v2 24-byte header read as euid",
		hdr:  HeaderV3Size,
		opts: BinaryOptions{Header24IsEUID: true},
		hex: "0d00 1800" +
			"d2040000 d8040000 00f15365 15cd5b07" +
			"e8030000" + // euid 1000
			"05 4d7941707000 68656c6c6f00",
		want: Entry{PID: 1234, TID: 1240, UID: 1000, Buffer: Main, Priority: Warn, Tag: "MyApp", Message: "hello",
			Time: time.Unix(1700000000, 123456789)},
	},
	{
		name: "v3 24-byte header with lid",
		hdr:  HeaderV3Size,
		hex: "0d00 1800" +
			"d2040000 d8040000 00f15365 15cd5b07" +
			"03000000" + // lid 3 (system)
			"06 4d7941707000 68656c6c6f00",
		want: Entry{PID: 1234, TID: 1240, UID: -1, Buffer: System, Priority: Error, Tag: "MyApp", Message: "hello",
			Time: time.Unix(1700000000, 123456789)},
	},
	{
		name: "v4 28-byte header with lid and uid",
		hdr:  HeaderV4Size,
		hex: "0f00 1c00" + // len 15, hdr_size 28
			"d2040000 d8040000 00f15365 15cd5b07" +
			"04000000 2a270000" + // lid 4 (crash), uid 10026
			"07 4d7941707000 6f6e650a74776f00", // F "MyApp\0" "one\ntwo\0"
		want: Entry{PID: 1234, TID: 1240, UID: 10026, Buffer: Crash, Priority: Fatal, Tag: "MyApp", Message: "one\ntwo",
			Time: time.Unix(1700000000, 123456789)},
	},
	{
		name: "v4, message cut by logd (no final NUL), non-ASCII",
		hdr:  HeaderV4Size,
		hex: "0900 1c00" +
			"01000000 02000000 00000000 00000000" +
			"00000000 00000000" +
			"04 5400 c3a9c3a8c3a4", // I "T\0" "éèä" without NUL
		want: Entry{PID: 1, TID: 2, UID: 0, Buffer: Main, Priority: Info, Tag: "T", Message: "éèä", Flags: FlagTruncated,
			Time: time.Unix(0, 0)},
	},
}

func TestBinaryVectors(t *testing.T) {
	for _, v := range binaryVectors {
		t.Run(v.name, func(t *testing.T) {
			b := unhex(t, v.hex)
			e, n, err := DecodeBinary(b, v.opts)
			if err != nil {
				t.Fatal(err)
			}
			if n != len(b) {
				t.Errorf("consumed %d of %d bytes", n, len(b))
			}
			if !sameEntry(e, v.want) {
				t.Errorf("decoded\n %+v\nwant\n %+v", e, v.want)
			}
			if v.opts.Header24IsEUID {
				return // the encoder writes v3's lid in that slot
			}
			enc, err := AppendBinary(nil, &v.want, v.hdr)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(enc, b) {
				t.Errorf("encoded\n %x\nwant\n %x", enc, b)
			}
		})
	}
}

func sameEntry(a, b Entry) bool {
	return a.Time.Equal(b.Time) && a.PID == b.PID && a.TID == b.TID && a.UID == b.UID && a.Buffer == b.Buffer &&
		a.Priority == b.Priority && a.Tag == b.Tag && a.Message == b.Message && a.Flags == b.Flags && a.App == b.App
}

func TestBinaryRoundTripStream(t *testing.T) {
	var stream []byte
	var want []Entry
	base := time.Unix(1763900000, 0)
	for i := 0; i < 300; i++ {
		hdr := []int{HeaderV1Size, HeaderV3Size, HeaderV4Size}[i%3]
		e := Entry{PID: int32(1000 + i%7), TID: int32(2000 + i), UID: -1, Priority: Priority(2 + i%6),
			Tag: []string{"ActivityManager", "My Tag", "日本"}[i%3], Message: strings.Repeat("x", i) + "\nline2",
			Time: base.Add(time.Duration(i) * 1234567 * time.Nanosecond)}
		if hdr >= HeaderV3Size {
			e.Buffer = []LogID{Main, System, Crash}[i%3]
		}
		if hdr == HeaderV4Size {
			e.UID = int32(10000 + i)
		}
		var err error
		stream, err = AppendBinary(stream, &e, hdr)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, e)
	}
	d := NewBinaryDecoder(iotestHalf(stream), BinaryOptions{})
	for i := range want {
		var e Entry
		if err := d.Next(&e); err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if !sameEntry(e, want[i]) {
			t.Fatalf("entry %d:\n %+v\nwant\n %+v", i, e, want[i])
		}
	}
	var e Entry
	if err := d.Next(&e); err != io.EOF {
		t.Fatalf("after the last entry: %v, want EOF", err)
	}
	if d.Offset() != int64(len(stream)) {
		t.Errorf("offset %d, want %d", d.Offset(), len(stream))
	}
}

// iotestHalf reads at most 7 bytes at a time, to split records across reads.
func iotestHalf(b []byte) io.Reader { return &smallReader{b: b} }

type smallReader struct{ b []byte }

func (r *smallReader) Read(p []byte) (int, error) {
	if len(r.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), 7)], r.b)
	r.b = r.b[n:]
	return n, nil
}

func TestBinaryRejects(t *testing.T) {
	good := unhex(t, binaryVectors[3].hex)
	patch := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	cases := []struct {
		name    string
		b       []byte
		payload bool // a PayloadError: the stream stays aligned
		want    error
	}{
		{"hdr_size 26", patch(func(b []byte) []byte { b[2] = 26; return b }), false, ErrHeaderSize},
		{"len beyond 5120", patch(func(b []byte) []byte { b[0], b[1] = 0xf0, 0x13; return b }), false, ErrEntryTooLong},
		{"stream ends inside payload", good[:len(good)-1], false, ErrTruncated},
		{"stream ends inside header", good[:3], false, ErrTruncated},
		{"nsec 1e9", patch(func(b []byte) []byte { copy(b[16:], []byte{0x00, 0xca, 0x9a, 0x3b}); return b }), true, ErrNanoseconds},
		{"lid 16", patch(func(b []byte) []byte { b[20] = 16; return b }), true, ErrLogID},
		{"tag without NUL", patch(func(b []byte) []byte {
			for i := 28; i < len(b); i++ {
				if b[i] == 0 {
					b[i] = 'x'
				}
			}
			return b
		}), true, ErrTagUnterminated},
		{"bytes after the message NUL", patch(func(b []byte) []byte { b[len(b)-3] = 0; return b }), true, ErrTrailingBytes},
		{"payload of 2 bytes", unhex(t, "0200 1c00 01000000 02000000 00000000 00000000 00000000 00000000 0400"), true, ErrShortPayload},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, n, err := DecodeBinary(c.b, BinaryOptions{})
			if !errors.Is(err, c.want) {
				t.Fatalf("err %v, want %v", err, c.want)
			}
			var pe *PayloadError
			var fe *FormatError
			if c.payload {
				if !errors.As(err, &pe) || n != len(c.b) {
					t.Fatalf("want a PayloadError consuming %d bytes; got %T, n=%d", len(c.b), err, n)
				}
			} else if !errors.As(err, &fe) {
				t.Fatalf("want a FormatError, got %T", err)
			}
		})
	}
}

func TestBinaryDecoderSkipsBadPayload(t *testing.T) {
	good := unhex(t, binaryVectors[3].hex)
	bad := append([]byte(nil), good...)
	bad[16], bad[17], bad[18], bad[19] = 0x00, 0xca, 0x9a, 0x3b // nsec 1e9
	d := NewBinaryDecoder(bytes.NewReader(append(append(append([]byte(nil), good...), bad...), good...)), BinaryOptions{})
	var e Entry
	if err := d.Next(&e); err != nil {
		t.Fatal(err)
	}
	var pe *PayloadError
	if err := d.Next(&e); !errors.As(err, &pe) || pe.Offset != int64(len(good)) || pe.PID != 1234 {
		t.Fatalf("second entry: %v", err)
	}
	if err := d.Next(&e); err != nil || e.Message != "one\ntwo" {
		t.Fatalf("third entry: %v %q", err, e.Message)
	}
}

func TestAppendBinaryBounds(t *testing.T) {
	e := Entry{Tag: "t", Message: strings.Repeat("m", MaxEntryLen)}
	if _, err := AppendBinary(nil, &e, HeaderV4Size); !errors.Is(err, ErrEntryTooLong) {
		t.Fatalf("oversized entry: %v", err)
	}
	if _, err := AppendBinary(nil, &Entry{Tag: "a\x00b"}, HeaderV4Size); err == nil {
		t.Fatal("a NUL in the tag was encoded")
	}
	if _, err := AppendBinary(nil, &Entry{}, 32); !errors.Is(err, ErrHeaderSize) {
		t.Fatalf("header 32: %v", err)
	}
}
