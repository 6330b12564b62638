package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
	"github.com/rivo/uniseg"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

const (
	messageFor  = 6 * time.Second
	historySize = 200
)

type message struct {
	at       time.Time
	text     string
	progress bool // a progress line (show), which the next one replaces
}

// flashHold is how long a flashed message keeps the status line from a
// progress line: "busy: a heap dump is under way" must be read, not
// replaced by the dump's next "received…" a moment later.
const flashHold = 2 * time.Second

// statusLine is the bottom line: a pending message, the VM count and
// selection, problems, a running trace, then where VMs come from. Every
// message also goes to a history that M shows.
type statusLine struct {
	d       *Dashboard
	view    *tview.TextView
	msg     message
	history []message
	tracing profiling // the VM being traced, if any
	mode    int       // index in cfg.ScanModes
}

func newStatusLine(d *Dashboard) *statusLine {
	return &statusLine{d: d, view: tview.NewTextView().SetDynamicColors(true).SetWrap(false)}
}

func (p *statusLine) Name() string            { return "status" }
func (p *statusLine) Title() string           { return "status line" }
func (p *statusLine) Widget() tview.Primitive { return p.view }
func (p *statusLine) Frame() *tview.Box       { return nil }

func (p *statusLine) Keys() []keymap.Binding {
	return []keymap.Binding{
		keymap.Bind(tcell.KeyRune, 'M', "M", "message history (status lines that went by)", "General", p.d.ov.showMessages).As("messages"),
	}
}

func (p *statusLine) Update(Change) { p.render() }

// flash shows msg for a few seconds and keeps it in the history.
func (p *statusLine) flash(text string) {
	now := p.d.now()
	p.msg = message{at: now, text: text}
	if len(p.history) >= historySize {
		p.history = append(p.history[:0], p.history[1:]...)
	}
	p.history = append(p.history, p.msg)
	p.render()
}

// show shows msg like flash without adding it to the history: a
// progress line that replaces itself.
func (p *statusLine) show(text string) {
	now := p.d.now()
	if !p.msg.progress && p.msg.text != "" && now.Sub(p.msg.at) < flashHold {
		return // a message still being read; the next progress line comes soon
	}
	p.msg = message{at: now, text: text, progress: true}
	p.render()
}

// historyText is the message history, newest last.
func (p *statusLine) historyText() string {
	if len(p.history) == 0 {
		return "[::d]no messages yet"
	}
	var b strings.Builder
	for _, m := range p.history {
		fmt.Fprintf(&b, "[::d]%s[::-]  %s\n", m.at.Format("15:04:05"), style.Escape(m.text))
	}
	return b.String()
}

// statusPart is one piece of the status line: plain text (escaped when
// drawn) between two tags; keep orders what a narrow line gives up first
// (lowest first); a part that may be cut is cut with '…' down to a few
// cells before it is dropped.
type statusPart struct {
	open, text, close string
	keep              int
	cut               bool
}

// The status line's priorities: the replay position and a running trace
// stay longest, then a message, the selection, problems, the count, and
// last where VMs come from.
const (
	keepADB = iota
	keepDiscovery
	keepCount
	keepProblem
	keepSelected
	keepMessage
	keepTracing
	keepPosition
	keepBrand
)

// render writes the line in its reading order; when it is wider than the
// screen the least important parts are cut (marked '…') or left out, so
// the replay position, a trace and the message stay in view.
func (p *statusLine) render() {
	d := p.d
	n := len(d.m.vms)
	parts := []statusPart{{open: "[::b]ddmtui[::-] [::d]", text: keyHint(p.d.keys, "help") + ":help " + keyHint(p.d.keys, "quit") + ":quit", close: "[::-]", keep: keepBrand}}
	if p.msg.text != "" && d.now().Sub(p.msg.at) < messageFor {
		parts = append(parts, statusPart{open: "[yellow]", text: p.msg.text, close: "[-]", keep: keepMessage, cut: true})
	}
	parts = append(parts, statusPart{text: fmt.Sprintf("%d VM%s", n, plural(n)), keep: keepCount})
	if vm, ok := d.m.selected(); ok {
		parts = append(parts, statusPart{text: "selected: " + vmLabel(vm, 30), keep: keepSelected, cut: true})
		if vm.Err != "" {
			parts = append(parts, statusPart{open: "[red]", text: truncate(vm.Err, 60), close: "[-]", keep: keepProblem, cut: true})
		}
		if e := d.portError(vm.Key); e != "" && vm.DebugPort == 0 {
			parts = append(parts, statusPart{open: "[red]", text: truncate(e, 70) + " (retrying)", close: "[-]", keep: keepProblem, cut: true})
		}
	}
	if p.tracing.key != "" {
		parts = append(parts, statusPart{open: "[red]", text: "● tracing " + truncate(p.tracing.app, 24), close: "[-]", keep: keepTracing})
	}
	if d.cfg.Timeline != nil {
		parts = append(parts, statusPart{open: "[::b]", text: d.cfg.Timeline.Status(), close: "[::-]", keep: keepPosition})
	}
	parts = append(parts, statusPart{text: d.cfg.Discovery, keep: keepDiscovery, cut: true})
	if d.cfg.ADBStatus != nil {
		if st := d.cfg.ADBStatus(); st != "" {
			parts = append(parts, statusPart{text: st, keep: keepADB, cut: true})
		}
	}
	p.view.SetText(" " + fitStatus(parts, d.width-1))
}

// fitStatus joins parts with " · " within w cells (w <= 0: no limit).
func fitStatus(parts []statusPart, w int) string {
	for i := range parts {
		parts[i].text = safetext.Terminal(parts[i].text)
	}
	width := func() int {
		n := 3 * max(len(parts)-1, 0)
		for _, pt := range parts {
			n += tview.TaggedStringWidth(pt.open) + uniseg.StringWidth(pt.text)
		}
		return n
	}
	const least = 12 // a cut part keeps this many cells, '…' included
	for w > 0 && width() > w {
		if len(parts) == 1 {
			parts[0].text = truncate(parts[0].text, max(w-tview.TaggedStringWidth(parts[0].open), 1))
			break
		}
		low := 0
		for i, pt := range parts {
			if pt.keep < parts[low].keep {
				low = i
			}
		}
		pt := &parts[low]
		if pw := uniseg.StringWidth(pt.text); pt.cut && pw-(width()-w) >= least {
			pt.text = truncate(pt.text, pw-(width()-w))
		} else {
			parts = append(parts[:low], parts[low+1:]...)
		}
	}
	var b strings.Builder
	for i, pt := range parts {
		if i > 0 {
			b.WriteString(" · ")
		}
		b.WriteString(pt.open + style.EscapeTags(pt.text) + pt.close)
	}
	return b.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
