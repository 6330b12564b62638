package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/logcat"
)

func sample(n int) []Record {
	var out []Record
	for i := 0; i < n; i++ {
		out = append(out, Record{
			Time: time.Duration(i) * 37 * time.Millisecond,
			Kind: Kind(1 + i%8),
			Key:  fmt.Sprintf("adb:emulator-5554:%d", 1000+i%5),
			Data: bytes.Repeat([]byte{byte(i), 'T', 'H', 'S', 'T'}, i%50),
		})
	}
	return out
}

// write records in blocks of blockLen and returns the file and the offsets
// where each block ends.
func write(t testing.TB, comp uint8, recs []Record, blockLen int) ([]byte, []int) {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, comp, time.Unix(1700000000, 5))
	if err != nil {
		t.Fatal(err)
	}
	var ends []int
	for i, r := range recs {
		if err := w.Add(r); err != nil {
			t.Fatal(err)
		}
		if (i+1)%blockLen == 0 {
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			ends = append(ends, buf.Len())
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if w.Written() != int64(buf.Len()) {
		t.Fatalf("Written %d, file %d", w.Written(), buf.Len())
	}
	return buf.Bytes(), ends
}

func readAll(b []byte) ([]Record, Header, error) {
	rd, err := NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, Header{}, err
	}
	defer rd.Close()
	var out []Record
	for {
		r, err := rd.Next()
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return out, rd.Header, err
		}
		r.Data = bytes.Clone(r.Data)
		out = append(out, r)
	}
}

func equal(a, b Record) bool {
	return a.Time == b.Time && a.Kind == b.Kind && a.Key == b.Key && bytes.Equal(a.Data, b.Data)
}

func TestRoundTrip(t *testing.T) {
	recs := sample(500)
	for _, comp := range []uint8{CompressNone, CompressZstd} {
		file, _ := write(t, comp, recs, 64)
		got, h, err := readAll(file)
		if err != nil || len(got) != len(recs) {
			t.Fatalf("comp %d: %d records, %v", comp, len(got), err)
		}
		for i := range recs {
			if !equal(got[i], recs[i]) {
				t.Fatalf("comp %d: record %d = %+v, want %+v", comp, i, got[i], recs[i])
			}
		}
		if h.Version != 1 || h.Compression != comp || !h.Start.Equal(time.Unix(1700000000, 5)) {
			t.Fatalf("header %+v", h)
		}
	}
}

// TestHeaderBytes pins the header layout docs/RECORDING.md gives.
func TestHeaderBytes(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, CompressNone, time.Unix(0, 0x0102030405060708))
	w.Add(Record{Time: 300, Kind: KindGone, Key: "k", Data: []byte("bye")})
	w.Flush()
	want := []byte("DDMTREC\x01\x00\x01\x02\x03\x04\x05\x06\x07\x08" +
		"\x00\x00\x00\x09" + // block length: 9
		"\x00\x00\x00\x00" + // CRC-32C, checked below
		"\x08\x05\xac\x02\x01kbye") // record: length 8, kind 5, time 300 (uvarint ac 02), key length 1, key, data
	got := buf.Bytes()
	if len(got) != len(want) || !bytes.Equal(got[:21], want[:21]) || !bytes.Equal(got[25:], want[25:]) {
		t.Fatalf("file\n got %x\nwant %x", got, want)
	}
	if crc := got[21:25]; binary.BigEndian.Uint32(crc) != crc32c(got[25:]) {
		t.Fatalf("CRC-32C of the block %x, want %08x", crc, crc32c(got[25:]))
	}
}

// crc32c is a bit-by-bit CRC-32C (Castagnoli, reflected polynomial
// 0x82F63B78), independent of the table the package uses.
func crc32c(b []byte) uint32 {
	c := ^uint32(0)
	for _, x := range b {
		c ^= uint32(x)
		for i := 0; i < 8; i++ {
			if c&1 != 0 {
				c = c>>1 ^ 0x82F63B78
			} else {
				c >>= 1
			}
		}
	}
	return ^c
}

// TestTruncatedReadsWholeBlocks: cut anywhere, a recording gives exactly the
// records of the blocks that are whole, then ErrTruncated.
func TestTruncatedReadsWholeBlocks(t *testing.T) {
	recs := sample(60)
	for _, comp := range []uint8{CompressNone, CompressZstd} {
		file, ends := write(t, comp, recs, 10)
		for cut := headerLen; cut < len(file); cut++ {
			got, _, err := readAll(file[:cut])
			whole := 0
			for _, e := range ends {
				if e <= cut {
					whole += 10
				}
			}
			if len(got) != whole {
				t.Fatalf("comp %d cut %d: %d records, want %d (%v)", comp, cut, len(got), whole, err)
			}
			atEnd := cut == headerLen
			for _, e := range ends {
				atEnd = atEnd || e == cut
			}
			if atEnd && err != nil || !atEnd && !errors.Is(err, ErrTruncated) {
				t.Fatalf("comp %d cut %d: %v", comp, cut, err)
			}
		}
	}
}

func TestCorruptBlockStops(t *testing.T) {
	recs := sample(30)
	file, ends := write(t, CompressZstd, recs, 10)
	bad := bytes.Clone(file)
	bad[ends[0]+12] ^= 0x40 // inside the second block's payload
	got, _, err := readAll(bad)
	if len(got) != 10 || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("%d records, %v", len(got), err)
	}
	for _, b := range [][]byte{nil, []byte("DDMTREC"), []byte("NOTAREC\x01\x00........"), []byte("DDMTREC\x09\x00........"), []byte("DDMTREC\x01\x07........")} {
		if _, err := NewReader(bytes.NewReader(b)); err == nil {
			t.Errorf("header %q accepted", b)
		}
	}
}

func TestMaxSizeStops(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewWriter(&buf, CompressNone, time.Now())
	w.MaxSize = 200
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		if err = w.Add(Record{Kind: KindChunk, Key: "k", Data: make([]byte, 40)}); err == nil {
			err = w.Flush()
		}
	}
	if !errors.Is(err, ErrFull) || buf.Len() > 200 {
		t.Fatalf("%v, %d bytes", err, buf.Len())
	}
	if got, _, rerr := readAll(buf.Bytes()); rerr != nil || len(got) == 0 {
		t.Fatalf("a full recording reads %d records, %v", len(got), rerr)
	}
	if err := w.Add(Record{Kind: KindGone}); !errors.Is(err, ErrFull) {
		t.Fatalf("Add after full: %v", err)
	}
}

// logRecord is a device log record as monitor writes it (docs/RECORDING.md,
// kind log): no key; the device's name, then logd's v4 entry.
func logRecord(t testing.TB) Record {
	e := logcat.Entry{Time: time.Unix(1700000000, 42), PID: 4242, TID: 4250, UID: 10061, Priority: logcat.Warn, Tag: "app", Message: "hello"}
	data := append([]byte{17}, "adb:emulator-5554"...)
	data, err := logcat.AppendBinary(data, &e, logcat.HeaderV4Size)
	if err != nil {
		t.Fatal(err)
	}
	return Record{Time: 3 * time.Second, Kind: KindLog, Data: data}
}

func FuzzReader(f *testing.F) {
	file, _ := write(f, CompressZstd, sample(20), 7)
	f.Add(file)
	plain, _ := write(f, CompressNone, sample(12), 5)
	f.Add(plain)
	f.Add(plain[:len(plain)-3])
	logFile, _ := write(f, CompressNone, []Record{logRecord(f)}, 1)
	f.Add(logFile)
	f.Fuzz(func(t *testing.T, b []byte) {
		rd, err := NewReader(bytes.NewReader(b))
		if err != nil {
			return
		}
		defer rd.Close()
		for i := 0; i < 1<<16; i++ {
			r, err := rd.Next()
			if err != nil {
				return
			}
			if len(r.Data) > MaxRecord || len(r.Key) > MaxRecord {
				t.Fatalf("record over the bound: %d", len(r.Data))
			}
		}
	})
}
