package meminfo

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// Format's rows that are sums and halves, byte for byte; no Objects section
// without objects; an even number of objects fills both columns.
func TestFormatRows(t *testing.T) {
	m := MemInfo{PID: 9, Process: "p", TotalPSS: p(700), TotalRSS: p(900), TotalSwapPSS: p(12),
		JavaHeap: p(20), NativeHeap: p(30), Code: p(9), PrivateOther: p(3001),
		DalvikHeapSize: p(65536), DalvikHeapAlloc: p(20000), DalvikHeapFree: p(45536),
		NativeHeapSize: p(40000), NativeHeapAlloc: p(30000), NativeHeapFree: p(10000)}
	var buf bytes.Buffer
	if err := Format(&buf, m); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		" Dalvik Other     1500     1500        0        0     1500\n",
		"        TOTAL      700       50        9       12      900   105536    50000    55536\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("Format lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Objects") {
		t.Errorf("an Objects section without objects:\n%s", out)
	}
	m.Objects = map[string]int64{"views": 4, "activities": 2}
	buf.Reset()
	if err := Format(&buf, m); err != nil {
		t.Fatal(err)
	}
	if want := "\n Objects\n          Activities:        2                Views:        4\n\n"; !strings.HasSuffix(buf.String(), want) {
		t.Errorf("Objects section:\n%q\nwant suffix %q", buf.String(), want)
	}
}

// Lines at the exact length bound, rows shorter than the header, the App
// Summary's column split at its exact place, and labels and values that end
// where an index could run past them.
func TestParseEdges(t *testing.T) {
	const table = "** MEMINFO in pid 7 [x] **\n" +
		"                   Pss  Private  Private  Swapped     Heap     Heap     Heap      Rss\n" +
		"                 Total    Dirty    Clean    Dirty     Size    Alloc     Free    Total\n" +
		"                ------   ------   ------   ------   ------   ------   ------   ------\n"
	objects := func(line string) string { return "** MEMINFO in pid 7 [x] **\n Objects\n" + line + "\n" }
	summary := func(line string) string { return "** MEMINFO in pid 7 [x] **\n App Summary\n" + line + "\n" }
	pad := func(s string, n int) string { return s + strings.Repeat(" ", n-len(s)) }
	for _, tc := range []struct {
		name string
		in   string
		want MemInfo
	}{
		{"a line of exactly MaxLineLen bytes is read", objects(pad("  Views: 12", MaxLineLen)),
			MemInfo{PID: 7, Process: "x", Objects: map[string]int64{"views": 12}}},
		{"a line of MaxLineLen+1 bytes is not", objects(pad("  Views: 12", MaxLineLen+1)),
			MemInfo{PID: 7, Process: "x"}},
		{"a row with fewer values than columns", table + "  Dalvik Heap 1 2 3 4\n",
			MemInfo{PID: 7, Process: "x"}},
		{"the table's Rss Total without an App Summary", table + "        TOTAL 40 30 5 0 45 30 15 88\n",
			MemInfo{PID: 7, Process: "x", TotalPSS: p(40), TotalRSS: p(88)}},
		{"a malformed pid: the name is read after it", "** MEMINFO in pid 7[ [x] **\n",
			MemInfo{Process: "x"}},
		{"a value ending 20 columns after the colon is PSS", summary("Code:" + strings.Repeat(" ", 14) + "12345"),
			MemInfo{PID: 7, Process: "x", Code: p(12345)}},
		{"one column further it is RSS", summary("Code:" + strings.Repeat(" ", 15) + "12345"),
			MemInfo{PID: 7, Process: "x", CodeRSS: p(12345)}},
		{"a zero value", summary("               Stack:        0"),
			MemInfo{PID: 7, Process: "x", Stack: p(0)}},
		{"numbers before the first colon are not the values", summary("9: Code:" + strings.Repeat(" ", 30) + "7"),
			MemInfo{PID: 7, Process: "x", CodeRSS: p(7)}},
		{"a value ending in 0 ends the label before the next", objects("  Views: 10   ViewRootImpl: 1"),
			MemInfo{PID: 7, Process: "x", Objects: map[string]int64{"views": 10, "view_root_impl": 1}}},
		{"a line ending in a colon", objects("  Views: 3 Assets:"),
			MemInfo{PID: 7, Process: "x", Objects: map[string]int64{"views": 3}}},
		{"a number run into letters is no value", objects("  Views: 12x"),
			MemInfo{PID: 7, Process: "x"}},
		{"a label without a value does not join the next label", objects("  Foo: Views: 5"),
			MemInfo{PID: 7, Process: "x", Objects: map[string]int64{"views": 5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Parse([]byte(tc.in)); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %s\nwant %s", dump(got), dump(tc.want))
			}
		})
	}
}

// snake at the places its look-behind and look-ahead reach the ends.
func TestSnakeEdges(t *testing.T) {
	for in, want := range map[string]string{"SSL": "ssl", "OpenSSL": "open_ssl", "OpenSSLSockets": "open_ssl_sockets",
		"Web2View": "web2_view", "A1B": "a1_b", "(x)": "x", " Views": "views"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}
