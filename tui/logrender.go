package tui

// The log pane's rendering: its rows, wrapped or cut to the width, drawn
// straight to the screen with the query's words marked.

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/uniseg"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/logcat"
)

// logRow is one screen row of an entry: a line of its message (or a
// piece of one, wrapped), the first with the entry's columns.
type logRow struct {
	entry int // index into all
	first bool
	text  string
}

func (p *logPane) rows(i int, width int) []logRow {
	e := &p.all[i]
	if p.wrap {
		// wrapped rows continue under the message column
		width = max(10, width-uniseg.StringWidth(p.prefix(e)))
	}
	msg := e.Message
	app := e.App
	if app == "" {
		app = p.app
	}
	if m := p.env.cfg.Mappings.forApp(app); m != nil {
		msg = m.RetraceString(msg)
	}
	lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
	var out []logRow
	for k, l := range lines {
		l = safetext.Terminal(strings.ReplaceAll(l, "\t", "    "))
		if p.wrap && width > 0 {
			for first := true; first || l != ""; first = false {
				cut := cutWidth(l, width)
				out = append(out, logRow{i, k == 0 && first, l[:cut]})
				l = l[cut:]
			}
			continue
		}
		out = append(out, logRow{i, k == 0, l})
	}
	return out
}

// cutWidth is the byte length of s's longest prefix at most w cells wide
// (at least one character).
func cutWidth(s string, w int) int {
	n, cells := 0, 0
	for _, r := range s {
		rw := max(uniseg.StringWidth(string(r)), 0)
		if cells+rw > w && n > 0 {
			break
		}
		cells += rw
		n += len(string(r))
	}
	return n
}

// prefix is the columns before the message: time, pid, tid, level, tag;
// in the whole device's log the app the pid belongs to follows the pid.
func (p *logPane) prefix(e *logcat.Entry) string {
	t := e.Time.Format("15:04:05.000")
	if !p.narrow {
		t = e.Time.Format("01-02 ") + t
	}
	app := ""
	if p.device {
		app = " " + appColumn(e.App)
	}
	return fmt.Sprintf("%s %5d%s %5d %c %s: ", t, e.PID, app, e.TID, e.Priority.Letter(), safetext.Terminal(e.Tag))
}

// appColumn is an entry's app in the whole device's log: escaped, "-"
// when the pid's app is not known, the end of a long package kept.
func appColumn(app string) string {
	if app == "" {
		return "-"
	}
	const w = 28
	if r := []rune(app); len(r) > w {
		app = "…" + string(r[len(r)-w+1:])
	}
	return safetext.Terminal(app)
}

func (p *logPane) levelStyle(pr logcat.Priority) tcell.Style {
	st := tcell.StyleDefault
	if p.env.pal.NoColor {
		switch {
		case pr >= logcat.Error:
			return st.Bold(true)
		case pr <= logcat.Verbose:
			return st.Dim(true)
		}
		return st
	}
	switch pr {
	case logcat.Verbose:
		return st.Foreground(tcell.ColorGray)
	case logcat.Debug:
		return st.Foreground(tcell.ColorSteelBlue)
	case logcat.Info:
		return st.Foreground(tcell.ColorGreen)
	case logcat.Warn:
		return st.Foreground(tcell.ColorYellow)
	case logcat.Error:
		return st.Foreground(tcell.ColorRed)
	case logcat.Fatal:
		return st.Foreground(tcell.ColorRed).Bold(true)
	}
	return st
}

func (p *logPane) draw(s tcell.Screen, x, y, w, h int) {
	p.height = h
	if w <= 0 || h <= 0 {
		return
	}
	msgStyle := tcell.StyleDefault
	if p.why != "" || p.log == nil {
		why := p.why
		if why == "" {
			why = "no log"
		}
		drawText(s, x, y, w, safetext.Terminal(why), msgStyle.Dim(true), nil)
		return
	}
	if len(p.shown) == 0 {
		msg := "no log lines yet"
		if p.qsrc != "" {
			msg = "no lines match " + p.qsrc
		}
		drawText(s, x, y, w, safetext.Terminal(msg), msgStyle.Dim(true), nil)
		return
	}
	p.narrow = w < 100
	gutter := 2
	msgWidth := w - gutter
	p.sel = max(0, min(p.sel, len(p.shown)-1))
	// Keep the focused line in view: from the top when it is below it,
	// else fill upwards from it.
	if p.top > p.sel {
		p.top = p.sel
	}
	used := 0
	for i := p.sel; i >= p.top; i-- {
		used += len(p.rows(p.shown[i], msgWidth))
		if used > h {
			p.top = i + 1
			break
		}
	}
	if p.follow {
		// bottom-anchored: as many lines as fit, ending at the newest
		p.top = p.sel
		used = len(p.rows(p.shown[p.sel], msgWidth))
		for p.top > 0 {
			n := len(p.rows(p.shown[p.top-1], msgWidth))
			if used+n > h {
				break
			}
			used += n
			p.top--
		}
	}
	focused := p.env.nav.focused(paneLog)
	row := 0
	for i := p.top; i < len(p.shown) && row < h; i++ {
		e := &p.all[p.shown[i]]
		lvl := p.levelStyle(e.Priority)
		mark := ' '
		switch {
		case e.Has(logcat.FlagCrashStart):
			mark = '!'
		case e.Has(logcat.FlagCrash):
			mark = '|'
		case e.Has(logcat.FlagRestarted):
			mark = '>'
		}
		base := tcell.StyleDefault
		if focused && i == p.sel && !p.follow {
			base = p.env.pal.Cursor()
			lvl = base
		}
		for _, r := range p.rows(p.shown[i], msgWidth) {
			if row >= h {
				break
			}
			cx := x
			if r.first {
				ms := lvl
				if mark == '!' || mark == '|' {
					ms = p.levelStyle(logcat.Fatal)
				}
				s.SetContent(cx, y+row, mark, nil, ms.Reverse(mark == '!'))
				cx += gutter
				cx = drawText(s, cx, y+row, x+w-cx, p.prefix(e), lvl, nil)
			} else {
				cx += gutter
				if p.wrap {
					cx += uniseg.StringWidth(p.prefix(e))
				} else {
					cx += 4
				}
			}
			drawText(s, cx, y+row, x+w-cx, r.text, base, p.words)
			row++
		}
	}
}

// drawText prints text from (x, y) within w cells, words bold and underlined, and
// returns the column after it.
func drawText(s tcell.Screen, x, y, w int, text string, st tcell.Style, words []string) int {
	var hl []bool
	if len(words) > 0 {
		low := strings.ToLower(text)
		if len(low) == len(text) {
			for _, wd := range words {
				for off := 0; ; {
					k := strings.Index(low[off:], wd)
					if k < 0 {
						break
					}
					if hl == nil {
						hl = make([]bool, len(text))
					}
					for j := off + k; j < off+k+len(wd); j++ {
						hl[j] = true
					}
					off += k + len(wd)
				}
			}
		}
	}
	end := x + w
	for i, r := range text {
		rw := uniseg.StringWidth(string(r))
		if rw <= 0 {
			continue
		}
		if x+rw > end {
			break
		}
		cs := st
		if hl != nil && hl[i] {
			cs = cs.Bold(true).Underline(true) // shows on the cursor row too, and under NO_COLOR
		}
		s.SetContent(x, y, r, nil, cs)
		x += rw
	}
	return x
}
