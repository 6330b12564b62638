package logcat

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

var testNow = time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC)

func textOpts(join bool) TextOptions {
	return TextOptions{Location: time.UTC, Now: func() time.Time { return testNow }, Join: join}
}

func decodeAllText(t *testing.T, r io.Reader, opts TextOptions) ([]Entry, []error) {
	t.Helper()
	d := NewTextDecoder(r, opts)
	var out []Entry
	var errs []error
	for {
		var e Entry
		err := d.Next(&e)
		if err == io.EOF {
			return out, errs
		}
		var le *LineError
		if errors.As(err, &le) {
			errs = append(errs, err)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
}

func TestThreadtimeSample(t *testing.T) {
	f, err := os.ReadFile("testdata/threadtime.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, errs := decodeAllText(t, bytes.NewReader(f), textOpts(true))
	if len(errs) != 0 {
		t.Fatalf("line errors: %v", errs)
	}
	ts := func(s string) time.Time {
		tt, err := time.Parse("2006-01-02 15:04:05.000", "2026-"+s)
		if err != nil {
			t.Fatal(err)
		}
		return tt
	}
	want := []Entry{
		{Time: ts("11-23 19:22:57.123"), PID: 1881, TID: 1881, Priority: Info, Tag: "ActivityManager", Message: "Start proc 1881:com.example.gallery/u0a66 for activity"},
		{Time: ts("11-23 19:22:57.124"), PID: 1881, TID: 1902, Priority: Debug, Tag: "My Tag", Message: "tag with a space"},
		{Time: ts("11-23 19:22:57.125"), PID: 1881, TID: 1902, Priority: Warn, Tag: "gallery", Message: "Größe überschritten — 日本語 ✓"},
		{Time: ts("11-23 19:22:58.000"), PID: 1881, TID: 1881, Priority: Error, Tag: "AndroidRuntime",
			Message: "FATAL EXCEPTION: main\nProcess: com.example.gallery, PID: 1881\njava.lang.IllegalStateException: boom\n\tat com.example.gallery.Main.onCreate(Main.java:42)"},
		{Time: ts("11-23 19:22:58.001"), PID: 1881, TID: 1881, Priority: Info, Tag: "Process", Message: "Sending signal. PID: 1881 SIG: 9"},
		{Time: ts("11-23 19:22:58.002"), PID: 612, TID: 630, Priority: Verbose, Tag: "empty", Message: ""},
		{Time: ts("11-23 19:22:58.003"), PID: 123456, TID: 123457, Priority: Fatal, Tag: "libc",
			Message: "Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid 123457 (RenderThread), pid 123456 (example.maps)"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		want[i].UID = -1
		if !sameEntry(got[i], want[i]) {
			t.Errorf("entry %d:\n %+v\nwant\n %+v", i, got[i], want[i])
		}
	}
	// Without Join, every line is an entry (dividers skipped).
	lines, _ := decodeAllText(t, bytes.NewReader(f), textOpts(false))
	if len(lines) != 10 {
		t.Errorf("unjoined: %d entries, want 10", len(lines))
	}
	// A PTY's \r\n gives the same entries.
	crlf := bytes.ReplaceAll(f, []byte("\n"), []byte("\r\n"))
	got2, _ := decodeAllText(t, bytes.NewReader(crlf), textOpts(true))
	if len(got2) != len(want) || got2[3].Message != want[3].Message {
		t.Errorf("CRLF input decoded differently: %d entries", len(got2))
	}
}

func TestThreadtimeVariants(t *testing.T) {
	cases := []struct {
		line string
		time time.Time
		tag  string
	}{
		{"2025-12-31 23:59:59.999  100  101 I tag: m", time.Date(2025, 12, 31, 23, 59, 59, 999e6, time.UTC), "tag"},
		{"11-23 10:00:00.123456  100  101 I tag: m", time.Date(2026, 11, 23, 10, 0, 0, 123456e3, time.UTC), "tag"},
		{"11-23 10:00:00.123456789 +0100  100  101 I tag: m", time.Date(2026, 11, 23, 9, 0, 0, 123456789, time.UTC), "tag"},
		// December entries read on 23 Nov belong to last year.
		{"12-30 10:00:00.000  100  101 I tag: m", time.Date(2025, 12, 30, 10, 0, 0, 0, time.UTC), "tag"},
		{"11-23 10:00:00.000  100  101 I a: b: c", time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC), "a"},
		{"11-23 10:00:00.000  100  101 I tag:", time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC), "tag"},
	}
	for _, c := range cases {
		e, err := ParseThreadtime(c.line, textOpts(false))
		if err != nil {
			t.Errorf("%q: %v", c.line, err)
			continue
		}
		if !e.Time.Equal(c.time) || e.Tag != c.tag || e.PID != 100 || e.TID != 101 {
			t.Errorf("%q: time %v tag %q pid %d tid %d", c.line, e.Time, e.Tag, e.PID, e.TID)
		}
	}
}

func TestThreadtimeRejects(t *testing.T) {
	for _, line := range []string{
		"hello",
		"11-23 10:00:00  100  101 I tag: m",         // no fraction
		"13-23 10:00:00.000  100  101 I tag: m",     // month 13
		"11-23 10:00:00.0000  100  101 I tag: m",    // 4 digits
		"11-23 10:00:00.000  100  101 X tag: m",     // level
		"11-23 10:00:00.000  100  101 I tag m",      // no ": "
		"11-23 10:00:00.000  abc  101 I tag: m",     // pid
		"11-23 10:00:00.000  99999999999  1 I t: m", // pid overflow
	} {
		if _, err := ParseThreadtime(line, textOpts(false)); !errors.Is(err, ErrLine) {
			t.Errorf("%q: err %v, want ErrLine", line, err)
		}
	}
}

func TestTextDecoderReportsBadLineAndGoesOn(t *testing.T) {
	in := "11-23 10:00:00.000  1  1 I a: one\ngarbage\n11-23 10:00:00.000  1  1 I a: two\n"
	got, errs := decodeAllText(t, strings.NewReader(in), textOpts(true))
	if len(got) != 2 || got[0].Message != "one" || got[1].Message != "two" {
		t.Fatalf("entries %+v", got)
	}
	var le *LineError
	if len(errs) != 1 || !errors.As(errs[0], &le) || le.Line != 2 {
		t.Fatalf("errors %v", errs)
	}
}

func TestTextDecoderLineBound(t *testing.T) {
	in := "11-23 10:00:00.000  1  1 I a: " + strings.Repeat("x", MaxLineLen) + "\n"
	d := NewTextDecoder(strings.NewReader(in), textOpts(false))
	var e Entry
	if err := d.Next(&e); err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("over-long line: %v", err)
	}
}

func TestThreadtimeRoundTrip(t *testing.T) {
	entries := []Entry{
		{Time: time.Date(2026, 11, 23, 19, 0, 1, 5e6, time.UTC), PID: 7, TID: 123456, Priority: Warn, Tag: "A long tag name", Message: "x"},
		{Time: time.Date(2026, 11, 23, 19, 0, 2, 0, time.UTC), PID: 8, TID: 8, Priority: Error, Tag: "AndroidRuntime", Message: "FATAL EXCEPTION: main\n\tat a.B.c(B.java:1)"},
		{Time: time.Date(2026, 11, 23, 19, 0, 3, 0, time.UTC), PID: 9, TID: 9, Priority: Info, Tag: "t", Message: "日本語"},
	}
	var buf []byte
	for i := range entries {
		buf = AppendThreadtime(buf, &entries[i], time.UTC)
	}
	if !strings.HasPrefix(string(buf), "11-23 19:00:01.005     7 123456 W A long tag name: x\n") {
		t.Fatalf("format: %q", buf)
	}
	got, errs := decodeAllText(t, bytes.NewReader(buf), textOpts(true))
	if len(errs) > 0 || len(got) != len(entries) {
		t.Fatalf("%d entries, errors %v", len(got), errs)
	}
	for i := range entries {
		entries[i].UID = -1
		if !sameEntry(got[i], entries[i]) {
			t.Errorf("entry %d: %+v, want %+v", i, got[i], entries[i])
		}
	}
}

// A dump is joined across read boundaries; a live stream hands out what it
// has when nothing more is buffered.
func TestTextJoinAcrossReads(t *testing.T) {
	in := "11-23 10:00:00.000  1  1 E AndroidRuntime: FATAL EXCEPTION: main\n" +
		"11-23 10:00:00.000  1  1 E AndroidRuntime: \tat a.B.c(B.java:1)\n"
	opts := textOpts(true)
	opts.Dump = true
	got, _ := decodeAllText(t, iotestHalf([]byte(in)), opts)
	if len(got) != 1 || got[0].Message != "FATAL EXCEPTION: main\n\tat a.B.c(B.java:1)" {
		t.Fatalf("dump: %+v", got)
	}
	// Live: the first entry comes out before the second line is written.
	pr, pw := io.Pipe()
	d := NewTextDecoder(pr, textOpts(true))
	go pw.Write([]byte(in[:strings.Index(in, "\n")+1]))
	var e Entry
	if err := d.Next(&e); err != nil || e.Message != "FATAL EXCEPTION: main" {
		t.Fatalf("live: %v %q", err, e.Message)
	}
	pw.Close()
}

// AppendThreadtimeApp puts the pid's app beside it ("-" when unknown),
// for a person reading a whole device's log.
func TestAppendThreadtimeApp(t *testing.T) {
	at := time.Date(2026, 12, 7, 4, 30, 1, 234e6, time.UTC)
	e := Entry{Time: at, PID: 1881, TID: 1900, Priority: Info, Tag: "Gallery", Message: "one\ntwo", App: "com.example.gallery"}
	want := "12-07 04:30:01.234  1881 com.example.gallery  1900 I Gallery : one\n" +
		"12-07 04:30:01.234  1881 com.example.gallery  1900 I Gallery : two\n"
	if got := string(AppendThreadtimeApp(nil, &e, time.UTC)); got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	e.App = ""
	if got := string(AppendThreadtimeApp(nil, &e, time.UTC)); !strings.HasPrefix(got, "12-07 04:30:01.234  1881 -  1900 I Gallery : one\n") {
		t.Errorf("unknown app: %q", got)
	}
	if got := string(AppendThreadtime(nil, &e, time.UTC)); !strings.HasPrefix(got, "12-07 04:30:01.234  1881  1900 I Gallery : one\n") {
		t.Errorf("threadtime changed: %q", got)
	}
}
