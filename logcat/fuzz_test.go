package logcat

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
)

// FuzzBinary: DecodeBinary never panics, stays in bounds, and what it
// decodes encodes back to the same bytes; the stream decoder ends.
func FuzzBinary(f *testing.F) {
	for _, v := range binaryVectors {
		f.Add(unhex(f, v.hex))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		e, n, err := DecodeBinary(b, BinaryOptions{})
		var pe *PayloadError
		switch {
		case err == nil:
			if n < HeaderV1Size || n > len(b) || n > MaxEntryLen {
				t.Fatalf("n=%d for %d bytes", n, len(b))
			}
			if !e.Buffer.binaryPayload() {
				hdr := n - int(uint16(b[0])|uint16(b[1])<<8)
				enc, err := AppendBinary(nil, &e, hdr)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(enc, b[:n]) {
					t.Fatalf("re-encoded\n %x\nfrom\n %x", enc, b[:n])
				}
			}
		case errors.As(err, &pe):
			if n <= 0 || n > len(b) {
				t.Fatalf("payload error with n=%d of %d", n, len(b))
			}
		}
		d := NewBinaryDecoder(bytes.NewReader(b), BinaryOptions{})
		for i := 0; ; i++ {
			var e Entry
			err := d.Next(&e)
			if err == io.EOF || (err != nil && !errors.As(err, &pe)) {
				break
			}
			if i > len(b) {
				t.Fatal("decoder does not advance")
			}
		}
	})
}

// FuzzThreadtime: the parser never panics, and a parsed line formats back
// to a line that parses to the same entry (to the millisecond logcat
// prints).
func FuzzThreadtime(f *testing.F) {
	f.Add("11-23 19:22:57.123  1881  1881 I ActivityManager: Start proc")
	f.Add("2026-11-23 19:22:57.123456789 +0100  1  2 W My Tag  : a: b")
	f.Add("11-23 19:22:58.002   612   630 V empty   : ")
	f.Add("--------- beginning of main")
	opts := textOpts(false)
	f.Fuzz(func(t *testing.T, line string) {
		d := NewTextDecoder(strings.NewReader(line+"\n"+line), textOpts(true))
		for i := 0; i < 10; i++ {
			var e Entry
			if err := d.Next(&e); err != nil {
				var le *LineError
				if !errors.As(err, &le) {
					break
				}
			}
		}
		e, err := ParseThreadtime(line, opts)
		if err != nil {
			return
		}
		if strings.ContainsAny(e.Tag, ":\n") || strings.ContainsRune(e.Message, '\n') || strings.TrimSpace(e.Tag) != e.Tag {
			return // not representable unambiguously
		}
		out := AppendThreadtime(nil, &e, time.UTC)
		e2, err := ParseThreadtime(strings.TrimSuffix(string(out), "\n"), opts)
		if err != nil {
			t.Fatalf("%q formatted as %q: %v", line, out, err)
		}
		ms := "01-02 15:04:05.000"
		if e2.PID != e.PID || e2.TID != e.TID || e2.Priority != e.Priority || e2.Tag != e.Tag || e2.Message != e.Message ||
			e2.Time.UTC().Format(ms) != e.Time.UTC().Format(ms) {
			t.Fatalf("%q -> %q -> %+v, want %+v", line, out, e2, e)
		}
	})
}

// FuzzQuery: compiling never panics, and a compiled query can be applied.
func FuzzQuery(f *testing.F) {
	for _, q := range []string{"package:mine tag:a", "-tag~:^x$ | (level:W & age:5m)", `message:"a \" b"`, "-(is:crash)", "is:stacktrace"} {
		f.Add(q)
	}
	e := Entry{Tag: "Tag", Message: "message Größe", App: "com.x", Priority: Warn, Time: testNow}
	f.Fuzz(func(t *testing.T, src string) {
		q, err := Compile(src, QueryOptions{Mine: []string{"com.x"}})
		if err != nil {
			if !errors.Is(err, ErrQuery) {
				t.Fatalf("%q: %v does not wrap ErrQuery", src, err)
			}
			return
		}
		q.Match(&e, testNow)
	})
}

// FuzzRegexpPrefilter: a message~: term matches exactly what the regular
// expression matches, whatever the literal prefilter decided.
func FuzzRegexpPrefilter(f *testing.F) {
	f.Add(`(decode|sync) [0-9]{3}\b`, "xdecode 123 y")
	f.Add(`(ab|c.)d`, "zzcxd")
	f.Add(`(?m)^sync`, "a\nsync")
	f.Add(`de+code`, "deeecode")
	f.Fuzz(func(t *testing.T, re, msg string) {
		plain, err := regexp.Compile(re)
		if err != nil || re == "" {
			return // an empty value is refused on purpose
		}
		q, err := Compile(`message~:"`+strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(re)+`"`, QueryOptions{})
		if err != nil {
			t.Fatalf("%q compiles as a regexp but not as a query: %v", re, err)
		}
		e := Entry{Message: msg}
		if got, want := q.Match(&e, time.Time{}), plain.MatchString(msg); got != want {
			t.Fatalf("%q on %q: query %v, regexp %v", re, msg, got, want)
		}
	})
}
