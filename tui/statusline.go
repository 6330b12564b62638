package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/rivo/tview"
	"github.com/rivo/uniseg"

	"github.com/ddmtui/ddmtui/internal/safetext"
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
// message also goes to a history that M shows. Its state is its messages,
// written only through its methods (flash, show); the rest it reads when
// it draws: the model, the configuration and what statusInputs give.
type statusLine struct {
	env     paneEnv // status and nav unused: it is the sink
	in      statusInputs
	view    *tview.TextView
	msg     message
	history []message
	drops   int64     // the memory budget's drops seen
	dropAt  time.Time // when the last of them was seen
}

// dropNoteFor is how long the status line shows what the memory budget
// last dropped to make room (the message history keeps it).
const dropNoteFor = 30 * time.Second

// statusInputs are what the status line shows of others' state.
type statusInputs struct {
	width     func() int       // the screen's width (0: not known yet)
	discovery func() string    // where VMs come from now (the m key switches)
	tracing   func() profiling // the VM being traced, if any
}

func newStatusLine(env paneEnv, in statusInputs) *statusLine {
	return &statusLine{env: env, in: in, view: tview.NewTextView().SetDynamicColors(true).SetWrap(false)}
}

func (p *statusLine) Name() string            { return "status" }
func (p *statusLine) Title() string           { return "status line" }
func (p *statusLine) Widget() tview.Primitive { return p.view }
func (p *statusLine) Frame() *tview.Box       { return nil }

func (p *statusLine) Update(Change) { p.render() }

// flash shows msg for a few seconds and keeps it in the history.
func (p *statusLine) flash(text string) {
	now := p.env.now()
	p.msg = message{at: now, text: text}
	p.remember(p.msg)
	p.render()
}

// remember keeps m in the history (the last historySize messages).
func (p *statusLine) remember(m message) {
	if len(p.history) >= historySize {
		p.history = append(p.history[:0], p.history[1:]...)
	}
	p.history = append(p.history, m)
}

// show shows msg like flash without adding it to the history: a
// progress line that replaces itself.
func (p *statusLine) show(text string) {
	now := p.env.now()
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
// stay longest, then a message, the selection, problems (a drop of the
// memory budget among them), the count, the memory budget's figure, and
// last where VMs come from.
const (
	keepADB = iota
	keepDiscovery
	keepMemory
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
	e := p.env
	n := len(e.m.vms)
	parts := []statusPart{{open: "[::b]ddmtui[::-] [::d]", text: e.keyHint("help") + ":help " + e.keyHint("quit") + ":quit", close: "[::-]", keep: keepBrand}}
	if p.msg.text != "" && e.now().Sub(p.msg.at) < messageFor {
		parts = append(parts, statusPart{open: "[yellow]", text: p.msg.text, close: "[-]", keep: keepMessage, cut: true})
	}
	parts = append(parts, statusPart{text: fmt.Sprintf("%d VM%s", n, plural(n)), keep: keepCount})
	if vm, ok := e.m.selected(); ok {
		parts = append(parts, statusPart{text: "selected: " + vmLabel(vm, 30), keep: keepSelected, cut: true})
		if vm.Err != "" {
			parts = append(parts, statusPart{open: "[red]", text: truncate(vm.Err, 60), close: "[-]", keep: keepProblem, cut: true})
		}
		if why := e.portError(vm.Key); why != "" && vm.DebugPort == 0 {
			parts = append(parts, statusPart{open: "[red]", text: truncate(why, 70) + " (retrying)", close: "[-]", keep: keepProblem, cut: true})
		}
	}
	if tr := p.in.tracing(); tr.key != "" {
		parts = append(parts, statusPart{open: "[red]", text: "● tracing " + truncate(tr.app, 24), close: "[-]", keep: keepTracing})
	}
	if e.cfg.Timeline != nil {
		parts = append(parts, statusPart{open: "[::b]", text: e.cfg.Timeline.Status(), close: "[::-]", keep: keepPosition})
	}
	parts = append(parts, statusPart{text: p.in.discovery(), keep: keepDiscovery, cut: true})
	if e.cfg.ADBStatus != nil {
		if st := e.cfg.ADBStatus(); st != "" {
			parts = append(parts, statusPart{text: st, keep: keepADB, cut: true})
		}
	}
	parts = append(parts, p.memoryParts()...)
	p.view.SetText(" " + fitStatus(parts, p.in.width()-1))
}

// memoryParts are the memory budget ("mem 12/256 MiB") and, for
// dropNoteFor after a drop is seen, what it dropped to make room; each
// drop seen also goes to the message history.
func (p *statusLine) memoryParts() []statusPart {
	b := p.env.cfg.Memory
	if b == nil {
		return nil
	}
	st := b.Stats()
	mem := fmt.Sprintf("mem %d MiB", st.Used>>20)
	if st.Limit > 0 {
		mem = fmt.Sprintf("mem %d/%d MiB", st.Used>>20, st.Limit>>20)
	}
	parts := []statusPart{{text: mem, keep: keepMemory}}
	now := p.env.now()
	if st.Drops != p.drops {
		p.drops, p.dropAt = st.Drops, now
		p.remember(message{at: now, text: "memory budget " + st.LastDrop})
	}
	if p.drops > 0 && now.Sub(p.dropAt) < dropNoteFor {
		parts = append(parts, statusPart{open: "[yellow]", text: "memory budget " + st.LastDrop, close: "[-]", keep: keepProblem, cut: true})
	}
	return parts
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
