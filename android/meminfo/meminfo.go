// Package meminfo parses what `dumpsys meminfo PID` prints for one app
// process on Android 5 to 16 into a MemInfo: the Dalvik Heap and Native
// Heap rows of the table (Heap Size / Heap Alloc / Heap Free), the TOTAL
// row, the App Summary (Android 6 and later; its Rss column from Android
// 11) and the Objects section.
//
// The format changed between releases: the table gained and renamed
// columns (Swapped Dirty, SwapPss Dirty, Rss Total), the App Summary
// appeared, its total line went from "TOTAL: … TOTAL SWAP (KB): …" to
// "TOTAL PSS: … TOTAL RSS: … TOTAL SWAP PSS: …", and the Objects labels
// grew. So the parser reads the table's columns from its two header lines,
// the App Summary's two columns by where the numbers sit (PSS left, RSS
// right, as ActivityThread prints them), and "Label: number" pairs
// wherever they are. A value Android did not print stays absent (nil).
package meminfo

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
)

// MemInfo is one process's memory, in KiB. A nil field was not printed by
// that Android version (or not present in the output).
type MemInfo struct {
	PID     int
	Process string

	TotalPSS     *int64 // App Summary TOTAL (PSS), else the table's TOTAL row
	TotalRSS     *int64 // App Summary TOTAL RSS (Android 11+), else the table's Rss Total
	TotalSwapPSS *int64 // App Summary TOTAL SWAP PSS (devices with swap PSS)
	TotalSwap    *int64 // App Summary TOTAL SWAP (KB) (Android 6-10 devices without swap PSS)

	JavaHeap     *int64 // App Summary, PSS column
	NativeHeap   *int64
	Code         *int64
	Stack        *int64
	Graphics     *int64
	PrivateOther *int64
	System       *int64

	JavaHeapRSS   *int64 // App Summary, Rss column (Android 11+)
	NativeHeapRSS *int64
	CodeRSS       *int64
	StackRSS      *int64
	GraphicsRSS   *int64

	DalvikHeapSize  *int64 // table: Dalvik Heap row
	DalvikHeapAlloc *int64
	DalvikHeapFree  *int64
	NativeHeapSize  *int64 // table: Native Heap row
	NativeHeapAlloc *int64
	NativeHeapFree  *int64

	// Objects maps the Objects section's labels, in snake case ("views",
	// "view_root_impl", "activities", "local_binders", "parcel_memory", …),
	// to their counts. Nil when the section is absent.
	Objects map[string]int64
}

// Found reports whether anything was parsed: "No process found for: PID"
// and other non-meminfo output give false.
func (m *MemInfo) Found() bool {
	return m.TotalPSS != nil || m.JavaHeap != nil || m.DalvikHeapSize != nil || m.NativeHeapSize != nil || len(m.Objects) > 0
}

// MaxLines bounds the lines read; an app's meminfo has well under 200.
// Longer lines than MaxLineLen are not meminfo lines and are skipped.
const (
	MaxLines   = 4096
	MaxLineLen = 1024
)

type section int

const (
	secNone section = iota
	secTable
	secSummary
	secObjects
	secOther
)

// Parse reads one process's `dumpsys meminfo` output. It never fails: what
// it cannot read is left nil.
func Parse(b []byte) MemInfo {
	var m MemInfo
	lines := bytes.Split(b, []byte("\n"))
	if len(lines) > MaxLines {
		lines = lines[:MaxLines]
	}
	sec := secNone
	var cols []string // table column names, "Pss Total", "Heap Size", …
	var prevLine string
	for _, raw := range lines {
		if len(raw) > MaxLineLen {
			continue
		}
		line := strings.TrimRight(string(raw), "\r \t")
		trim := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trim, "** MEMINFO in pid "):
			if m.PID != 0 {
				return m // a second process: one is enough
			}
			rest := strings.TrimPrefix(trim, "** MEMINFO in pid ")
			if sp := strings.IndexByte(rest, ' '); sp > 0 {
				m.PID, _ = strconv.Atoi(rest[:sp])
				rest = rest[sp+1:]
			}
			if o, c := strings.IndexByte(rest, '['), strings.LastIndexByte(rest, ']'); o >= 0 && c > o {
				m.Process = rest[o+1 : c]
			}
			sec = secNone
			prevLine = line
			continue
		case isDashes(trim):
			prevLine = line
			continue
		case trim == "App Summary":
			sec = secSummary
			prevLine = line
			continue
		case trim == "Objects":
			sec = secObjects
			prevLine = line
			continue
		case trim == "SQL" || trim == "DATABASES" || trim == "Asset Allocations" || strings.HasPrefix(trim, "Dalvik Details") || trim == "Unreachable memory":
			sec = secOther
			prevLine = line
			continue
		}
		if sec == secNone || sec == secTable {
			if h2 := strings.Fields(trim); len(h2) > 0 && h2[0] == "Total" && cols == nil {
				h1 := strings.Fields(strings.TrimSpace(prevLine))
				if len(h1) == len(h2) && len(h1) > 0 && h1[0] == "Pss" {
					cols = make([]string, len(h1))
					for i := range h1 {
						cols[i] = h1[i] + " " + h2[i]
					}
					sec = secTable
				}
			} else if cols != nil {
				parseTableRow(&m, cols, trim)
			}
		}
		switch sec {
		case secSummary:
			parseSummaryLine(&m, line)
		case secObjects:
			for _, p := range labelPairs(line) {
				if m.Objects == nil {
					m.Objects = map[string]int64{}
				}
				m.Objects[snake(p.label)] = p.value
			}
		}
		prevLine = line
	}
	return m
}

func isDashes(s string) bool {
	if !strings.HasPrefix(s, "------") {
		return false
	}
	for _, r := range s {
		if r != '-' && r != ' ' {
			return false
		}
	}
	return true
}

// parseTableRow reads one row of the table: a label (which may hold
// spaces) followed by numbers, one per column from the left.
func parseTableRow(m *MemInfo, cols []string, trim string) {
	f := strings.Fields(trim)
	first := len(f)
	for i, w := range f {
		if _, err := strconv.ParseInt(w, 10, 64); err == nil {
			first = i
			break
		}
	}
	if first == 0 || first == len(f) {
		return
	}
	label := strings.Join(f[:first], " ")
	var vals []int64
	for _, w := range f[first:] {
		v, err := strconv.ParseInt(w, 10, 64)
		if err != nil {
			return
		}
		vals = append(vals, v)
	}
	if len(vals) > len(cols) {
		return
	}
	col := func(name string) *int64 {
		for i, c := range cols {
			if c == name && i < len(vals) {
				v := vals[i]
				return &v
			}
		}
		return nil
	}
	switch label {
	case "Dalvik Heap":
		m.DalvikHeapSize, m.DalvikHeapAlloc, m.DalvikHeapFree = col("Heap Size"), col("Heap Alloc"), col("Heap Free")
	case "Native Heap":
		m.NativeHeapSize, m.NativeHeapAlloc, m.NativeHeapFree = col("Heap Size"), col("Heap Alloc"), col("Heap Free")
	case "TOTAL":
		if m.TotalPSS == nil {
			m.TotalPSS = col("Pss Total")
		}
		if m.TotalRSS == nil {
			m.TotalRSS = col("Rss Total")
		}
	}
}

// parseSummaryLine reads one App Summary line: "Label: PSS [RSS]" (a
// number far right of the colon is in the Rss column), or the total line
// of several "Label: number" pairs.
func parseSummaryLine(m *MemInfo, line string) {
	pairs := labelPairs(line)
	if len(pairs) == 0 {
		return
	}
	if strings.HasPrefix(pairs[0].label, "TOTAL") {
		for _, p := range pairs {
			v := p.value
			switch p.label {
			case "TOTAL", "TOTAL PSS":
				m.TotalPSS = &v
			case "TOTAL RSS":
				m.TotalRSS = &v
			case "TOTAL SWAP PSS":
				m.TotalSwapPSS = &v
			case "TOTAL SWAP (KB)", "TOTAL SWAP":
				m.TotalSwap = &v
			}
		}
		return
	}
	colon := strings.IndexByte(line, ':')
	var pss, rss *int64
	for _, n := range numbersAfter(line, colon+1) {
		v := n.value
		// ActivityThread prints "%21s %8d %21s %8d": PSS ends 9 columns
		// after the colon, RSS 31 columns further.
		if n.end-colon <= 20 {
			pss = &v
		} else {
			rss = &v
		}
	}
	switch pairs[0].label {
	case "Java Heap":
		m.JavaHeap, m.JavaHeapRSS = pss, rss
	case "Native Heap":
		m.NativeHeap, m.NativeHeapRSS = pss, rss
	case "Code":
		m.Code, m.CodeRSS = pss, rss
	case "Stack":
		m.Stack, m.StackRSS = pss, rss
	case "Graphics":
		m.Graphics, m.GraphicsRSS = pss, rss
	case "Private Other":
		m.PrivateOther = pss
	case "System":
		m.System = pss
	}
}

type number struct {
	value      int64
	start, end int // byte offsets in the line
}

func numbersAfter(line string, from int) []number {
	var out []number
	for i := from; i < len(line); {
		if line[i] < '0' || line[i] > '9' {
			i++
			continue
		}
		j := i
		for j < len(line) && line[j] >= '0' && line[j] <= '9' {
			j++
		}
		if v, err := strconv.ParseInt(line[i:j], 10, 64); err == nil {
			out = append(out, number{v, i, j})
		}
		i = j
	}
	return out
}

type pair struct {
	label string
	value int64
}

// labelPairs finds "Label: number" pairs on a line ("Views: 65
// ViewRootImpl: 1", "TOTAL PSS: 44481 TOTAL RSS: 126084"). A label is the
// text between the previous number (or the line start) and a colon. A
// label followed by no number (Unknown's empty PSS column) is skipped.
func labelPairs(line string) []pair {
	var out []pair
	labelStart := 0
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c >= '0' && c <= '9' {
			labelStart = i + 1
			continue
		}
		if c != ':' {
			continue
		}
		label := strings.TrimSpace(line[labelStart:i])
		j := i + 1
		for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
			j++
		}
		k := j
		for k < len(line) && line[k] >= '0' && line[k] <= '9' {
			k++
		}
		if k > j && label != "" && (k == len(line) || line[k] == ' ' || line[k] == '\t') {
			if v, err := strconv.ParseInt(line[j:k], 10, 64); err == nil {
				out = append(out, pair{label, v})
			}
		}
		labelStart = i + 1
	}
	return out
}

// snake turns "Local Binders" into "local_binders", "ViewRootImpl" into
// "view_root_impl", "WebViews" into "web_views", "OpenSSL Sockets" into
// "openssl_sockets".
func snake(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsUpper(r):
			prevLower := i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]))
			nextLower := i > 0 && i+1 < len(rs) && unicode.IsUpper(rs[i-1]) && unicode.IsLower(rs[i+1])
			if (prevLower || nextLower) && b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		default:
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
				b.WriteByte('_')
			}
		}
	}
	return strings.TrimSuffix(b.String(), "_")
}
