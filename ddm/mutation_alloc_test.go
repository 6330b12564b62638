package ddm

import (
	"errors"
	"strconv"
	"testing"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// REAL's u2 string tables: AppendBody keeps an entry only while every table
// stays within 65535 strings, to the exact limit.

// fillTable returns entries that put exactly n distinct strings in one
// table (0 classes, 1 methods, 2 files) and one string in each other table.
func fillTable(k, n int) []Allocation {
	var out []Allocation
	if k == 0 {
		n-- // the entries' own class "E" is one of them
	}
	for i := 0; i < n; {
		e := Allocation{Size: 8, Class: "E"}
		for d := 0; d < realMaxDepth && i < n; d++ {
			f := AllocFrame{Class: "E", Method: "m", File: "f"}
			s := "s" + strconv.Itoa(i)
			switch k {
			case 0:
				f.Class = s
			case 1:
				f.Method = s
			case 2:
				f.File = s
			}
			e.Frames = append(e.Frames, f)
			i++
		}
		out = append(out, e)
	}
	return out
}

func TestAllocationsTableLimitExact(t *testing.T) {
	for k, name := range []string{"class", "method", "file"} {
		t.Run(name, func(t *testing.T) {
			entries := fillTable(k, realMaxTable-1)
			filled := len(entries)
			// Two frames adding one new string: the table reaches
			// exactly 65535 and the entry is kept.
			last := AllocFrame{Class: "E", Method: "m", File: "f"}
			fit := Allocation{Size: 1, Class: "E"}
			switch k {
			case 0:
				fit.Class, last.Class = "new", "new"
			case 1:
				last.Method = "new"
			case 2:
				last.File = "new"
			}
			fit.Frames = []AllocFrame{last, last}
			// One more new string no longer fits: this entry and the
			// ones after it are not written.
			over := Allocation{Size: 2, Class: "E", Frames: []AllocFrame{{Class: "E", Method: "m", File: "f"}}}
			switch k {
			case 0:
				over.Class = "over"
			case 1:
				over.Frames[0].Method = "over"
			case 2:
				over.Frames[0].File = "over"
			}
			tail := Allocation{Size: 3, Class: "E"}
			entries = append(entries, fit, over, tail)
			body := (&Allocations{Entries: entries}).AppendBody(nil)
			got, err := DecodeAllocations(body)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Entries) != filled+1 {
				t.Fatalf("%d entries written, want %d", len(got.Entries), filled+1)
			}
			if e := got.Entries[filled]; e.Size != 1 || len(e.Frames) != 2 || e.Frames[1] != last {
				t.Fatalf("last entry %+v", e)
			}
			// The table counts in the header.
			counts := [3]int{int(body[9])<<8 | int(body[10]), int(body[11])<<8 | int(body[12]), int(body[13])<<8 | int(body[14])}
			want := [3]int{1, 1, 1}
			want[k] = realMaxTable
			if counts != want {
				t.Fatalf("table counts %v, want %v", counts, want)
			}
		})
	}
}

// String table counts are checked together against the bytes left before
// anything is read: three strings need at least 12 bytes.
func TestAllocationsTableCountsTooLong(t *testing.T) {
	body := hx(
		"0F 09 08  0000  0000000F  0001 0001 0001",
		"00000000 00000000", // two empty strings, not three
	)
	_, err := DecodeAllocations(body)
	var fe *wire.FormatError
	if !errors.As(err, &fe) || !errors.Is(err, wire.ErrTooLong) || fe.Offset != 15 || fe.What != "string table counts" {
		t.Fatalf("got %v, want ErrTooLong for the string table counts at 15", err)
	}
}

// The frames of all entries are stored in one allocation sized by a first
// pass over the entry headers: decoding 10 frames or 166 costs the same
// number of allocations (the string tables are the same).
func TestAllocationsFramesOneAllocation(t *testing.T) {
	mk := func(depth int) []byte {
		var m Allocations
		for i := range 4 {
			e := Allocation{Size: uint32(i), Class: "LA;"}
			for d := range depth + i {
				e.Frames = append(e.Frames, AllocFrame{Class: "LB;", Method: "run", File: "B.java", Line: int16(d)})
			}
			m.Entries = append(m.Entries, e)
		}
		return m.AppendBody(nil)
	}
	shallow, deep := mk(1), mk(40)
	for _, b := range [][]byte{shallow, deep} {
		if _, err := DecodeAllocations(b); err != nil {
			t.Fatal(err)
		}
	}
	a := testing.AllocsPerRun(20, func() { DecodeAllocations(shallow) })
	b := testing.AllocsPerRun(20, func() { DecodeAllocations(deep) })
	if a != b {
		t.Fatalf("%v allocations for 10 frames, %v for 166: the frame store is not allocated once", a, b)
	}
}

// Two entries announced; the first one's depth claims 8 bytes more than
// lie before the string tables. The decoder refuses the depth, and the
// pass that sizes the frame store stops at the tables instead of reading
// a second header past the end of the body.
func TestAllocationsDepthPastTables(t *testing.T) {
	body := hx(
		"0F 09 08  0002  00000028  0001 0001 0001", // 2 entries, tables at 40
		"00000010 0001 0000 03",                    // entry 0: 16 bytes, depth 3 (24 bytes)
		"0000 0000 0000 0001  0000 0000 0000 0002", // 16 bytes before the tables
		"00000000 00000000 00000000",               // one empty string per table
	)
	if len(body) != 52 {
		t.Fatalf("vector is %d bytes", len(body))
	}
	_, err := DecodeAllocations(body)
	var fe *wire.FormatError
	if !errors.As(err, &fe) || !errors.Is(err, wire.ErrTooLong) || fe.What != "stack depth" || fe.Offset != 24 {
		t.Fatalf("got %v, want ErrTooLong for the stack depth at 24", err)
	}
}
