package heapdump

import (
	"bytes"
	"strings"
	"testing"
)

func strp(s string) *string { return &s }

// textReport is a hand-made report touching every line kind of WriteText:
// every size unit, a class object, a leak path with its blamed hop, a
// string of exactly 60 runes (not cut) and one of 61 (cut), bitmaps with
// and without pixels.
func textReport() *Report {
	return &Report{Version: "JAVA PROFILE 1.0.3", IDSize: 4, Objects: 9, Reachable: 7,
		Heaps: []HeapRow{{Name: "app", Objects: 3, Bytes: 1536}},
		Classes: []ClassRow{{Name: "com.example.A", Instances: 2, Shallow: 24, Retained: 3 << 20},
			{Name: "B", Instances: 1, Shallow: 8, Retained: 8}},
		Dominators: []DominatorJSON{{ID: "0x10", Class: "java.lang.Class", Of: "com.example.S", Retained: 5 << 30},
			{ID: "0x11", Class: "B", Retained: 1023}},
		Leaks: []LeakJSON{{ID: "0x20", Class: "com.example.Main", Kind: "activity", Reason: "destroyed", Retained: 1024, Depth: 3, Blame: 2,
			Path: []StepJSON{{Class: "java.lang.Class", Of: "com.example.S", ID: "0x10"},
				{Class: "java.util.ArrayList", ID: "0x21", Field: strp("sList")},
				{Class: "java.lang.Object[]", ID: "0x22", Field: strp("[0]")},
				{Class: "com.example.Main", ID: "0x20", Field: strp("[3]")}}}},
		DuplicateStrings: []DuplicateJSON{{Value: strings.Repeat("é", 60), Count: 2, Wasted: 120},
			{Value: strings.Repeat("x", 61), Count: 3, Wasted: 2048}},
		Bitmaps: []BitmapJSON{{ID: "0x30", Width: 4, Height: 2, PixelBytes: 32, PixelsInDump: true, Source: "mBuffer", Format: "ARGB_8888"},
			{ID: "0x31", Width: 100, Height: 1}},
	}
}

const textReportWant = `heap dump a.hprof: JAVA PROFILE 1.0.3, 4-byte ids, 9 objects (7 reachable)
sizes are shallow sizes as the dump gives them, without object headers

Heaps
  app                 3 objects      1.5 KiB

Top classes by retained size (of 2)
      retained      shallow  instances  class
       3.0 MiB         24 B          2  com.example.A
           8 B          8 B          1  B

Top dominators
      retained  object
       5.0 GiB  class com.example.S 0x10
        1023 B  B 0x11

Leaks (1)
  com.example.Main 0x20: activity destroyed, retains 1.0 KiB
    class com.example.S 0x10 (GC root)
    └─ sList → java.util.ArrayList 0x21
     └─ [0] → java.lang.Object[] 0x22   ← likely cause
      └─ [3] → com.example.Main 0x20

Duplicate strings
       120 B wasted      2 ×  "` + "éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé" + `"
     2.0 KiB wasted      3 ×  "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"…

Bitmaps (2)
  0x30     4 x 2     32 B of ARGB_8888 pixels (mBuffer)
  0x31   100 x 1     pixels not in the dump
`

func writeText(t *testing.T, r *Report, o TextOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteText(&b, r, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// WriteText's report line by line; Top 0 means 20 rows, Top 1 one row per
// section; an empty report says so; a cut file says where.
func TestWriteTextExact(t *testing.T) {
	if got := writeText(t, textReport(), TextOptions{File: "a.hprof"}); got != textReportWant {
		t.Errorf("got\n%s\nwant\n%s", got, textReportWant)
	}
	one := writeText(t, textReport(), TextOptions{File: "a.hprof", Top: 1})
	for _, cut := range []string{"\n           8 B          8 B          1  B\n", "\n        1023 B  B 0x11\n",
		"\n     2.0 KiB wasted", "\n  0x31 "} {
		if strings.Contains(one, cut) {
			t.Errorf("Top 1 still shows %q:\n%s", cut, one)
		}
	}
	if strings.Count(one, "\n") != strings.Count(textReportWant, "\n")-4 {
		t.Errorf("Top 1:\n%s", one)
	}
	empty := &Report{Version: "JAVA PROFILE 1.0.2", IDSize: 8, Truncated: true, TruncatedAt: 4096}
	want := `heap dump: JAVA PROFILE 1.0.2, 8-byte ids, 0 objects (0 reachable)
the file is cut short: analysed up to offset 4096, the last complete record
sizes are shallow sizes as the dump gives them, without object headers

Heaps

Top classes by retained size (of 0)
      retained      shallow  instances  class

Top dominators
      retained  object

Leaks (0)
  no destroyed Activity or detached Fragment is reachable

Duplicate strings
  none

Bitmaps (0)
`
	if got := writeText(t, empty, TextOptions{}); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[uint64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB",
		1<<20 - 1: "1024.0 KiB", 1 << 20: "1.0 MiB", 3 << 19: "1.5 MiB", 1<<30 - 1: "1024.0 MiB",
		1 << 30: "1.0 GiB", 3 << 29: "1.5 GiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestWriteDiffText(t *testing.T) {
	rows := []DiffRow{{Name: "com.example.A", InstancesDelta: 2, ShallowDelta: 48, RetainedDelta: -7717},
		{Name: "B", InstancesDelta: 0, ShallowDelta: -8, RetainedDelta: 0}}
	head := "   shallow Δ    count Δ   retained Δ  class\n" // widths count runes
	a := "       +48 B         +2     -7.5 KiB  com.example.A\n"
	b := "        -8 B          0          0 B  B\n"
	for _, c := range []struct {
		rows []DiffRow
		top  int
		want string
	}{
		{rows, 2, head + a + b},
		{rows, 5, head + a + b},
		{rows, 1, head + a + "… 1 more (--top)\n"},
		{rows, 0, head + "… 2 more (--top)\n"},
		{rows, -1, head + "… 2 more (--top)\n"}, // not 3: a negative top shows none of the 2
		{nil, 3, head + "  no class changed\n"},
	} {
		var buf bytes.Buffer
		if err := WriteDiffText(&buf, c.rows, c.top); err != nil {
			t.Fatal(err)
		}
		if buf.String() != c.want {
			t.Errorf("top %d: got\n%s\nwant\n%s", c.top, buf.String(), c.want)
		}
	}
}

func TestWritePathText(t *testing.T) {
	ps := &PathsJSON{Paths: []PathJSON{
		{ID: "0x5", Reachable: false},
		{ID: "0x20", Reachable: true, Depth: 3, Path: []StepJSON{{Class: "java.lang.Class", Of: "com.example.S", ID: "0x10"},
			{Class: "java.util.ArrayList", ID: "0x21", Field: strp("sList")},
			{Class: "com.example.[b]Main\x1b", ID: "0x20", Field: strp("[0]")}}},
	}}
	want := `0x5: not reachable from a GC root (garbage, or held only through Reference.referent)
0x20: depth 3
  class com.example.S 0x10 (GC root)
  └─ sList → java.util.ArrayList 0x21
   └─ [0] → com.example.[b]Main\x1b 0x20
`
	var buf bytes.Buffer
	if err := WritePathText(&buf, ps); err != nil {
		t.Fatal(err)
	}
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}
