package adb

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ddmtui/ddmtui/adb/internal/adbmock"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// unhex decodes hex with spaces.
func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Byte-exact vectors worked out from spec/adb-track-app.md's message and
// protobuf's encoding rules.
var (
	// A profileable release app on Android 12–14: pid 16024 (varint 98 7d),
	// profileable (field 3), architecture "arm64" (field 4).
	vecRelease     = "0a 0c 08 98 7d 18 01 22 05 61 72 6d 36 34"
	vecReleaseWant = AppProcess{PID: 16024, Profileable: true, Architecture: "arm64"}
	// A debuggable app on Android 15: pid 4242 (92 21), debuggable,
	// profileable, "x86_64", user_id 0 (written though 0: optional),
	// process_name and one package "com.example.debug", waiting false
	// (written), uid 10123 (8b 4f), then an unknown field 10 (varint 7).
	vecA15 = "0a 3e 08 92 21 10 01 18 01 22 06 78 38 36 5f 36 34 28 00" +
		" 32 11 63 6f 6d 2e 65 78 61 6d 70 6c 65 2e 64 65 62 75 67" +
		" 3a 11 63 6f 6d 2e 65 78 61 6d 70 6c 65 2e 64 65 62 75 67" +
		" 40 00 48 8b 4f 50 07"
	vecA15Want = AppProcess{PID: 4242, Debuggable: true, Profileable: true, Architecture: "x86_64",
		HasUserID: true, UserID: 0, ProcessName: "com.example.debug", PackageNames: []string{"com.example.debug"},
		HasWaiting: true, WaitingForDebugger: false, HasUID: true, UID: 10123}
)

func TestParseAppProcessesVectors(t *testing.T) {
	msg := unhex(t, vecA15+vecRelease)
	got, err := ParseAppProcesses(msg)
	if err != nil {
		t.Fatal(err)
	}
	want := []AppProcess{vecA15Want, vecReleaseWant} // sorted by pid
	if !reflect.DeepEqual(got.Processes, want) || got.Dropped != nil {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	// The encoder writes the same bytes, less the unknown field 10.
	enc := AppendAppProcesses(nil, []AppProcess{vecA15Want, vecReleaseWant})
	wantEnc := unhex(t, strings.Replace(vecA15, "0a 3e", "0a 3c", 1))
	wantEnc = append(wantEnc[:len(wantEnc)-2], unhex(t, vecRelease)...)
	if !bytes.Equal(enc, wantEnc) {
		t.Fatalf("encoded\n%x\nwant\n%x", enc, wantEnc)
	}
	// An empty message is an empty list.
	if l, err := ParseAppProcesses(nil); err != nil || len(l.Processes) != 0 {
		t.Fatalf("empty: %+v %v", l, err)
	}
}

func TestAppProcessesRoundTrip(t *testing.T) {
	in := []AppProcess{
		{PID: 1, Debuggable: true},
		{PID: 2147483647, Profileable: true, Architecture: "arm", HasUserID: true, UserID: 10, ProcessName: "a:b",
			PackageNames: []string{"a", "b", ""}, HasWaiting: true, WaitingForDebugger: true, HasUID: true, UID: 1010123},
	}
	got, err := ParseAppProcesses(AppendAppProcesses(nil, in))
	if err != nil || !reflect.DeepEqual(got.Processes, in) {
		t.Fatalf("round trip: %+v %v", got, err)
	}
}

func TestParseAppProcessesBadEntries(t *testing.T) {
	good := AppendAppProcess(nil, AppProcess{PID: 700, Profileable: true})
	for _, tc := range []struct {
		name, entry, why string
	}{
		{"pid 0", "18 01", "pid 0 is not a pid"},
		{"negative pid", "08 fb ff ff ff ff ff ff ff ff 01", "pid -5 is not a pid"},
		{"pid beyond int32", "08 80 80 80 80 08", "pid -1 is not a pid"},
		{"truncated varint", "08 92", "truncated"},
		{"string past the entry", "22 09 61 72 6d", "truncated: length 9, 3 bytes left"},
		{"group wire type", "53", "unsupported wire type 3"},
		{"pid as a string", "0a 01 31", "wire type 2, want 0"},
		{"varint over 64 bits", "08 ff ff ff ff ff ff ff ff ff 02", "varint longer than 64 bits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := unhex(t, tc.entry)
			msg := pbAppendBytes(nil, fieldProcess, bad)
			msg = pbAppendBytes(msg, fieldProcess, good)
			l, err := ParseAppProcesses(msg)
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Processes) != 1 || l.Processes[0].PID != 700 {
				t.Fatalf("the other entry is affected: %+v", l.Processes)
			}
			if len(l.Dropped) != 1 || !strings.Contains(l.Dropped[0], tc.why) || !strings.HasPrefix(l.Dropped[0], "process entry 1 (offset 0)") {
				t.Fatalf("dropped %q, want one line with %q", l.Dropped, tc.why)
			}
		})
	}
}

func TestParseAppProcessesDuplicatesAndUnknown(t *testing.T) {
	msg := pbAppendInt(nil, 15, 99) // unknown top-level varint
	msg = pbAppendBytes(msg, fieldProcess, AppendAppProcess(nil, AppProcess{PID: 5, Debuggable: true}))
	msg = append(msg, 0x39, 1, 2, 3, 4, 5, 6, 7, 8) // field 7, fixed64
	msg = append(msg, 0x45, 1, 2, 3, 4)             // field 8, fixed32
	msg = pbAppendBytes(msg, fieldProcess, AppendAppProcess(nil, AppProcess{PID: 5, Profileable: true}))
	l, err := ParseAppProcesses(msg)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Processes) != 1 || !l.Processes[0].Debuggable || len(l.Dropped) != 1 || !strings.Contains(l.Dropped[0], "pid 5 listed twice") {
		t.Fatalf("%+v", l)
	}
	// Many bad entries: the lines are bounded, the last counts the rest.
	var many []byte
	for i := 0; i < 100; i++ {
		many = pbAppendBytes(many, fieldProcess, []byte{0x08, 0x00})
	}
	l, err = ParseAppProcesses(many)
	if err != nil || len(l.Dropped) != maxDropped || l.Dropped[maxDropped-1] != "93 more entries left out" {
		t.Fatalf("%v %q", err, l.Dropped)
	}
}

func TestParseAppProcessesBrokenMessage(t *testing.T) {
	for name, h := range map[string]string{
		"truncated key":         "0a 02 08 01 92",
		"entry past the end":    "0a 20 08 01",
		"truncated length":      "0a",
		"field 0":               "02 00",
		"unknown truncated":     "39 01 02",
		"unknown group":         "0b",
		"length over 64 bits":   "0a ff ff ff ff ff ff ff ff ff 7f",
		"huge length 2^63 - 1 ": "0a ff ff ff ff ff ff ff ff 7f",
	} {
		_, err := ParseAppProcesses(unhex(t, h))
		if !errors.Is(err, ErrProtocol) {
			t.Errorf("%s: %v, want ErrProtocol", name, err)
		}
	}
}

func TestReadAppFrame(t *testing.T) {
	entry := unhex(t, vecRelease)
	read := func(stream []byte, maxLen int) ([][]byte, error) {
		br := bufio.NewReader(bytes.NewReader(stream))
		var out [][]byte
		for {
			b, err := readAppFrame(br, maxLen)
			var se skipError
			if errors.As(err, &se) {
				out = append(out, []byte("skipped"))
				continue
			}
			if err != nil {
				return out, err
			}
			out = append(out, b)
		}
	}
	// Two frames, the first empty (no processes): "0000" must not take the
	// next frame's digits as its own.
	stream := append([]byte("0000"), fmt.Appendf(nil, "%04x", len(entry))...)
	stream = append(stream, entry...)
	got, err := read(stream, 1<<20)
	if !errors.Is(err, errNoMore(err)) || len(got) != 2 || len(got[0]) != 0 || !bytes.Equal(got[1], entry) {
		t.Fatalf("%q %v", got, err)
	}
	// A 10 MB message as adbd's %04zx prints its length: refused without
	// being kept, and the next frame is read.
	big := 10_000_000
	stream = fmt.Appendf(nil, "%04x", big)
	stream = append(stream, make([]byte, big)...)
	stream = append(stream, fmt.Appendf(nil, "%04x", len(entry))...)
	stream = append(stream, entry...)
	got, err = read(stream, 1<<20)
	if len(got) != 2 || string(got[0]) != "skipped" || !bytes.Equal(got[1], entry) || !errors.Is(err, errNoMore(err)) {
		t.Fatalf("10 MB: %d frames, %v", len(got), err)
	}
	// A length that lies (more than the stream holds) ends with an error.
	_, err = read(append([]byte("00ff"), entry...), 1<<20)
	if err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Fatalf("lying length: %v", err)
	}
	// A length past the skip bound ends the stream.
	_, err = read([]byte("ffffffff"), 1<<20)
	if !errors.Is(err, ErrProtocol) {
		t.Fatalf("4 GiB: %v", err)
	}
	_, err = read([]byte("00zz"), 1<<20)
	if !errors.Is(err, ErrProtocol) {
		t.Fatalf("not hex: %v", err)
	}
}

// errNoMore returns err when it is the clean end of the test stream.
func errNoMore(err error) error {
	if err != nil && strings.Contains(err.Error(), "reading length: EOF") {
		return err
	}
	return errors.New("not the end")
}

func TestTrackApp(t *testing.T) {
	leakcheck.Check(t)
	one := AppendAppProcesses(nil, []AppProcess{vecReleaseWant})
	two := AppendAppProcesses(nil, []AppProcess{vecA15Want, vecReleaseWant})
	frame := func(b []byte) []byte { return append(fmt.Appendf(nil, "%04x", len(b)), b...) }
	srv := adbmock.Start(t, transportScript(map[string]func(*adbmock.Conn){
		"track-app": func(c *adbmock.Conn) {
			c.Split = true
			c.Write(frame(one))
			c.Write(frame(unhex(t, "0a 20 08 01"))) // broken: left out
			c.Write(frame(two))
			c.Write(append(fmt.Appendf(nil, "%x", 2<<20), make([]byte, 2<<20)...)) // oversize: left out
			c.Write(frame(nil))
		},
	}))
	c := &Client{Addr: srv.Addr()}
	var mu sync.Mutex
	var warned []string
	tr, err := c.TrackApp(ctxT(t), "SER", func(err error) {
		mu.Lock()
		warned = append(warned, err.Error())
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var lists [][]int
	for {
		v, ok := <-tr.Updates()
		if !ok {
			break
		}
		var pids []int
		for _, p := range v.Processes {
			pids = append(pids, p.PID)
		}
		lists = append(lists, pids)
	}
	if !errors.Is(tr.Err(), ErrStreamEnded) {
		t.Fatalf("end: %v", tr.Err())
	}
	if last := lists[len(lists)-1]; len(last) != 0 {
		t.Fatalf("last list %v, want empty", lists)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warned) != 2 || !strings.Contains(warned[0], "track-app message: protobuf: process") ||
		!strings.Contains(warned[1], "message of 2097152 bytes exceeds the bound of 1048576; left out") {
		t.Fatalf("warnings %q", warned)
	}

	// A device that does not offer track-app: FAIL closed.
	srv2 := adbmock.Start(t, transportScript(map[string]func(*adbmock.Conn){}))
	_, err = (&Client{Addr: srv2.Addr()}).TrackApp(ctxT(t), "SER", nil)
	if !IsRefused(err) || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("refused: %v", err)
	}
}
