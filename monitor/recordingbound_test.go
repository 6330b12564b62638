package monitor

import (
	"bytes"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/record"
)

// hostileRecording is blocks of records of zeros: n records of size bytes
// each, a few KB of file for hundreds of MB of records.
func hostileRecording(t *testing.T, n, size int) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := record.NewWriter(&buf, record.CompressZstd, time.Unix(1700000000, 0))
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, size)
	for i := range n {
		if err := w.Add(record.Record{Time: time.Duration(i) * time.Millisecond, Kind: record.KindChunk, Key: "local:8000", Data: zeros}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Issue 37 #8: a recording's records are held within the memory budget;
// past it reading stops, said in Tail. 64 records of 4 MiB of zeros (a
// few KB of file) against a budget of 64 MiB, half of it for a recording:
// 7 records kept, and what the
// read allocated is the budget and a block, not the 256 MiB of records;
// Release gives them back.
func TestReadRecordingBounded(t *testing.T) {
	defer func(old *budget.Budget) { recordingBudget = old }(recordingBudget)
	recordingBudget = budget.New(64 << 20)
	file := hostileRecording(t, 64, 4<<20)
	t.Logf("%d-byte file", len(file))
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	rec, err := ReadRecording(bytes.NewReader(file))
	runtime.ReadMemStats(&b)
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(rec.Tail, ErrRecordingTooLarge) || len(rec.Records) != 7 {
		t.Fatalf("tail %v, %d records kept", rec.Tail, len(rec.Records))
	}
	if got := b.TotalAlloc - a.TotalAlloc; got > uint64(recordingBudget.Limit()/2)+3*record.MaxBlock {
		t.Errorf("reading allocated %d MiB", got>>20)
	}
	if recordingBudget.Used() == 0 {
		t.Error("the records are not charged")
	}
	rec.Release()
	if recordingBudget.Used() != 0 {
		t.Errorf("%d bytes held after Release", recordingBudget.Used())
	}
}
