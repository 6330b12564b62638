package ddm

import (
	"testing"
)

// ParseThreadStatusEntries reads what DecodeThreadStatusTable decodes, for
// every header and entry size, and refuses what it refuses with the same
// error.
func TestThreadStatusEntriesMatchDecode(t *testing.T) {
	threads := []ThreadStatus{
		{ID: 1, Status: 3, SysTID: 0x01020304, UTime: 0xFFFFFFFF, STime: 7, Daemon: true},
		{ID: 0x80000001, Status: -1, SysTID: 9, UTime: 0, STime: 0x10000, Daemon: false},
		{ID: 5, Status: 127, SysTID: 10, UTime: 1, STime: 2, Daemon: true},
	}
	for _, sizes := range [][2]uint8{{4, 18}, {4, 17}, {6, 24}, {4, 255}} {
		body := (&ThreadStatusTable{HeaderLen: sizes[0], EntryLen: sizes[1], Threads: threads}).AppendBody(nil)
		m, err := DecodeThreadStatusTable(body)
		if err != nil {
			t.Fatal(err)
		}
		e, err := ParseThreadStatusEntries(body)
		if err != nil {
			t.Fatal(err)
		}
		if e.HeaderLen != sizes[0] || e.EntryLen != sizes[1] || e.Len() != len(threads) {
			t.Fatalf("sizes %v: header %d entry %d len %d", sizes, e.HeaderLen, e.EntryLen, e.Len())
		}
		for i := range threads {
			want := threads[i]
			want.Daemon = want.Daemon && sizes[1] >= THSTEntryLen
			if got := e.At(i); got != want || got != m.Threads[i] {
				t.Errorf("sizes %v entry %d: %+v, decoded %+v, want %+v", sizes, i, got, m.Threads[i], want)
			}
		}
		// Every shorter body, and one byte more, is refused by both alike.
		for _, bad := range [][]byte{body[:len(body)-1], body[:3], append(body[:len(body):len(body)], 0)} {
			_, err1 := DecodeThreadStatusTable(bad)
			e2, err2 := ParseThreadStatusEntries(bad)
			if err1 == nil || err2 == nil || err1.Error() != err2.Error() || e2.Len() != 0 {
				t.Errorf("sizes %v, %d bytes: decode %v, parse %v (len %d)", sizes, len(bad), err1, err2, e2.Len())
			}
		}
	}
	e, err := ParseThreadStatusEntries([]byte{4, 18, 0, 0})
	if err != nil || e.Len() != 0 {
		t.Errorf("empty table: %v, len %d", err, e.Len())
	}
}
