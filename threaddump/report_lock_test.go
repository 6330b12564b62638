package threaddump

import (
	"bytes"
	"strings"
	"testing"
)

// A lock line whose frame index is past the last frame: Format writes it
// after the last frame, and the JSON report keeps it on that frame (not in
// the note for lock lines before the first frame).
func TestReportLockPastLastFrame(t *testing.T) {
	th := &Thread{Name: "main", TID: 1, State: "Blocked",
		Frames: []Frame{JavaFrame("com.example.A", "run", "A.java:1"), JavaFrame("java.lang.Thread", "run", "Thread.java:1")},
		Locks:  []Lock{{Kind: LockHeld, Frame: 7, Object: "0x0c", Type: "java.lang.Object"}},
	}
	tr := threadReport(th, nil, 0)
	if len(tr.Frames) != 2 {
		t.Fatalf("%d frames in the report, want 2 (no note): %+v", len(tr.Frames), tr.Frames)
	}
	if len(tr.Frames[1].Locks) != 1 || tr.Frames[1].Locks[0].Object != "0x0c" || len(tr.Frames[0].Locks) != 0 {
		t.Errorf("locks by frame: %+v / %+v, want the lock on the last frame", tr.Frames[0].Locks, tr.Frames[1].Locks)
	}
	var b bytes.Buffer
	if err := Format(&b, &Process{PID: 1, Threads: []*Thread{th}}, StyleDalvik); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if i, j := strings.Index(out, "Thread.run"), strings.Index(out, "0x0c"); i < 0 || j < i {
		t.Errorf("Format writes the lock at %d, the last frame at %d:\n%s", j, i, out)
	}
}
