package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// These tests state the exact answers at the format's limits and its error
// paths, so that a changed comparison or offset in record.go fails them
// (docs/TESTING.md, "Mutation testing").

// fileHeader is a version 1 header with compression comp, started at 0.
func fileHeader(comp uint8) []byte {
	return append([]byte("DDMTREC\x01"), comp, 0, 0, 0, 0, 0, 0, 0, 0)
}

// blockOf frames payload as a block: length, CRC-32C, payload.
func blockOf(payload []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, uint32(len(payload)))
	b = binary.BigEndian.AppendUint32(b, crc32.Checksum(payload, crc32.MakeTable(crc32.Castagnoli)))
	return append(b, payload...)
}

// entry is a record as a block holds it: uvarint length, then body.
func entry(body []byte) []byte {
	return append(binary.AppendUvarint(nil, uint64(len(body))), body...)
}

// bigRecord is the body of a gone record at time 0, no key, whose whole
// body is exactly n bytes (n >= 3).
func bigRecord(n int) []byte {
	b := make([]byte, n)
	b[0] = byte(KindGone)
	return b
}

// readErr reads file to its end and returns the records and the error that
// ended it, nil for a clean end.
func readErr(t *testing.T, file []byte) ([]Record, error) {
	t.Helper()
	got, _, err := readAll(file)
	return got, err
}

// wantErr checks err is target with exactly the message msg.
func wantErr(t *testing.T, what string, err, target error, msg string) {
	t.Helper()
	if !errors.Is(err, target) || err.Error() != msg {
		t.Errorf("%s: error %v, want %q (%v)", what, err, msg, target)
	}
}

// TestAddRecordLimit: the writer counts a record as its key and data plus
// the most a kind and two uvarints take (21 bytes); exactly MaxRecord is
// written and read back, one byte more is refused with nothing added.
func TestAddRecordLimit(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, CompressNone, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	over := Record{Kind: KindChunk, Key: "k", Data: make([]byte, MaxRecord-21)}
	err = w.Add(over)
	if err == nil || err.Error() != "record: chunk record of 16777195 bytes exceeds 16777216" || w.Pending() != 0 {
		t.Fatalf("a record of MaxRecord+1 counted bytes: %v, %d pending", err, w.Pending())
	}
	at := Record{Time: 5, Kind: KindChunk, Key: "k", Data: make([]byte, MaxRecord-22)}
	at.Data[len(at.Data)-1] = 0xee
	if err := w.Add(at); err != nil {
		t.Fatalf("a record of exactly MaxRecord counted bytes: %v", err)
	}
	// kind 1 + time 1 + key length 1 + key 1 + data, behind a 4-byte length.
	if want := 4 + 4 + len(at.Data); w.Pending() != want || w.Written() != int64(headerLen) {
		t.Fatalf("pending %d, written %d; want %d, %d", w.Pending(), w.Written(), want, headerLen)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	got, err := readErr(t, buf.Bytes())
	if err != nil || len(got) != 1 || !equal(got[0], at) {
		t.Fatalf("read back %d records, %v", len(got), err)
	}
}

// TestAddFlushesPastHalfBlock: records gather in the open block up to
// exactly MaxBlock/2 bytes; the record that passes it closes the block.
func TestAddFlushesPastHalfBlock(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, CompressNone, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	// Each: a 4-byte length, kind, time 0, key length 0, data: MaxBlock/4.
	quarter := Record{Kind: KindChunk, Data: make([]byte, MaxBlock/4-7)}
	for i := 0; i < 2; i++ {
		if err := w.Add(quarter); err != nil {
			t.Fatal(err)
		}
	}
	if w.Pending() != MaxBlock/2 || w.Written() != int64(headerLen) || buf.Len() != headerLen {
		t.Fatalf("at MaxBlock/2: pending %d, written %d, file %d", w.Pending(), w.Written(), buf.Len())
	}
	last := Record{Time: 9, Kind: KindGone, Data: []byte{'x'}}
	if err := w.Add(last); err != nil {
		t.Fatal(err)
	}
	if want := int64(headerLen + 8 + MaxBlock/2 + 5); w.Pending() != 0 || w.Written() != want || int64(buf.Len()) != want {
		t.Fatalf("past MaxBlock/2: pending %d, written %d, file %d; want 0, %d", w.Pending(), w.Written(), buf.Len(), want)
	}
	got, err := readErr(t, buf.Bytes())
	if err != nil || len(got) != 3 || !equal(got[2], last) || len(got[1].Data) != len(quarter.Data) {
		t.Fatalf("read back %d records, %v", len(got), err)
	}
}

// TestMaxSizeExact: a flush that makes the file exactly MaxSize bytes is
// written; one byte less refuses it, drops the block and keeps refusing.
// MaxSize counts the block as written, compressed for zstd.
func TestMaxSizeExact(t *testing.T) {
	rec := Record{Time: 300, Kind: KindGone, Key: "k", Data: bytes.Repeat([]byte("bye"), 40)}
	for _, comp := range []uint8{CompressNone, CompressZstd} {
		whole, _ := write(t, comp, []Record{rec}, 1)
		size := int64(len(whole))
		if comp == CompressNone && size != int64(headerLen+8+1+1+2+1+1+len(rec.Data)) {
			t.Fatalf("uncompressed file of %d bytes", size)
		}
		if comp == CompressZstd && size >= int64(headerLen+8+len(rec.Data)) {
			t.Fatalf("zstd file of %d bytes: not compressed", size)
		}
		for _, limit := range []int64{size, size - 1} {
			var buf bytes.Buffer
			w, err := NewWriter(&buf, comp, time.Unix(1700000000, 5))
			if err != nil {
				t.Fatal(err)
			}
			w.MaxSize = limit
			if err := w.Add(rec); err != nil {
				t.Fatal(err)
			}
			err = w.Flush()
			if limit == size {
				if err != nil || w.Written() != size || !bytes.Equal(buf.Bytes(), whole) {
					t.Fatalf("comp %d, MaxSize = the file: %v, written %d of %d", comp, err, w.Written(), size)
				}
				continue
			}
			if !errors.Is(err, ErrFull) || w.Written() != int64(headerLen) || buf.Len() != headerLen || w.Pending() != 0 {
				t.Fatalf("comp %d, MaxSize one short: %v, written %d, file %d, pending %d", comp, err, w.Written(), buf.Len(), w.Pending())
			}
			if err := w.Add(rec); !errors.Is(err, ErrFull) {
				t.Fatalf("comp %d: Add after full: %v", comp, err)
			}
			if err := w.Flush(); err != nil {
				t.Fatalf("comp %d: Flush with nothing pending after full: %v", comp, err)
			}
		}
	}
}

// TestNegativeTimeWrittenAsZero: a record from before the recording's start
// is stamped 0.
func TestNegativeTimeWrittenAsZero(t *testing.T) {
	file, _ := write(t, CompressNone, []Record{{Time: -time.Second, Kind: KindState, Key: "k"}}, 1)
	got, err := readErr(t, file)
	if err != nil || len(got) != 1 || got[0].Time != 0 || got[0].Key != "k" {
		t.Fatalf("%+v, %v", got, err)
	}
}

// TestHeaderRefusals: every way a header is refused, with its message.
func TestHeaderRefusals(t *testing.T) {
	start := fileHeader(CompressZstd)
	binary.BigEndian.PutUint64(start[9:], 0x0102030405060708)
	rd, err := NewReader(bytes.NewReader(start))
	if err != nil {
		t.Fatal(err)
	}
	if rd.Header.Version != 1 || rd.Header.Compression != CompressZstd || rd.Header.Start.UnixNano() != 0x0102030405060708 {
		t.Errorf("header %+v", rd.Header)
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Errorf("a recording of only a header: %v", err)
	}
	rd.Close()

	for _, c := range []struct {
		in  []byte
		msg string
	}{
		{nil, "record: empty file"},
		{[]byte{}, "record: empty file"},
		{[]byte("D"), "record: recording ends in the middle of a block (in the header)"},
		{fileHeader(0)[:headerLen-1], "record: recording ends in the middle of a block (in the header)"},
		{append([]byte("DDMTREX"), fileHeader(0)[7:]...), "record: not a ddmtui recording"},
		{append([]byte("DDMTREC\x00"), fileHeader(0)[8:]...), "record: version 0, this ddmtui reads version 1"},
		{append([]byte("DDMTREC\x02"), fileHeader(0)[8:]...), "record: version 2, this ddmtui reads version 1"},
		{fileHeader(2), "record: unknown compression 2"},
	} {
		_, err := NewReader(bytes.NewReader(c.in))
		if err == nil || err.Error() != c.msg {
			t.Errorf("header %q: %v, want %q", c.in, err, c.msg)
		}
		if truncated := strings.Contains(c.msg, "middle"); errors.Is(err, ErrTruncated) != truncated {
			t.Errorf("header %q: errors.Is(ErrTruncated) = %v", c.in, !truncated)
		}
	}
	if _, err := NewWriter(io.Discard, 2, time.Now()); err == nil || err.Error() != "record: unknown compression 2" {
		t.Errorf("NewWriter compression 2: %v", err)
	}
}

// TestBlockRefusals: a block's header, length, bytes and checksum, each
// wrong after a good block, end the recording with that block's offset;
// the good block's record comes first.
func TestBlockRefusals(t *testing.T) {
	good := blockOf(entry([]byte{byte(KindGone), 7, 1, 'k', 'x'}))
	second := int64(headerLen + len(good)) // 17 + 8 + 6 = 31
	payload := entry([]byte{byte(KindGone), 0, 0, 'y'})
	badCRC := blockOf(payload)
	badCRC[4] ^= 1
	for _, c := range []struct {
		name   string
		block  []byte
		target error
		msg    string
	}{
		{"block header cut", []byte{0, 0, 0}, ErrTruncated,
			"record: recording ends in the middle of a block (3 of 8 header bytes at offset 31)"},
		{"block of 0 bytes", []byte{0, 0, 0, 0, 0, 0, 0, 0}, ErrCorrupt,
			"record: damaged block at offset 31: block of 0 bytes"},
		{"block of MaxBlock+1", binary.BigEndian.AppendUint32(nil, MaxBlock+1), ErrCorrupt,
			"record: damaged block at offset 31: block of 33554433 bytes"},
		{"payload cut", blockOf(payload)[:8+len(payload)-1], ErrTruncated,
			"record: recording ends in the middle of a block: 4 of 5 bytes of the block at offset 31"},
		{"checksum", badCRC, ErrCorrupt, "record: damaged block at offset 31: checksum"},
	} {
		file := append(append(fileHeader(CompressNone), good...), c.block...)
		if c.name == "block of MaxBlock+1" {
			file = append(file, 0, 0, 0, 0)
		}
		got, err := readErr(t, file)
		if len(got) != 1 || got[0].Key != "k" || got[0].Time != 7 || string(got[0].Data) != "x" {
			t.Errorf("%s: records before %+v", c.name, got)
		}
		wantErr(t, c.name, err, c.target, strings.Replace(c.msg, "31", itoa(second), 1))
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// TestRecordRefusals: each field of a record cut or out of range, in the
// second block, is refused with the field named and that block's offset.
func TestRecordRefusals(t *testing.T) {
	good := blockOf(entry([]byte{byte(KindGone), 7, 1, 'k', 'x'}))
	kind := byte(KindGone)
	for _, c := range []struct {
		name    string
		payload []byte
		what    string
	}{
		{"length cut", []byte{0x80}, "record length"},
		{"length over the block", []byte{3, kind, 0}, "record length"},
		{"empty record", []byte{0}, "empty record"},
		{"kind only", []byte{1, kind}, "record time"},
		{"time cut", []byte{2, kind, 0x80}, "record time"},
		{"time 2^62+1", entry(append(binary.AppendUvarint([]byte{kind}, 1<<62+1), 0)), "record time"},
		{"no key length", []byte{2, kind, 0}, "record key"},
		{"key length cut", []byte{3, kind, 0, 0x80}, "record key"},
		{"key over the record", []byte{4, kind, 0, 2, 'k', 9, 9}, "record key"},
	} {
		// Another record after the bad one: it must not be read.
		payload := append(c.payload, entry([]byte{kind, 0, 0})...)
		if c.name == "length over the block" || c.name == "length cut" {
			payload = c.payload
		}
		file := append(append(append(fileHeader(CompressNone), good...), blockOf(payload)...), good...)
		got, err := readErr(t, file)
		if len(got) != 1 || got[0].Key != "k" {
			t.Errorf("%s: records %+v", c.name, got)
		}
		wantErr(t, c.name, err, ErrCorrupt, "record: damaged block at offset 31: "+c.what)
	}
}

// TestRecordFieldsAtTheirEnds: a key that ends its record (no data), a time
// of exactly 2^62 and a record that ends its block are read.
func TestRecordFieldsAtTheirEnds(t *testing.T) {
	kind := byte(KindGone)
	payload := entry([]byte{kind, 3, 2, 'k', 'y'})
	payload = append(payload, entry(append(binary.AppendUvarint([]byte{kind}, 1<<62), 0, 'z'))...)
	file := append(fileHeader(CompressNone), blockOf(payload)...)
	got, err := readErr(t, file)
	want := []Record{{Time: 3, Kind: KindGone, Key: "ky", Data: []byte{}}, {Time: 1 << 62, Kind: KindGone, Data: []byte{'z'}}}
	if err != nil || len(got) != 2 || !equal(got[0], want[0]) || !equal(got[1], want[1]) {
		t.Fatalf("%+v, %v", got, err)
	}
}

// TestBlockOfMaxBlock: a block of exactly MaxBlock bytes holding a record of
// exactly MaxRecord is read, uncompressed and (decompressed to that size)
// zstd; a zstd block decompressing to one byte more is damaged.
func TestBlockOfMaxBlock(t *testing.T) {
	first := entry(bigRecord(MaxRecord))
	first[len(first)-1] = 0xaa
	payload := append(first, entry(bigRecord(MaxBlock-len(first)-4))...)
	payload[len(payload)-1] = 0xbb
	if len(payload) != MaxBlock {
		t.Fatalf("payload of %d bytes", len(payload))
	}
	check := func(name string, file []byte) {
		t.Helper()
		got, err := readErr(t, file)
		if err != nil || len(got) != 2 || len(got[0].Data) != MaxRecord-3 || got[0].Data[MaxRecord-4] != 0xaa ||
			len(got[1].Data) != MaxRecord-4-3-4 || got[1].Data[len(got[1].Data)-1] != 0xbb {
			t.Fatalf("%s: %d records, %v", name, len(got), err)
		}
	}
	check("none", append(fileHeader(CompressNone), blockOf(payload)...))

	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	check("zstd", append(fileHeader(CompressZstd), blockOf(enc.EncodeAll(payload, nil))...))

	// One more byte: the record's data, and its length, one larger.
	payload = append(payload, 0)
	copy(payload[len(first):], entry(bigRecord(MaxBlock-len(first)-4+1)))
	file := append(fileHeader(CompressZstd), blockOf(enc.EncodeAll(payload, nil))...)
	got, err := readErr(t, file)
	if len(got) != 0 || !errors.Is(err, ErrCorrupt) || !strings.HasPrefix(err.Error(), "record: damaged block at offset 17: ") {
		t.Fatalf("zstd block of MaxBlock+1: %d records, %v", len(got), err)
	}
}

// TestRecordOverMaxRecord: a record one byte over MaxRecord, in a block
// that holds it, is damaged.
func TestRecordOverMaxRecord(t *testing.T) {
	file := append(fileHeader(CompressNone), blockOf(entry(bigRecord(MaxRecord+1)))...)
	got, err := readErr(t, file)
	if len(got) != 0 {
		t.Fatalf("%d records", len(got))
	}
	wantErr(t, "MaxRecord+1", err, ErrCorrupt, "record: damaged block at offset 17: record length")
}

// TestCorruptOffsetsAcrossBlocks: the offset said is the damaged block's,
// counted over the blocks before it, compressed or not.
func TestCorruptOffsetsAcrossBlocks(t *testing.T) {
	for _, comp := range []uint8{CompressNone, CompressZstd} {
		file, ends := write(t, comp, sample(40), 10)
		for b := 0; b < 3; b++ {
			bad := bytes.Clone(file)
			bad[ends[b]+5] ^= 0x01 // the CRC of block b+1
			got, err := readErr(t, bad)
			if len(got) != 10*(b+1) {
				t.Errorf("comp %d block %d: %d records", comp, b+1, len(got))
			}
			wantErr(t, "checksum", err, ErrCorrupt, "record: damaged block at offset "+itoa(int64(ends[b]))+": checksum")
		}
	}
}
