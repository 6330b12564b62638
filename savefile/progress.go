package savefile

import (
	"fmt"
	"github.com/ddmtui/ddmtui/internal/bytesize"
	"io"
	"strconv"
	"sync"
)

// ProgressLine reports a save's progress on w (a command's stderr) as
// "what: N received…". On a terminal the line is rewritten in place
// (carriage return), as often as Save calls it; anywhere else (a file, a
// pipe, a CI log) only the first report is written, once, as a whole line,
// so a log gets one line and no control characters. done ends the
// terminal's line.
func ProgressLine(w io.Writer, terminal bool, what string) (progress func(uint64), done func()) {
	var (
		mu      sync.Mutex
		written bool
	)
	progress = func(n uint64) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case terminal && n == 0:
			fmt.Fprintf(w, "\r\x1b[K%s: waiting…", what)
		case terminal:
			fmt.Fprintf(w, "\r\x1b[K%s: %s received…", what, Size(n))
		case !written:
			fmt.Fprintf(w, "%s…\n", what)
		}
		written = true
	}
	done = func() {
		mu.Lock()
		defer mu.Unlock()
		if terminal && written {
			fmt.Fprint(w, "\r\x1b[K")
		}
	}
	return progress, done
}

// MeanSize formats a mean byte count (an allocation table's MEAN): one
// decimal below 1 KiB ("24.5 B"), as Size above.
func MeanSize(m float64) string {
	if m < 1<<10 {
		return strconv.FormatFloat(m, 'f', 1, 64) + " B"
	}
	return Size(uint64(m))
}

// Size formats a byte count for progress lines and messages (bytesize's
// rule).
func Size(n uint64) string { return bytesize.String(n) }
