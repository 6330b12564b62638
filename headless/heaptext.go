package headless

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ddmtui/ddmtui/internal/safetext"
)

// WriteHeapMapText prints a heap map's summary for people: what `heap
// --pid N` prints without --png or --json.
func WriteHeapMapText(w io.Writer, h HeapMap) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (pid %d), %s heap (%s): %d segments, %d units of %d bytes\n",
		safetext.Terminal(h.App), h.PID, h.Heap, h.Type, h.Segments, h.TotalUnits, h.UnitSize)
	fmt.Fprintf(&b, "used %s, free %s in %d runs (largest %s), fragmentation %.1f%%\n",
		bytesText(h.UsedBytes), bytesText(h.FreeBytes), h.FreeRuns, bytesText(h.LargestFree), 100*h.Fragmentation)
	writeUnits(&b, "by kind:", h.UnitsByKind, uint64(h.UnitSize))
	writeUnits(&b, "by solidity:", h.UnitsBySolidity, uint64(h.UnitSize))
	if len(h.Histogram) > 0 {
		b.WriteString("object sizes:\n")
		for _, s := range h.Histogram {
			fmt.Fprintf(&b, "  %8s-%-8s %9d objects %10s\n", bytesText(s.MinBytes), bytesText(s.MaxBytes), s.Count, bytesText(s.Bytes))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeUnits prints one line of named unit counts, largest first.
func writeUnits(b *strings.Builder, label string, units map[string]uint64, unit uint64) {
	names := make([]string, 0, len(units))
	for n, v := range units {
		if v > 0 {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool {
		if units[names[i]] != units[names[j]] {
			return units[names[i]] > units[names[j]]
		}
		return names[i] < names[j]
	})
	b.WriteString(label)
	for _, n := range names {
		fmt.Fprintf(b, " %s %s", n, bytesText(units[n]*unit))
	}
	b.WriteString("\n")
}

// bytesText is a byte count with a binary unit: 512B, 1.5K, 192.3M.
func bytesText(n uint64) string {
	const k = 1024
	switch {
	case n < k:
		return fmt.Sprintf("%dB", n)
	case n < k*k:
		return fmt.Sprintf("%.1fK", float64(n)/k)
	case n < k*k*k:
		return fmt.Sprintf("%.1fM", float64(n)/(k*k))
	}
	return fmt.Sprintf("%.1fG", float64(n)/(k*k*k))
}
