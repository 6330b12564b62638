package adb

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

func TestAppendRequest(t *testing.T) {
	b, err := appendRequest(nil, "host:version")
	if err != nil || string(b) != "000Chost:version" {
		t.Fatalf("got %q, %v; want 000Chost:version", b, err)
	}
	if _, err := appendRequest(nil, ""); err == nil {
		t.Error("empty request accepted")
	}
	if _, err := appendRequest(nil, strings.Repeat("x", 0x10000)); err == nil {
		t.Error("request longer than 0xffff accepted")
	}
	b, err = appendRequest(nil, strings.Repeat("x", 0xffff))
	if err != nil || string(b[:4]) != "FFFF" {
		t.Fatalf("longest request: prefix %q, %v", b[:4], err)
	}
}

func TestReadStatus(t *testing.T) {
	tests := []struct {
		in      string
		wantErr string // "" for OKAY
		fail    string // expected *Error message
	}{
		{in: "OKAY"},
		{in: "FAIL0014unknown host service", fail: "unknown host service"},
		{in: "FAIL0000", fail: ""},
		{in: "FAILzzzz", wantErr: "not hex"},
		{in: "FAIL0010short", wantErr: "unexpected EOF"},
		{in: "OKA", wantErr: "unexpected EOF"},
		{in: "HELO", wantErr: "neither OKAY nor FAIL"},
	}
	for _, tt := range tests {
		err := readStatus(iotest.OneByteReader(strings.NewReader(tt.in)), "op", 1024)
		var fe *Error
		switch {
		case tt.wantErr == "" && tt.fail == "" && !strings.HasPrefix(tt.in, "FAIL"):
			if err != nil {
				t.Errorf("%q: %v", tt.in, err)
			}
		case strings.HasPrefix(tt.in, "FAIL") && tt.wantErr == "":
			if !errors.As(err, &fe) || fe.Message != tt.fail || fe.Op != "op" {
				t.Errorf("%q: got %v, want *Error %q", tt.in, err, tt.fail)
			}
		default:
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || errors.As(err, &fe) {
				t.Errorf("%q: got %v, want an error containing %q", tt.in, err, tt.wantErr)
			}
		}
	}
}

func TestReadMessageBound(t *testing.T) {
	if _, err := readMessage(strings.NewReader("0101"+strings.Repeat("a", 0x101)), 0x100); !errors.Is(err, ErrProtocol) {
		t.Fatalf("over-long reply: %v, want ErrProtocol", err)
	}
	got, err := readMessage(strings.NewReader("0100"+strings.Repeat("a", 0x100)), 0x100)
	if err != nil || len(got) != 0x100 {
		t.Fatalf("reply at the bound: %d bytes, %v", len(got), err)
	}
	// Upper-case hex (ddmlib style) is accepted as well.
	got, err = readMessage(strings.NewReader("000Ahello worl"), 100)
	if err != nil || string(got) != "hello worl" {
		t.Fatalf("upper-case length: %q, %v", got, err)
	}
}

// deviceList returns a short-format list of n devices.
func deviceList(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "serial-%05d\tdevice\n", i)
	}
	return b.String()
}

func frame(s string) string { return fmt.Sprintf("%04x", len(s)) + s }

func TestReadFramed(t *testing.T) {
	long := deviceList(4000) // 80000 bytes: a five-digit prefix
	if len(long) <= 0xffff {
		t.Fatal("test list too short")
	}
	max4 := strings.Repeat("x", 0xffff-1) + "\n" // the longest four-digit message
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "0000", []string{""}},
		{"two", frame("a\tdevice\n") + frame("a\toffline\n"), []string{"a\tdevice\n", "a\toffline\n"}},
		{"300 bytes", frame(deviceList(15)), []string{deviceList(15)}},
		{"0xffff bytes", frame(max4) + "0000", []string{max4, ""}},
		{"five-digit prefix", frame(long) + frame("x\tdevice\n"), []string{long, "x\tdevice\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.HasPrefix(tt.name, "five") && !strings.HasPrefix(tt.in, "13880") {
				t.Fatalf("prefix %q, want 13880", tt.in[:5])
			}
			r := iotest.HalfReader(strings.NewReader(tt.in))
			for i, want := range tt.want {
				got, err := readFramed(r, DefaultMaxReply)
				if err != nil || string(got) != want {
					t.Fatalf("message %d: got %d bytes (%v), want %d", i, len(got), err, len(want))
				}
			}
			if _, err := readFramed(r, DefaultMaxReply); !errors.Is(err, io.EOF) {
				t.Fatalf("after the last message: %v, want EOF", err)
			}
		})
	}
}

func TestReadFramedErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"00", "unexpected EOF"},
		{"xyz1", "not hex"},
		{"0005abc", "unexpected EOF"},
		{"ffff" + strings.Repeat("1", 100), "exceeds the bound"},
	}
	for _, tt := range tests {
		_, err := readFramed(strings.NewReader(tt.in), 0x1000)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestSplitOneShot(t *testing.T) {
	long := deviceList(4000)
	tests := []struct {
		in   string
		want string
		ok   bool
	}{
		{"0000", "", true},
		{frame("abc\tdevice\n"), "abc\tdevice\n", true},
		{frame(long), long, true},
		{"0005abc", "", false},
		{"0002abc", "", false},
		{"00", "", false},
		{"zz", "", false},
	}
	for _, tt := range tests {
		got, err := splitOneShot([]byte(tt.in))
		if tt.ok != (err == nil) || (tt.ok && string(got) != tt.want) {
			t.Errorf("%.20q: got %d bytes, %v", tt.in, len(got), err)
		}
		if err != nil && !errors.Is(err, ErrProtocol) {
			t.Errorf("%.20q: %v does not wrap ErrProtocol", tt.in, err)
		}
	}
}

func TestReadBoundedGrowsWithData(t *testing.T) {
	// A claim of 1 MiB backed by 10 bytes fails after allocating little.
	_, err := readBounded(bytes.NewReader(make([]byte, 10)), nil, 1<<20, 1<<20)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("got %v", err)
	}
	var before, after runtime.MemStats
	r := bytes.NewReader(make([]byte, 10))
	runtime.ReadMemStats(&before)
	_, _ = readBounded(r, nil, 1<<20, 1<<20)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 256<<10 {
		t.Errorf("%d bytes allocated for a 10-byte stream claiming 1 MiB", n)
	}
}
