package procfs

import (
	"reflect"
	"strings"
	"testing"
)

// The limits at their exact values and the inputs that end where an index
// could run past them: each case states what Parse answers.
func TestParseEdges(t *testing.T) {
	rec := func(tid, comm, ut, st string) string {
		return tid + " (" + comm + ") S 1 2 0 0 -1 4194560 616 0 0 0 " + ut + " " + st + " 0 0 20 0 1 0 24 0 0\n"
	}
	comm64 := strings.Repeat("c", MaxComm)
	for _, tc := range []struct {
		name string
		in   string
		want []Thread
		skip int
	}{
		{"digits only", "12", nil, 1},
		{"digits and a blank", "12 ", nil, 1},
		{"a ten-digit tid", rec("1234567890", "w", "1", "2"), []Thread{{1234567890, "w", 'S', 1, 2}}, 0},
		{"an eleven-digit tid", rec("12345678901", "w", "1", "2"), nil, 1},
		{"tid 0", rec("0", "w", "1", "2"), nil, 1},
		{"tid 1", rec("1", "w", "1", "2"), []Thread{{1, "w", 'S', 1, 2}}, 0},
		{"a comm of exactly MaxComm bytes", rec("9", comm64, "1", "2"), []Thread{{9, comm64, 'S', 1, 2}}, 0},
		{"a 19-digit time", rec("9", "w", "9999999999999999999", "2"), []Thread{{9, "w", 'S', 9999999999999999999, 2}}, 0},
		{"a 20-digit time", rec("9", "w", "10000000000000000000", "2"), nil, 1},
		{"blanks after the last record", rec("9", "w", "1", "2") + " \t", []Thread{{9, "w", 'S', 1, 2}}, 0},
		{"too few fields and a trailing blank", "9 (w) S 1 2 3 \n", nil, 1},
		{"a newline right after the '('", "5 (\n" + rec("6", "b", "2", "2"), []Thread{{6, "b", 'S', 2, 2}}, 1},
		// The comm runs to the LAST ") L" before the line's end, even one
		// the line ends with: the record then has no fields and is
		// skipped, not read from an earlier ") R ".
		{"the last ') S' ends the line", "9 (a) R 1 2 0 0 -1 0 0 0 0 0 5 6 b) S\n", nil, 1},
		{"the last ') S' ends a CR LF line", "9 (a) R 1 2 0 0 -1 0 0 0 0 0 5 6 b) S\r\n", nil, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Parse([]byte(tc.in))
			if !reflect.DeepEqual(r.Threads, tc.want) || r.Skipped != tc.skip {
				t.Errorf("got %+v skipped %d, want %+v skipped %d", r.Threads, r.Skipped, tc.want, tc.skip)
			}
		})
	}
}

// Format's line byte for byte: the fields Parse reads and the fixed ones,
// with the processor field (39) at TID mod 8.
func TestFormatBytes(t *testing.T) {
	got := string(Format(Thread{TID: 4251, Comm: "Binder:4242_1", State: 'R', UTime: 7, STime: 9}, 4242))
	want := "4251 (Binder:4242_1) R 1 4242 0 0 -1 1077936448 1024 0 0 0 7 9 0 0 10 -10 20 0 1000 1700000000 4000 " +
		"18446744073709551615 1 1 0 0 0 0 4612 1 1073775864 0 0 0 -1 3 0 0 0 0 0 0 0 0 0 0 0 0 0\n"
	if got != want {
		t.Errorf("Format:\n got %q\nwant %q", got, want)
	}
	if got := string(Format(Thread{TID: 5}, 1)); !strings.HasPrefix(got, "5 () S ") {
		t.Errorf("state 0 is written as S: %q", got)
	}
	if TruncComm("123456789012345") != "123456789012345" || TruncComm("1234567890123456") != "123456789012345" {
		t.Error("TruncComm at 15 and 16 bytes")
	}
}
