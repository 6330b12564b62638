package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/internal/budget"
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
