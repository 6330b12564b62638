package logcat

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// v4rec is a record with a 28-byte header, lid and payload as given.
func v4rec(lid uint32, payload []byte) []byte {
	le := binary.LittleEndian
	b := le.AppendUint16(nil, uint16(len(payload)))
	b = le.AppendUint16(b, HeaderV4Size)
	for _, v := range []uint32{7, 8, 0, 0, lid, 1000} {
		b = le.AppendUint32(b, v)
	}
	return append(b, payload...)
}

// The binary decoder's and encoder's limits at their exact values, and the
// payloads at their shortest.
func TestBinaryEdges(t *testing.T) {
	// A record of exactly MaxEntryLen bytes is read and written; one more
	// byte is refused both ways.
	e := Entry{Priority: Info, Tag: "t", Message: strings.Repeat("m", MaxEntryLen-HeaderV4Size-4)}
	b, err := AppendBinary(nil, &e, HeaderV4Size)
	if err != nil || len(b) != MaxEntryLen {
		t.Fatalf("MaxEntryLen record: %d bytes, %v", len(b), err)
	}
	if got, n, err := DecodeBinary(b, BinaryOptions{}); err != nil || n != MaxEntryLen || got.Message != e.Message {
		t.Fatalf("decoding the MaxEntryLen record: %d, %v", n, err)
	}
	e.Message += "m"
	if _, err := AppendBinary(nil, &e, HeaderV4Size); !errors.Is(err, ErrEntryTooLong) {
		t.Errorf("MaxEntryLen+1 written: %v", err)
	}
	big := v4rec(0, append([]byte{4, 't', 0}, strings.Repeat("m", MaxEntryLen-HeaderV4Size-3)...))
	big = append(big, 0)
	binary.LittleEndian.PutUint16(big, uint16(len(big)-HeaderV4Size))
	if _, _, err := DecodeBinary(big, BinaryOptions{}); !errors.Is(err, ErrEntryTooLong) {
		t.Errorf("MaxEntryLen+1 read: %v", err)
	}
	// A NUL at the very start of the tag or the message cannot be written.
	for _, bad := range []Entry{{Tag: "\x00x"}, {Tag: "t", Message: "\x00"}} {
		if _, err := AppendBinary(nil, &bad, HeaderV4Size); err == nil {
			t.Errorf("%q/%q encoded", bad.Tag, bad.Message)
		}
	}
	for _, tc := range []struct {
		name    string
		lid     uint32
		payload string
		want    Entry
		err     string
	}{
		{"lid 15 is a log id", 15, "\x04t\x00m\x00", Entry{Buffer: 15, Priority: Info, Tag: "t", Message: "m"}, ""},
		{"lid 16 is not", 16, "\x04t\x00m\x00", Entry{}, "lid outside the 4 bits log ids use: 16"},
		{"the shortest text payload", 0, "\x03\x00\x00", Entry{Priority: Debug}, ""},
		{"an empty tag", 0, "\x05\x00msg\x00", Entry{Priority: Warn, Message: "msg"}, ""},
		{"two bytes", 0, "\x03\x00", Entry{}, "payload shorter than priority, tag NUL and message: 2 bytes"},
		{"bytes after the message", 0, "\x04t\x00m\x00xyz", Entry{}, "bytes after the message's NUL: 3"},
		{"the shortest event", uint32(Events), "\x01\x02\x00\x00", Entry{Buffer: Events, Priority: Info,
			Tag: "event#513", Message: "[0 bytes of binary event data]"}, ""},
		{"an event with data", uint32(Events), "\x01\x00\x00\x00abcde", Entry{Buffer: Events, Priority: Info,
			Tag: "event#1", Message: "[5 bytes of binary event data]"}, ""},
		{"an event of three bytes", uint32(Stats), "\x01\x00\x00", Entry{}, "payload shorter than priority, tag NUL and message: event record of 3 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, _, err := DecodeBinary(v4rec(tc.lid, []byte(tc.payload)), BinaryOptions{})
			if tc.err != "" {
				var pe *PayloadError
				if !errors.As(err, &pe) || pe.Err.Error() != tc.err {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Buffer != tc.want.Buffer || got.Priority != tc.want.Priority || got.Tag != tc.want.Tag || got.Message != tc.want.Message {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestClassifierEdges(t *testing.T) {
	for _, tc := range []struct {
		e    Entry
		want Flags
	}{
		{Entry{Tag: "libc", Priority: Error, Message: "Fatal signal 11 (SIGSEGV)"}, FlagCrash | FlagCrashStart},
		{Entry{Tag: "libc", Priority: Warn, Message: "Fatal signal 11 (SIGSEGV)"}, 0},
		{Entry{Tag: "DEBUG", Priority: Info, Message: "    #99 pc 0001234  /system/lib/libc.so"}, FlagStackTrace},
		{Entry{Tag: "DEBUG", Priority: Info, Message: "    #09 pc 0001234  /system/lib/libc.so"}, FlagStackTrace},
	} {
		var c Classifier
		e := tc.e
		c.Classify(&e)
		if e.Flags != tc.want {
			t.Errorf("%+v: flags %b, want %b", tc.e, e.Flags, tc.want)
		}
	}
}

func TestPriorityEdges(t *testing.T) {
	if Silent.Letter() != 'S' || Verbose.Letter() != 'V' || (Silent+1).Letter() != '?' || (Verbose-1).Letter() != '?' {
		t.Error("letters at the ends")
	}
	for s, want := range map[string]Priority{"A": Fatal, "ASSERT": Fatal, "V": Verbose, "Warning": Warn} {
		if p, err := ParsePriority(s); err != nil || p != want {
			t.Errorf("ParsePriority(%q) = %v, %v", s, p, err)
		}
	}
}

func TestProcessesEdges(t *testing.T) {
	var p Processes
	am := func(m string) (int32, string) {
		return p.Observe(&Entry{Tag: "ActivityManager", Message: "Start proc " + m})
	}
	if pid, name := am("0:com.zero/u0a1 for activity"); pid != 0 || name != "com.zero" || p.App(0) != "" {
		t.Errorf("pid 0: %d %q, App(0) %q", pid, name, p.App(0))
	}
	if pid, name := am("1234:/u0a1 for activity"); pid != 1234 || name != "" {
		t.Errorf("an empty name: %d %q", pid, name)
	}
	if pid, name := am("com.old pid=55 uid=10001"); pid != 55 || name != "com.old" || p.App(55) != "com.old" {
		t.Errorf("pid= right after the name: %d %q", pid, name)
	}
}

// containsFold's ASCII fast path and its Unicode path, at their edges: a
// needle starting with 'z', letters whose lower case starts with another
// byte, a multi-byte character that folds to an ASCII one, invalid UTF-8.
func TestContainsFoldEdges(t *testing.T) {
	for _, tc := range []struct {
		s, needle string
		want      bool
	}{
		{"Zebra", "zeb", true},
		{"ΣΑΣ", "σ", true},
		{"\u212a", "k", false}, // the Kelvin sign: a multi-byte character never equals an ASCII one
		{"a\x80", "\x80", false},
	} {
		if got := containsFold(tc.s, tc.needle); got != tc.want {
			t.Errorf("containsFold(%q, %q) = %v", tc.s, tc.needle, got)
		}
	}
}

// Queries that end where the tokenizer looks one byte ahead, and a ')'
// after a closed group, which is part of the word.
func TestQueryTokenEdges(t *testing.T) {
	for _, tc := range []struct {
		src, yes, no string
	}{
		{"-", "a - b", "a b"},
		{"tag", "a tag", "a"},
		{"tag~", "tag~", "tag"},
		{"(a) b)", "a b)", "a b"},
	} {
		q, err := Compile(tc.src, QueryOptions{})
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		if !q.Match(&Entry{Message: tc.yes}, time.Time{}) || q.Match(&Entry{Message: tc.no}, time.Time{}) {
			t.Errorf("%q: matches %q %v, %q %v", tc.src, tc.yes, q.Match(&Entry{Message: tc.yes}, time.Time{}), tc.no, q.Match(&Entry{Message: tc.no}, time.Time{}))
		}
	}
}

// A quoted value whose last byte is a backslash is unterminated.
func TestQueryQuoteEndsInBackslash(t *testing.T) {
	_, err := Compile(`message:"ab\`, QueryOptions{})
	if !errors.Is(err, ErrQuery) || !strings.Contains(err.Error(), "unterminated quote at column 9") {
		t.Errorf("got %v", err)
	}
}

func TestAgeAndRingEdges(t *testing.T) {
	for src, ok := range map[string]bool{"age:9m": true, "age:1000000s": true, "age:1000001s": false} {
		if _, err := Compile(src, QueryOptions{}); (err == nil) != ok {
			t.Errorf("%s: %v", src, err)
		}
	}
	if c := (&Entry{Tag: "ab", Message: "cde", App: "f"}).Cost(); c != 6+entryOverhead {
		t.Errorf("Cost %d, want %d", c, 6+entryOverhead)
	}
	r := NewRing(16)
	r.SetLimit(0, nil, "")
	if r.maxBytes != DefaultRingBytes {
		t.Errorf("SetLimit(0): %d bytes", r.maxBytes)
	}
	for i := range 10 {
		r.Append(Entry{Message: fmt.Sprint(i)})
	}
	first := r.first
	out, next, missed := r.Read(nil, first+5, 10)
	if len(out) != 5 || next != first+10 || missed != 0 || out[0].Message != "5" {
		t.Errorf("Read from the 6th of 10, at most 10: %d entries, next %d (first %d), missed %d", len(out), next, first, missed)
	}
}

// The options given are the ones used: the device's zone and the clock
// that gives the year.
func TestTextOptionsKept(t *testing.T) {
	zone := time.FixedZone("device", 3600)
	opts := TextOptions{Location: zone, Now: func() time.Time { return time.Date(2001, 6, 1, 0, 0, 0, 0, zone) }, Dump: true}
	d := NewTextDecoder(strings.NewReader("05-02 10:00:00.000  100  101 I Tag     : hi\n"), opts)
	var e Entry
	if err := d.Next(&e); err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2001, 5, 2, 9, 0, 0, 0, time.UTC); !e.Time.Equal(want) {
		t.Errorf("time %v, want %v", e.Time, want)
	}
}

// The last line without its newline is an entry; a line past MaxLineLen
// ends decoding with its number.
func TestTextLineEnds(t *testing.T) {
	opts := TextOptions{Location: time.UTC, Now: func() time.Time { return time.Date(2001, 6, 1, 0, 0, 0, 0, time.UTC) }, Dump: true}
	d := NewTextDecoder(strings.NewReader("05-02 10:00:00.000  100  101 I Tag     : one\n05-02 10:00:00.000  100  101 I Tag     : two"), opts)
	var got []string
	for {
		var e Entry
		err := d.Next(&e)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Message)
	}
	if strings.Join(got, ",") != "one,two" {
		t.Errorf("messages %q", got)
	}
	long := "05-02 10:00:00.000  100  101 I Tag     : one\n" + strings.Repeat("x", MaxLineLen+10) + "\n"
	d = NewTextDecoder(strings.NewReader(long), opts)
	var e Entry
	if err := d.Next(&e); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("logcat: line 2 longer than %d bytes", MaxLineLen)
	if err := d.Next(&e); err == nil || err.Error() != want {
		t.Errorf("a long line: %v, want %q", err, want)
	}
}

// ParseThreadtime at the edges of each field: the fields' ranges at their
// limits, lines that end inside the prefix, the zone offset, the year
// guessed from the clock a day ahead, and the messages naming what failed.
func TestThreadtimeEdges(t *testing.T) {
	now := time.Date(2001, 6, 1, 0, 0, 0, 0, time.UTC)
	opts := TextOptions{Location: time.UTC, Now: func() time.Time { return now }}
	for _, tc := range []struct {
		line string
		when time.Time
		pid  int32
		tag  string
		err  string
	}{
		{line: "01-01 23:59:60.000  1  2 I T: m", when: time.Date(2001, 1, 2, 0, 0, 0, 0, time.UTC), pid: 1, tag: "T"},
		{line: "06-01 12:00:00.000  1  2 I T: m", when: time.Date(2001, 6, 1, 12, 0, 0, 0, time.UTC), pid: 1, tag: "T"},
		{line: "0000-01-02 00:00:00.000  1  2 I T: m", when: time.Date(0, 1, 2, 0, 0, 0, 0, time.UTC), pid: 1, tag: "T"},
		{line: "01-02 03:04:05.000 +0530  1  2 I T: m", when: time.Date(2001, 1, 2, 3, 4, 5, 0, time.FixedZone("", 19800)), pid: 1, tag: "T"},
		{line: "01-02 03:04:05.000  2147483647  2147483647 I : m", when: time.Date(2001, 1, 2, 3, 4, 5, 0, time.UTC), pid: 2147483647},
		{line: "01-02 03:04:05.000  2147483648  1 I T: m", err: "tid"},
		{line: "01-02 03:04:05.000  1  2147483648 I T: m", err: "tid"},
		{line: "01-02 03:04:05.1234  1  2 I T: m", err: "fraction of 4 digits"},
		{line: "01-270 03:04:05.000  1  2 I T: m", err: "date"},
		{line: "00-01 03:04:05.000  1  2 I T: m", err: "date out of range"},
		{line: "01-00 03:04:05.000  1  2 I T: m", err: "date out of range"},
		{line: "01-02 03:04:05.000  12345678901  2 I T: m", err: "pid"},
		{line: "01-02 03:04:05.000  1x2 I T: m", err: "pid"},
		{line: "01-02 03:04:05.000  1  2 ", err: "level"},
		{line: "01-02 03:04:05.000   ", err: "pid"},
		{line: "01-02 03:04:05.000", err: "pid"},
		{line: "11-2", err: "date"},
		{line: "11", err: "date"},
	} {
		e, err := ParseThreadtime(tc.line, opts)
		if tc.err != "" {
			if want := "not a threadtime line: " + tc.err; err == nil || err.Error() != want {
				t.Errorf("%q: %v, want %q", tc.line, err, want)
			}
			continue
		}
		if err != nil || !e.Time.Equal(tc.when) || e.PID != tc.pid || e.Tag != tc.tag {
			t.Errorf("%q: %v %v pid %d tag %q", tc.line, err, e.Time, e.PID, e.Tag)
		}
	}
	zone := time.FixedZone("device", 3600)
	e, err := ParseThreadtime("05-02 10:00:00.000  1  2 I T: m", TextOptions{Location: zone, Now: func() time.Time { return now }})
	if want := time.Date(2001, 5, 2, 9, 0, 0, 0, time.UTC); err != nil || !e.Time.Equal(want) {
		t.Errorf("ParseThreadtime with a zone and a clock: %v %v", e.Time, err)
	}
	if got := string(AppendThreadtime(nil, &e, zone)); !strings.HasPrefix(got, "05-02 10:00:00.000") {
		t.Errorf("AppendThreadtime in the zone given: %q", got)
	}
}

func TestProcsAndQueryEdges(t *testing.T) {
	var p Processes
	am := func(m string) (int32, string) {
		return p.Observe(&Entry{Tag: "ActivityManager", Message: "Start proc " + m})
	}
	if pid, name := am("1234567890:com.ten/u0a1 for activity"); pid != 1234567890 || name != "com.ten" {
		t.Errorf("a ten-digit pid: %d %q", pid, name)
	}
	if pid, name := am("ab:c for x"); pid != 0 || name != "" {
		t.Errorf("letters before the colon: %d %q", pid, name)
	}
	for _, tc := range []struct{ src, yes, no string }{
		{"(a))", "a)", "a"},
		{"((b(c)) | d)", "b(c)", "b(c"},
	} {
		q, err := Compile(tc.src, QueryOptions{})
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		if !q.Match(&Entry{Message: tc.yes}, time.Time{}) || q.Match(&Entry{Message: tc.no}, time.Time{}) {
			t.Errorf("%q: %q %v, %q %v", tc.src, tc.yes, q.Match(&Entry{Message: tc.yes}, time.Time{}), tc.no, q.Match(&Entry{Message: tc.no}, time.Time{}))
		}
	}
}
