package monitor

import (
	"context"
	"testing"
	"time"
)

// TestSigquitDumpWaitsForTheNewBlock: the ANR file already holds an older
// dump of the pid; after kill -3 the runtime appends the new one in two
// writes. The dump returned is the file with the new, complete block, never
// the old one alone nor a half-written block.
func TestSigquitDumpWaitsForTheNewBlock(t *testing.T) {
	old := "\n----- pid 42 at 2026-01-01 00:00:00 -----\nCmd line: com.example.app\n\"main\" prio=5 tid=1 Sleeping\n----- end 42 -----\n"
	half := "\n----- pid 42 at 2026-11-23 20:00:00 -----\nCmd line: com.example.app\n"
	rest := "\"main\" prio=5 tid=1 Runnable\n----- end 42 -----\n"
	d := &fakeDevice{
		exec:  map[string]string{}, // debuggerd -j and run-as: not found
		files: map[string][]byte{ANRPath: []byte(old)},
	}
	signalled, pulls := false, 0
	d.onCommand = func(cmd string) (string, bool) {
		if cmd == "kill -3 42" {
			signalled = true
			return "", true
		}
		return "", false
	}
	d.onPull = func(path string) { // d.mu is held
		if !signalled || path != ANRPath {
			return
		}
		pulls++
		switch pulls {
		case 2:
			d.files[ANRPath] = []byte(old + half)
		case 4:
			d.files[ANRPath] = []byte(old + half + rest)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	got, err := d.session(t).ThreadDump(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != old+half+rest {
		t.Fatalf("dump returned after %d reads:\n%s", pulls, got)
	}
	if pulls < 5 {
		t.Fatalf("returned after %d reads: before the new block was complete", pulls)
	}
}
