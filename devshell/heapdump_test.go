package devshell

import (
	"bytes"
	"io"
	"testing"
)

// An HPROF file is complete once it ends with a HEAP DUMP END record, and
// dumpCheck sees that record however the bytes are split.
func TestDumpCheck(t *testing.T) {
	full := append([]byte("JAVA PROFILE 1.0.3\x00\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x00"), 0x2C, 0, 0, 0, 0, 0, 0, 0, 0)
	partial := full[:len(full)-9]
	if !hprofComplete(full) || hprofComplete(partial) || hprofComplete(nil) {
		t.Error("hprofComplete")
	}
	notEnd := append(append([]byte(nil), partial...), 0x2C, 0, 0, 0, 0, 0, 0, 0, 1) // length 1: not the end record
	if hprofComplete(notEnd) {
		t.Error("a record with a length taken as the end")
	}
	for _, step := range []int{1, 2, 5, 9, 10, len(full)} {
		var out bytes.Buffer
		c := &dumpCheck{w: &out}
		for i := 0; i < len(full); i += step {
			c.Write(full[i:min(i+step, len(full))])
		}
		if !c.complete() || !bytes.HasPrefix(c.head, []byte("JAVA PROFILE 1.0.3")) || !bytes.Equal(out.Bytes(), full) {
			t.Errorf("step %d: complete %v, head %q", step, c.complete(), c.head)
		}
	}
	c := &dumpCheck{w: io.Discard}
	c.Write(partial)
	if c.complete() {
		t.Error("partial dump taken as complete")
	}
}

func TestProgressWriter(t *testing.T) {
	var seen []uint64
	var out bytes.Buffer
	w := ProgressWriter(&out, func(n uint64) { seen = append(seen, n) })
	w.Write([]byte("abc"))
	w.Write([]byte("de"))
	if out.String() != "abcde" || len(seen) != 2 || seen[0] != 3 || seen[1] != 5 {
		t.Fatalf("%q %v", out.String(), seen)
	}
	if ProgressWriter(&out, nil) != io.Writer(&out) {
		t.Fatal("no progress: not the writer itself")
	}
}

func TestDumpheapCommand(t *testing.T) {
	if got := dumpheapCommand(42, "/data/local/tmp/x.hprof", true); got != "am dumpheap -b png 42 /data/local/tmp/x.hprof" {
		t.Errorf("bitmaps: %q", got)
	}
	if got := dumpheapCommand(42, "/data/local/tmp/x.hprof", false); got != "am dumpheap 42 /data/local/tmp/x.hprof" {
		t.Errorf("plain: %q", got)
	}
}
