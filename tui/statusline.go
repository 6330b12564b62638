package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

const (
	messageFor  = 6 * time.Second
	historySize = 200
)

type message struct {
	at   time.Time
	text string
}

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
	p.msg = message{at: p.d.now(), text: text}
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

// render writes the line, most important first so that a narrow terminal
// cuts the least useful parts.
func (p *statusLine) render() {
	d := p.d
	n := len(d.m.vms)
	parts := []string{"[::b]ddmtui[::-] [::d]" + keyHint(p.d.keys, "help") + ":help " + keyHint(p.d.keys, "quit") + ":quit[::-]"}
	if p.msg.text != "" && d.now().Sub(p.msg.at) < messageFor {
		parts = append(parts, "[yellow]"+style.Escape(p.msg.text)+"[-]")
	}
	parts = append(parts, fmt.Sprintf("%d VM%s", n, plural(n)))
	if vm, ok := d.m.selected(); ok {
		parts = append(parts, "selected: "+style.Escape(vmLabel(vm, 30)))
		if vm.Err != "" {
			parts = append(parts, "[red]"+style.Escape(truncate(vm.Err, 60))+"[-]")
		}
		if e := d.portError(vm.Key); e != "" && vm.DebugPort == 0 {
			parts = append(parts, "[red]"+style.Escape(truncate(e, 70))+" (retrying)[-]")
		}
	}
	if p.tracing.key != "" {
		parts = append(parts, "[red]● tracing "+style.Escape(truncate(p.tracing.app, 24))+"[-]")
	}
	if d.cfg.Timeline != nil {
		parts = append(parts, "[::b]"+style.Escape(d.cfg.Timeline.Status())+"[::-]")
	}
	parts = append(parts, style.Escape(d.cfg.Discovery))
	if d.cfg.ADBStatus != nil {
		if st := d.cfg.ADBStatus(); st != "" {
			parts = append(parts, style.Escape(st))
		}
	}
	p.view.SetText(" " + strings.Join(parts, " · "))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
