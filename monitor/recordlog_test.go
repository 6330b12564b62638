package monitor

import (
	"bytes"
	"encoding/hex"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/record"
)

// sameEntry compares what a recording keeps of an entry (App and the
// crash flags are set again by the log that takes it).
func sameEntry(a, b *logcat.Entry) bool {
	return a.Time.Equal(b.Time) && a.PID == b.PID && a.TID == b.TID && a.UID == b.UID && a.Buffer == b.Buffer &&
		a.Priority == b.Priority && a.Tag == b.Tag && a.Message == b.Message &&
		a.Flags&logcat.FlagTruncated == b.Flags&logcat.FlagTruncated
}

// The data of a log record, byte by byte (docs/RECORDING.md): the device
// name, then logd's v4 entry, little-endian.
func TestLogRecordBytes(t *testing.T) {
	e := logcat.Entry{Time: time.Unix(0x65000000, 0x01020304), PID: 0x1234, TID: 0x1235, UID: 10061, Buffer: logcat.System,
		Priority: logcat.Warn, Tag: "Tg", Message: "hi"}
	got, err := appendLogRecord(nil, "sim:x", &e)
	if err != nil {
		t.Fatal(err)
	}
	want := "05" + hex.EncodeToString([]byte("sim:x")) + // device
		"0700" + "1c00" + // payload 7 bytes, header 28
		"34120000" + "35120000" + // pid, tid
		"00000065" + "04030201" + // sec, nsec
		"03000000" + "4d270000" + // log id 3 (system), uid 10061
		"05" + "546700" + "686900" // W, "Tg\0", "hi\0"
	if hex.EncodeToString(got) != want {
		t.Fatalf("log record\n got %x\nwant %s", got, want)
	}
	dev, back, err := decodeLogRecord(got)
	if err != nil || dev != "sim:x" || !sameEntry(&back, &e) {
		t.Fatalf("decoded %q %+v %v", dev, back, err)
	}
	// Text-stream entries: no uid (-1), a message over logd's limit is
	// cut (at a rune boundary) and marked, a NUL replaced.
	long := logcat.Entry{Time: time.Unix(1700000000, 5), PID: 1, TID: 2, UID: -1, Priority: logcat.Error, Tag: "a\x00b",
		Message: strings.Repeat("é", 4000)}
	data, err := appendLogRecord(nil, "adb:emulator-5554", &long)
	if err != nil {
		t.Fatal(err)
	}
	_, back, err = decodeLogRecord(data)
	if err != nil || back.UID != -1 || back.Tag != "a\uFFFDb" || !back.Has(logcat.FlagTruncated) ||
		!strings.HasPrefix(long.Message, back.Message) || len(back.Message)%2 != 0 || len(data)-1-len("adb:emulator-5554") > logcat.MaxEntryLen {
		t.Fatalf("long entry: %d bytes, uid %d tag %q, message %d bytes, flags %v, %v", len(data), back.UID, back.Tag, len(back.Message), back.Flags, err)
	}
	if len(data)-1-len("adb:emulator-5554") != logcat.MaxEntryLen-1 {
		t.Errorf("cut entry of %d bytes, want logd's limit less the odd byte of a rune", len(data)-1-len("adb:emulator-5554"))
	}
	// What cannot be recorded.
	for name, bad := range map[string]struct {
		dev string
		e   logcat.Entry
	}{
		"event buffer": {"d", logcat.Entry{Time: e.Time, Buffer: logcat.Events}},
		"before 1970":  {"d", logcat.Entry{Time: time.Unix(-5, 0)}},
		"long device":  {strings.Repeat("d", maxLogDevice+1), e},
	} {
		if _, err := appendLogRecord(nil, bad.dev, &bad.e); err == nil {
			t.Errorf("%s: recorded", name)
		}
	}
	// Damaged data is refused.
	for name, bad := range map[string][]byte{
		"empty":          nil,
		"device length":  {0xff, 0x01},
		"entry cut":      got[:len(got)-1],
		"bytes after":    append(bytes.Clone(got), 0),
		"no tag NUL":     append(append([]byte(nil), got[:len(got)-6]...), 5, 'T', 'g', 'x', 'h', 'i'),
		"device too big": append([]byte{0x81, 0x02}, bytes.Repeat([]byte{'d'}, 257)...),
	} {
		if _, _, err := decodeLogRecord(bad); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// Log records replay into the device's log, in order, routed as live
// (App from the ActivityManager's "Start proc" line); Log answers for the
// VMs of that device only; a seek back gives a fresh log holding the
// entries up to the new position.
func TestReplayLog(t *testing.T) {
	base := time.Unix(1700000000, 0)
	entries := []logcat.Entry{
		{Time: base, PID: 600, TID: 600, UID: 1000, Buffer: logcat.System, Priority: logcat.Info, Tag: "ActivityManager",
			Message: "Start proc 4242:com.example.app/u0a61 for activity {com.example.app/.Main}"},
		{Time: base.Add(time.Millisecond), PID: 4242, TID: 4250, UID: 10061, Priority: logcat.Debug, Tag: "app", Message: "one"},
		{Time: base.Add(2 * time.Millisecond), PID: 4242, TID: 4242, UID: 10061, Priority: logcat.Error, Tag: "app", Message: "two"},
	}
	var recs []record.Record
	recs = append(recs, record.Record{Time: 0, Kind: record.KindEndpoint, Key: "adb:dev:4242", Data: []byte(`{"source":"adb:dev","pid":4242,"device":true}`)})
	for i := range entries {
		data, err := appendLogRecord(nil, "adb:dev", &entries[i])
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, record.Record{Time: time.Duration(i+1) * time.Second, Kind: record.KindLog, Data: data})
	}
	p := NewReplay(recordingOf(recs...), NewStore(NewBus()))
	if l, why := p.Log(VM{Source: "local:8000"}); l != nil || why == "" {
		t.Fatalf("a log for a VM of no recorded device: %v %q", l, why)
	}
	p.Seek(time.Hour)
	dl, why := p.Log(VM{Source: "adb:dev", PID: 4242})
	if dl == nil {
		t.Fatal(why)
	}
	got, _, _ := dl.Ring().Read(nil, 1, 0)
	if len(got) != len(entries) {
		t.Fatalf("%d entries replayed, want %d", len(got), len(entries))
	}
	for i := range entries {
		if !sameEntry(&got[i], &entries[i]) {
			t.Errorf("entry %d: %+v, want %+v", i, got[i], entries[i])
		}
	}
	if got[1].App != "com.example.app" || got[2].App != "com.example.app" {
		t.Errorf("not routed: app %q %q", got[1].App, got[2].App)
	}
	p.Seek(2 * time.Second)
	again, _ := p.Log(VM{Source: "adb:dev"})
	if again == dl {
		t.Fatal("the same log after a seek back")
	}
	if n := again.Ring().Len(); n != 2 {
		t.Errorf("after seeking back to 2 s: %d entries, want 2", n)
	}
	if errs := p.Errors(); len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
}

// TestReplayLogCharged: a replay's device logs are charged to the process's
// budget, as a live monitor's are (issue 37: a recording of a chatty
// device holds as many entries as its rings); a seek back and Close give
// their bytes back, and a ring past its share drops its oldest entries.
func TestReplayLogCharged(t *testing.T) {
	base := time.Unix(1700000000, 0)
	var recs []record.Record
	for i := range 50 {
		e := logcat.Entry{Time: base.Add(time.Duration(i) * time.Millisecond), PID: 4242, TID: 4242, UID: 10061,
			Priority: logcat.Info, Tag: "app", Message: strings.Repeat("x", 1000)}
		data, err := appendLogRecord(nil, "adb:dev", &e)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, record.Record{Time: time.Duration(i+1) * time.Second, Kind: record.KindLog, Data: data})
	}
	p := NewReplay(recordingOf(recs...), NewStore(NewBus()))
	if p.logBudget.Parent() != budget.Process {
		t.Fatal("the replay's logs are not a share of the process's budget")
	}
	p.Seek(time.Hour)
	dl, why := p.Log(VM{Source: "adb:dev"})
	if dl == nil {
		t.Fatal(why)
	}
	held := dl.Ring().Bytes()
	if held < 50*1000 || p.logBudget.Used() != held {
		t.Fatalf("the ring holds %d bytes, the budget counts %d", held, p.logBudget.Used())
	}
	p.Seek(10 * time.Second)
	again, _ := p.Log(VM{Source: "adb:dev"})
	if used := p.logBudget.Used(); used != again.Ring().Bytes() || used >= held/2 {
		t.Errorf("after a seek back the budget counts %d, the new ring holds %d", used, again.Ring().Bytes())
	}
	// A share of 20 entries' bytes: the ring keeps the newest that fit.
	p.logBudget.SetLimit(held * 20 / 50)
	p.Seek(time.Hour)
	third, _ := p.Log(VM{Source: "adb:dev"})
	if n := third.Ring().Len(); n < 15 || n > 20 {
		t.Errorf("under a share of 20 entries the ring holds %d", n)
	}
	if used := p.logBudget.Used(); used > held*20/50 {
		t.Errorf("the budget counts %d, over its limit %d", used, held*20/50)
	}
	p.Close()
	if used := p.logBudget.Used(); used != 0 {
		t.Errorf("after Close the budget still counts %d", used)
	}
}

// Arbitrary log record data never panics the decoder; what decodes
// encodes back to the same bytes.
func FuzzLogRecord(f *testing.F) {
	e := logcat.Entry{Time: time.Unix(1700000000, 7), PID: 5, TID: 6, UID: -1, Priority: logcat.Info, Tag: "t", Message: "m"}
	seed, _ := appendLogRecord(nil, "adb:emulator-5554", &e)
	f.Add(seed)
	e.Flags = logcat.FlagTruncated
	seed, _ = appendLogRecord(nil, "sim:x", &e)
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		dev, e, err := decodeLogRecord(data)
		if err != nil {
			return
		}
		if len(e.Tag)+len(e.Message) > logcat.MaxEntryLen {
			t.Fatalf("entry of %d bytes", len(e.Tag)+len(e.Message))
		}
		again, err := appendLogRecord(nil, dev, &e)
		if err != nil {
			return // e.g. an event buffer's id: read, never written
		}
		dev2, e2, err := decodeLogRecord(again)
		if err != nil || dev2 != dev || !sameEntry(&e, &e2) {
			t.Fatalf("round trip: %q %+v -> %q %+v %v", dev, e, dev2, e2, err)
		}
	})
}

// What the device log pays per recorded entry (a typical app line), with a
// block flushed (zstd) every 1,000; and what a replay pays to apply one.
func BenchmarkRecordLogEntry(b *testing.B) {
	e := logcat.Entry{Time: time.Unix(1700000000, 123456789), PID: 4242, TID: 4250, UID: 10061, Priority: logcat.Debug,
		Tag: "OkHttp", Message: "<-- 200 OK https://api.example.com/v1/messages?since=1700000000 (128ms, 4.1 kB body)"}
	r, err := NewRecorder(io.Discard, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := range b.N {
		r.Log(time.Now(), "adb:emulator-5554", &e)
		if i%1000 == 999 {
			r.Flush()
		}
	}
}

func BenchmarkReplayLogEntry(b *testing.B) {
	e := logcat.Entry{Time: time.Unix(1700000000, 123456789), PID: 4242, TID: 4250, UID: 10061, Priority: logcat.Debug,
		Tag: "OkHttp", Message: "<-- 200 OK https://api.example.com/v1/messages?since=1700000000 (128ms, 4.1 kB body)"}
	data, err := appendLogRecord(nil, "adb:emulator-5554", &e)
	if err != nil {
		b.Fatal(err)
	}
	p := NewReplay(recordingOf(), NewStore(NewBus()))
	r := record.Record{Kind: record.KindLog, Data: data}
	b.ReportAllocs()
	for range b.N {
		if err := p.applyLog(r); err != nil {
			b.Fatal(err)
		}
	}
}
