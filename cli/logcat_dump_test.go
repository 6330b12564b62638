package cli

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/logcat"
)

// TestLogcatDumpPrintsWhatWasRead: issue 30 #12. In -d mode a frame with a
// lying length aborted the command and the valid entries before it were
// never printed: they are returned, with the error.
func TestLogcatDumpPrintsWhatWasRead(t *testing.T) {
	var raw []byte
	for i := 1; i <= 3; i++ {
		e := logcat.Entry{Time: time.Unix(1700000000+int64(i), 0), PID: 42, TID: 42, Priority: logcat.Info, Tag: "T", Message: fmt.Sprint("entry ", i)}
		var err error
		if raw, err = logcat.AppendBinary(raw, &e, 24); err != nil {
			t.Fatal(err)
		}
	}
	// A fourth frame whose payload length claims more than LOGGER_ENTRY_MAX_LEN.
	lie := make([]byte, 24)
	binary.LittleEndian.PutUint16(lie[0:], 0xFFF0)
	binary.LittleEndian.PutUint16(lie[2:], 24)
	raw = append(raw, lie...)
	dec := logcat.NewBinaryDecoder(bytes.NewReader(raw), logcat.BinaryOptions{})
	var procs logcat.Processes
	all, err := readLogDump(dec.Next, &procs, func(*logcat.Entry) bool { return true }, logcat.NewRing(10))
	if len(all) != 3 || all[0].Message != "entry 1" || all[2].Message != "entry 3" {
		t.Fatalf("entries before the bad frame: %+v", all)
	}
	if err == nil || !strings.HasPrefix(err.Error(), "logcat: ") || !strings.Contains(err.Error(), "5120") {
		t.Fatalf("error %v, want the bad frame's", err)
	}
}

// TestLogcatDumpBoundedByBytes: `logcat -d` against an endless log of 4 KB
// entries reached 2.1 GB; the dump keeps what a ring of its bound holds.
func TestLogcatDumpBoundedByBytes(t *testing.T) {
	msg := strings.Repeat("y", 4000)
	n := 0
	next := func(e *logcat.Entry) error {
		if n == 20_000 { // 80 MB of text
			return io.EOF
		}
		n++
		*e = logcat.Entry{PID: 1, Priority: logcat.Info, Tag: "F", Message: msg}
		return nil
	}
	ring := logcat.NewRing(logcat.DefaultRingSize)
	var procs logcat.Processes
	all, err := readLogDump(next, &procs, func(*logcat.Entry) bool { return true }, ring)
	if err != nil {
		t.Fatal(err)
	}
	cost := (&logcat.Entry{Tag: "F", Message: msg}).Cost()
	if ring.Bytes() > logcat.DefaultRingBytes || int64(len(all)) != logcat.DefaultRingBytes/cost {
		t.Fatalf("kept %d entries, %d bytes; bound %d bytes", len(all), ring.Bytes(), logcat.DefaultRingBytes)
	}
}

// The dump's ring draws on the process-wide memory budget: with a budget
// of 16 MiB the same endless log keeps what 16 MiB holds, not the ring's
// 32 MiB, and Close gives it all back.
func TestLogcatDumpDrawsOnTheBudget(t *testing.T) {
	defer budget.Process.SetLimit(budget.Process.Limit())
	budget.Process.SetLimit(16 << 20)
	used := budget.Process.Stats().Used
	msg := strings.Repeat("y", 4000)
	n := 0
	next := func(e *logcat.Entry) error {
		if n == 20_000 {
			return io.EOF
		}
		n++
		*e = logcat.Entry{PID: 1, Priority: logcat.Info, Tag: "F", Message: msg}
		return nil
	}
	ring := dumpRing("emulator-5554")
	var procs logcat.Processes
	all, err := readLogDump(next, &procs, func(*logcat.Entry) bool { return true }, ring)
	if err != nil {
		t.Fatal(err)
	}
	cost := (&logcat.Entry{Tag: "F", Message: msg}).Cost()
	if ring.Bytes() > 16<<20 || len(all) == 0 || int64(len(all)) > (16<<20)/cost {
		t.Fatalf("kept %d entries, %d bytes, under a 16 MiB budget", len(all), ring.Bytes())
	}
	ring.Close()
	if got := budget.Process.Stats().Used; got != used {
		t.Fatalf("closed: the budget holds %d bytes, %d before", got, used)
	}
}
