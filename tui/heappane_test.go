package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/heap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// tallHeap is a heap of many bitmap rows: 40 segments of 4,000 units,
// alternating kinds, with free gaps.
func tallHeap(t *testing.T) *heap.Snapshot {
	w := ddm.NewSegmentWriter(ddm.TypeHPSG, 1, 8)
	w.Start(0x12C00000)
	for i := 0; i < 400; i++ {
		if err := w.Append(ddm.NewState(ddm.Kind(i%6), ddm.SolidityHard), 300); err != nil {
			t.Fatal(err)
		}
		if err := w.Append(ddm.StateFree, 100); err != nil {
			t.Fatal(err)
		}
	}
	return heap.NewSnapshot(1, ddm.TypeHPSG, w.Segments())
}

// Colouring by solidity totals by solidity; the legend explains the
// shades; the footer names the map's mode (HPSG or HPSO) and is never cut
// mid-part at 120 columns.
func TestHeapPaneSolidityTotalsModeAndShades(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.store.SetSegments("local:8000", specSnapshot(t))
	hs.waitText("merged runs (HPSG)")
	hs.waitText("░ <¼  ▒ <½ used")
	hs.waitText("1-byte[] 2") // per-kind totals
	hs.key(tcell.KeyRune, 'c')
	hs.waitText("finalizable")
	hs.waitFor("per-solidity totals", func(s string) bool {
		return strings.Contains(s, "hard ") && !strings.Contains(s, "1-byte[] 2")
	})
	for _, line := range hs.text() {
		if i := strings.Index(line, "rows "); i >= 0 && strings.Contains(line, "│") {
			inner := line[i:strings.LastIndex(line, "│")]
			if strings.HasSuffix(strings.TrimSpace(inner), "·") {
				t.Fatalf("footer cut mid-part: %q", line)
			}
		}
	}
	seg, err := ddm.DecodeHeapSegment(ddm.TypeHPSO, []byte{0, 0, 0, 1, 8, 0x12, 0xC0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x3C,
		0x01, 0x01, 0x19, 0x03, 0x00, 0x09, 0x91, 0xFF, 0x11, 0x2B})
	if err != nil {
		t.Fatal(err)
	}
	hs.key(tcell.KeyRune, 'b')
	hs.store.SetSegments("local:8000", heap.NewSnapshot(1, ddm.TypeHPSO, []ddm.HeapSegment{*seg}))
	hs.waitText("objects (HPSO)")
}

// In the heap pane PgDn moves one page of bitmap rows (no row skipped) and
// End goes to the last row.
func TestHeapPaneScrollKeys(t *testing.T) {
	hs := start(t, 120, 40, style.Palette{}, twoVMs)
	hs.store.SetSegments("local:8000", tallHeap(t))
	hs.waitText("rows 1-")
	hs.key(tcell.KeyRune, '+')
	hs.key(tcell.KeyRune, '+')
	hs.key(tcell.KeyRune, '+')
	hs.key(tcell.KeyTab, 0)
	hs.key(tcell.KeyTab, 0) // the heap pane
	// Keys are handled some time after they are injected: wait until all
	// three zoom steps took effect before reading the row count.
	hs.waitFor("three zoom steps", func(string) bool {
		z := 0
		hs.dash.App().QueueUpdate(func() { z = hs.dash.heapP.view.zoom })
		return z == 3
	})
	var first, page int
	hs.waitFor("zoomed rows", func(s string) bool {
		_, err := fmtSscan(s, "rows 1-%d of %d", &page, &first)
		return err == nil && first > page
	})
	total := first
	hs.key(tcell.KeyPgDn, 0)
	hs.waitText(strings.Join([]string{"rows ", itoa(page + 1), "-"}, ""))
	hs.key(tcell.KeyEnd, 0)
	hs.waitText("-" + itoa(total) + " of " + itoa(total))
	hs.key(tcell.KeyHome, 0)
	hs.waitText("rows 1-")
}

func itoa(n int) string { return fmt.Sprint(n) }

// fmtSscan scans the first line of s holding the format's literal prefix.
func fmtSscan(s, format string, args ...any) (int, error) {
	prefix := format[:strings.Index(format, "%")]
	i := strings.Index(s, prefix)
	if i < 0 {
		return 0, fmt.Errorf("no %q", prefix)
	}
	return fmt.Sscanf(s[i:], format, args...)
}
