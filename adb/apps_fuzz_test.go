package adb

import (
	"bufio"
	"bytes"
	"reflect"
	"testing"
)

// FuzzParseAppProcesses: any bytes either fail with ErrProtocol or give
// entries with positive, unique, sorted pids that re-encode to a message
// decoding to the same entries, with nothing dropped.
func FuzzParseAppProcesses(f *testing.F) {
	f.Add(unhex(f, vecA15+vecRelease))
	f.Add(unhex(f, "0a 02 08 92"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := ParseAppProcesses(b)
		if err != nil {
			return
		}
		if len(l.Dropped) > maxDropped {
			t.Fatalf("%d dropped lines", len(l.Dropped))
		}
		for i, p := range l.Processes {
			if p.PID <= 0 || i > 0 && l.Processes[i-1].PID >= p.PID {
				t.Fatalf("bad pid order %+v", l.Processes)
			}
		}
		again, err := ParseAppProcesses(AppendAppProcesses(nil, l.Processes))
		if err != nil || len(again.Dropped) != 0 {
			t.Fatalf("re-encoding: %v %q", err, again.Dropped)
		}
		if len(again.Processes) != len(l.Processes) || len(l.Processes) > 0 && !reflect.DeepEqual(again.Processes, l.Processes) {
			t.Fatalf("re-encoding changed\n%+v\n%+v", l.Processes, again.Processes)
		}
	})
}

// FuzzReadAppFrame: a frame reader never returns more than the bound and
// never panics, whatever the stream.
func FuzzReadAppFrame(f *testing.F) {
	f.Add([]byte("000e"+string(unhex(f, vecRelease))), 64)
	f.Add([]byte("1000000"), 64)
	f.Add([]byte("0000000c"), 8)
	f.Fuzz(func(t *testing.T, b []byte, maxLen int) {
		if maxLen < 0 || maxLen > 1<<16 {
			return
		}
		br := bufio.NewReader(bytes.NewReader(b))
		for i := 0; i < 64; i++ {
			msg, err := readAppFrame(br, maxLen)
			if len(msg) > maxLen {
				t.Fatalf("%d bytes past the bound %d", len(msg), maxLen)
			}
			if _, skipped := err.(skipError); err != nil && !skipped {
				return
			}
		}
	})
}
