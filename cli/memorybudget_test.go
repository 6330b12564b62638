package cli

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/internal/memlimit"
	"github.com/ddmtui/ddmtui/record"
)

// --memory-budget sets the process-wide budget, and a replayed recording's
// records draw on it (issue 37 #8, "one budget"): 48 records of 1 MiB of
// zeros (a few KB of file) replay under a 24M budget (12 MiB for the
// recording) with the rest left out, said on stderr.
func TestMemoryBudgetBoundsReplay(t *testing.T) {
	defer budget.Process.SetLimit(budget.DefaultProcess)
	f, err := os.Create(filepath.Join(t.TempDir(), "zeros.ddmrec"))
	if err != nil {
		t.Fatal(err)
	}
	w, err := record.NewWriter(f, record.CompressZstd, time.Unix(1700000000, 0))
	if err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for i := range 48 {
		if err := w.Add(record.Record{Time: time.Duration(i) * time.Millisecond, Kind: record.KindLog, Data: zeros}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, stderr, err := runAppSplit(t, "replay", "--memory-budget", "24M", "--at", "0", f.Name())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "the recording's records pass the memory budget") || !strings.Contains(stderr, "of 24 MiB held, 11 MiB of records read") {
		t.Fatalf("stderr %q", stderr)
	}
	if budget.Process.Limit() != 24<<20 {
		t.Errorf("budget %d", budget.Process.Limit())
	}
	if _, _, err := runAppSplit(t, "list", "--memory-budget", "1M", "--adb", "off", "--scan", "off"); err == nil || !strings.Contains(err.Error(), "at least 16M") {
		t.Errorf("a 1M budget: %v", err)
	}
}

// A run in which the memory budget let things go says so on stderr at the
// end (how many, the last, escaped); a run without a drop says nothing.
func TestMemoryDropsNoteAtTheEnd(t *testing.T) {
	defer budget.Process.SetLimit(budget.Process.Limit())
	app := NewApp()
	var stderr strings.Builder
	app.ErrWriter = &stderr
	c := cli.NewContext(app, nil, nil)
	if err := applyMemoryBudget(c); err != nil {
		t.Fatal(err)
	}
	memoryDropsNote(c)
	if stderr.Len() != 0 {
		t.Fatalf("a note without a drop: %q", stderr.String())
	}
	var held sync.Mutex
	pic := budget.Process.Child(0)
	pic.Take(1 << 20)
	stop := pic.Reclaimer(budget.RankPicture, func(int64) (int64, string) {
		held.Lock()
		defer held.Unlock()
		pic.Give(1 << 20)
		return 1 << 20, "the capture of \x1b]2;x\x07"
	})
	defer stop()
	budget.Process.SetLimit(budget.Process.Used())
	if !budget.Process.Take(1) {
		t.Fatal("no room made")
	}
	budget.Process.Give(1)
	memoryDropsNote(c)
	if got := stderr.String(); !strings.Contains(got, "let 1 thing go to make room; the last: dropped 1.0 MiB: the capture of \\x1b]2;x\\x07\n") {
		t.Fatalf("stderr %q", got)
	}
}

// A watching command's soft memory limit is seven eighths of the budget
// (the rest for what the collector does not count), restored when it
// ends; no budget, no base.
func TestWatchMemory(t *testing.T) {
	defer budget.Process.SetLimit(budget.Process.Limit())
	prev := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(prev)
	before := memlimit.Limit()
	budget.Process.SetLimit(256 << 20)
	restore := watchMemory()
	if got := memlimit.Limit() - before; got != 224<<20 {
		t.Errorf("budget 256 MiB: base %d, want 224 MiB", got)
	}
	if got := debug.SetMemoryLimit(-1); got != memlimit.Limit() {
		t.Errorf("the runtime's limit %d, not %d", got, memlimit.Limit())
	}
	budget.Process.SetLimit(0)
	unlimited := watchMemory()
	if got := memlimit.Limit(); got != before {
		t.Errorf("no budget: limit %d, want %d", got, before)
	}
	unlimited()
	restore()
	if got := memlimit.Limit(); got != before {
		t.Errorf("ended: limit %d, want %d", got, before)
	}
}
