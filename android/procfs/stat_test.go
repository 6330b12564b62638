package procfs

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestParseSample(t *testing.T) {
	b, err := os.ReadFile("testdata/app_task_stat.txt")
	if err != nil {
		t.Fatal(err)
	}
	r := Parse(b)
	want := []Thread{
		{4242, "com.example.mode", 'S', 1523, 402},
		{4247, "Signal Catcher", 'S', 0, 0},
		{4249, "HeapTaskDaemon", 'R', 311, 27},
		{4251, "Binder:4242_1", 'S', 7, 9},
		{4270, "RenderThread", 'D', 812, 211},
		{4271, "hwuiTask1", 'S', 1, 0},
		{4275, "Jit thread pool", 'S', 95, 14},
		{4280, "io (worker) 2)", 'T', 4, 3},
		{4281, "a) S (b", 'Z', 0, 0},
		{4290, "kworker", 'I', 0, 1},
	}
	if !reflect.DeepEqual(r.Threads, want) {
		t.Errorf("threads:\n got %+v\nwant %+v", r.Threads, want)
	}
	// cat's error line for the vanished thread, and the cut last record.
	if r.Skipped != 2 {
		t.Errorf("skipped %d, want 2", r.Skipped)
	}
}

func TestParseShapes(t *testing.T) {
	line := func(tid, comm, state string, ut, st string) string {
		return tid + " (" + comm + ") " + state + " 1 2 0 0 -1 4194560 616 0 0 0 " + ut + " " + st + " 0 0 20 0 1 0 24 0 0\n"
	}
	for _, tc := range []struct {
		name string
		in   string
		want []Thread
		skip int
	}{
		{"empty", "", nil, 0},
		{"one", line("7", "main", "R", "12", "3"), []Thread{{7, "main", 'R', 12, 3}}, 0},
		{"crlf from a pty shell", strings.ReplaceAll(line("7", "main", "S", "1", "2")+line("8", "x y", "t", "5", "6"), "\n", "\r\n"),
			[]Thread{{7, "main", 'S', 1, 2}, {8, "x y", 't', 5, 6}}, 0},
		{"no final newline", strings.TrimSuffix(line("9", "w", "X", "4", "4"), "\n"), []Thread{{9, "w", 'X', 4, 4}}, 0},
		{"empty comm", line("9", "", "S", "0", "1"), []Thread{{9, "", 'S', 0, 1}}, 0},
		{"parens only", line("9", "))((", "S", "0", "1"), []Thread{{9, "))((", 'S', 0, 1}}, 0},
		{"unknown state letter", line("9", "w", "Q", "0", "1"), nil, 1},
		{"too few fields", "9 (w) S 1 2 3\n", nil, 1},
		{"bad number", line("9", "w", "S", "x", "1"), nil, 1},
		{"no tid", "(w) S 1 2 0 0 -1 4194560 616 0 0 0 1 1\n", nil, 1},
		{"comm too long", line("9", strings.Repeat("a", MaxComm+1), "S", "1", "1"), nil, 1},
		{"blank lines", "\n\n" + line("7", "m", "S", "1", "1") + "\n", []Thread{{7, "m", 'S', 1, 1}}, 0},
		{"newline in comm is not read into the next record", "5 (a\n" + line("6", "b", "S", "2", "2"), []Thread{{6, "b", 'S', 2, 2}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Parse([]byte(tc.in))
			if !reflect.DeepEqual(r.Threads, tc.want) || r.Skipped != tc.skip {
				t.Errorf("got %+v skipped %d, want %+v skipped %d", r.Threads, r.Skipped, tc.want, tc.skip)
			}
		})
	}
}

func TestFormatRoundTrip(t *testing.T) {
	in := []Thread{{100, "main", 'R', 5, 6}, {101, "a) b (c", 'S', 0, 0}, {102, "Binder:100_2", 'I', 1 << 40, 3}}
	var b []byte
	for _, th := range in {
		b = append(b, Format(th, 100)...)
	}
	r := Parse(b)
	if !reflect.DeepEqual(r.Threads, in) || r.Skipped != 0 {
		t.Errorf("round trip: got %+v skipped %d", r.Threads, r.Skipped)
	}
}

func TestStateNames(t *testing.T) {
	for l, want := range map[byte]string{'R': "running", 'S': "sleeping", 'D': "disk-sleep", 'T': "stopped",
		't': "tracing-stop", 'Z': "zombie", 'X': "dead", 'I': "idle", '?': ""} {
		if got := StateName(l); got != want {
			t.Errorf("%c: %q, want %q", l, got, want)
		}
	}
	if TruncComm("com.example.mail.sync") != "com.example.mai" || TruncComm("main") != "main" {
		t.Error("TruncComm")
	}
}

func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile("testdata/app_task_stat.txt"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("1 (a) S 1 1 0 0 -1 0 0 0 0 0 1 2 0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r := Parse(b)
		for _, th := range r.Threads {
			if th.TID <= 0 || len(th.Comm) > MaxComm || StateName(th.State) == "" {
				t.Fatalf("bad thread %+v", th)
			}
			// What was parsed parses again to the same values.
			again := Parse(Format(th, 1))
			if len(again.Threads) != 1 || again.Threads[0] != th {
				if !strings.Contains(th.Comm, "\n") {
					t.Fatalf("reparse of %+v: %+v", th, again)
				}
			}
		}
	})
}
