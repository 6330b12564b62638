// Package bytesize formats byte counts for people, one rule for every
// surface (heap reports, progress lines, allocation tables): "512 B",
// "1.5 KiB", "12.0 MiB", "2.0 GiB". Standard library only.
package bytesize

import "fmt"

// String formats n bytes in binary units with one decimal above 1 KiB.
func String(n uint64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
