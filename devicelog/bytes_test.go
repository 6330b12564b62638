package devicelog_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// endlessLog is a device log of 4 KB entries without end (n of them).
type endlessLog struct {
	ctx  context.Context
	n, i int
	msg  string
}

func (l *endlessLog) Next(e *logcat.Entry) error {
	if l.i >= l.n {
		<-l.ctx.Done()
		return l.ctx.Err()
	}
	l.i++
	*e = logcat.Entry{Time: time.Unix(int64(l.i), 0), PID: 7, TID: 7, Priority: logcat.Info, Tag: "Flood", Message: l.msg}
	return nil
}

func (l *endlessLog) Close() error { return nil }

// TestDeviceLogBoundedByBytes: issue 30 #12. One device streaming 4 KB
// entries held 1.8 GB (200,000 entries); its ring now keeps
// logcat.DefaultRingBytes of text, and two such devices together the
// process budget's share — no more.
func TestDeviceLogBoundedByBytes(t *testing.T) {
	leakcheck.Check(t)
	streams := devicelog.NewLogs(0)
	defer streams.Close()
	msg := strings.Repeat("x", 4000)
	const n = 12_000 // 48 MB of text per device
	var logs []*devicelog.Log
	for _, key := range []string{"sim:a", "sim:b", "sim:c"} {
		opened := false
		logs = append(logs, streams.Source(key, func(ctx context.Context) (devicelog.EntryReader, error) {
			if opened {
				return nil, errors.New("once")
			}
			opened = true
			return &endlessLog{ctx: ctx, n: n, msg: msg}, nil
		}))
	}
	waitFor(t, "every entry read", 30*time.Second, func() bool {
		for _, d := range logs {
			if _, next := d.Ring().Bounds(); next != n+1 {
				return false
			}
		}
		return true
	})
	cost := (&logcat.Entry{Tag: "Flood", Message: msg}).Cost()
	var total int64
	for _, d := range logs {
		b := d.Ring().Bytes()
		if b > logcat.DefaultRingBytes+cost {
			t.Errorf("a ring holds %d bytes, bound %d", b, logcat.DefaultRingBytes)
		}
		total += b
	}
	if used := streams.Budget().Used(); used != total || used > logcat.DefaultProcessLogBytes+3*cost {
		t.Fatalf("the rings hold %d bytes (budget counts %d), process bound %d", total, used, logcat.DefaultProcessLogBytes)
	}
	t.Logf("3 devices × %d entries of 4 KB: rings hold %d MiB", n, total>>20)
	// The share is drawn from the process-wide budget, and Close gives it
	// back (and leaves the budget's reclaimers); the entries stay readable.
	before, reclaimers := budget.Process.Used(), budget.Process.Reclaimers()
	if before < total || reclaimers < 3 {
		t.Fatalf("the process-wide budget counts %d bytes and %d reclaimers; the rings hold %d", before, reclaimers, total)
	}
	streams.Close()
	if after := budget.Process.Used(); before-after != total || budget.Process.Reclaimers() != reclaimers-3 {
		t.Fatalf("Close gave back %d of %d bytes; %d reclaimers left of %d", before-after, total, budget.Process.Reclaimers(), reclaimers)
	}
	if _, next := logs[0].Ring().Bounds(); next != n+1 || logs[0].Ring().Len() == 0 {
		t.Fatal("the entries went with Close")
	}
}
