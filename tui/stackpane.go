package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
	"github.com/rivo/uniseg"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/mapping/apply"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// stackPane shows the stack of the thread under the thread table's cursor
// (STKL), fetched off the UI goroutine; only the newest answer is shown.
type stackPane struct {
	env    paneEnv
	view   *tview.TextView
	key    string // VM and thread the stack belongs to
	tid    uint64
	seq    int
	frames []ddm.StackFrame
	err    error
	width  int // inner width the frames were wrapped for
}

func newStackPane(env paneEnv) *stackPane {
	p := &stackPane{env: env}
	// Frames are wrapped here, between their parts (see frameLines), to
	// the width the pane has when drawn.
	p.view = tview.NewTextView().SetDynamicColors(true).SetWrap(false)
	p.view.SetBorder(true).SetTitle(" Stack ")
	p.view.SetDrawFunc(func(_ tcell.Screen, x, y, w, h int) (int, int, int, int) {
		if w-2 != p.width {
			p.width = w - 2
			p.render()
		}
		return x + 1, y + 1, w - 2, h - 2
	})
	return p
}

func (p *stackPane) Name() string            { return "stack" }
func (p *stackPane) Title() string           { return "stack" }
func (p *stackPane) Widget() tview.Primitive { return p.view }
func (p *stackPane) Frame() *tview.Box       { return p.view.Box }

func (p *stackPane) Keys() []keymap.Binding {
	return []keymap.Binding{
		keymap.Bind(tcell.KeyRune, 's', "s", "show or hide the stack pane (narrow: in the heap's place)", "Panes",
			func() { p.env.nav.toggle(paneStack) }).As("toggle-stack"),
	}
}

func (p *stackPane) Update(c Change) {
	if c&(ChangeSelection|ChangeVMs) != 0 {
		p.render()
	}
}

func (p *stackPane) Move(delta int) {
	r, c := p.view.GetScrollOffset()
	p.view.ScrollTo(max(0, min(r+delta, 1<<20)), c)
}

func (p *stackPane) PageSize() int {
	_, _, _, h := p.view.GetInnerRect()
	return max(1, h-1)
}

func (p *stackPane) clear() {
	p.key, p.frames, p.err = "", nil, nil
	p.render()
}

// fetch asks for the stack of the thread under the thread table's cursor.
func (p *stackPane) fetch() {
	e := p.env
	tid, ok := e.nav.selectedThread()
	vm, vok := e.m.selected()
	if !ok || !vok || e.cfg.Controller == nil {
		return
	}
	if p.key != vm.Key || p.tid != tid {
		p.frames, p.err = nil, nil // another thread: drop the old stack; the same one keeps showing while it refreshes
	}
	p.key, p.tid = vm.Key, tid
	p.seq++
	seq := p.seq
	p.render()
	if _, none := capNone(vm, monitor.FeatStack); !vm.DDM || none {
		return // render says why
	}
	ctrl := e.cfg.Controller
	e.work.job("stack", jobReplace, 3*time.Second, func(ctx context.Context) {
		frames, err := ctrl.VM(vm.Key).Stack(ctx, tid)
		if e.work.cancelled(err) {
			return // a newer fetch replaced this one
		}
		e.work.post(func() {
			if seq != p.seq {
				return
			}
			if err == nil && frames == nil {
				frames = []ddm.StackFrame{}
			}
			p.frames, p.err = frames, err
			p.render()
		})
	})
}

func (p *stackPane) render() {
	m := p.env.m
	vm, ok := m.selected()
	var b strings.Builder
	why, none := "", false
	if ok {
		why, none = capNone(vm, monitor.FeatStack)
	}
	var notServed *monitor.NotServedError
	switch {
	case !ok:
	case none:
		b.WriteString(dimLines(why, p.width))
	case errors.As(p.err, &notServed) && p.key == m.sel:
		b.WriteString(dimLines(style.Escape(notServed.Reason), p.width))
	case !vm.DDM:
		b.WriteString(dimLines("stacks of VMs without DDM need a debugger (attach one through the proxy)", p.width))
	case p.key != m.sel:
		b.WriteString("[::d]select a thread and press Enter")
	case p.err != nil:
		b.WriteString(dimLines(style.Escape(p.err.Error()), p.width))
	case p.frames == nil:
		b.WriteString("[::d]asking the VM…")
	default:
		for _, f := range apply.Stack(p.env.cfg.Mappings.forApp(vm.App), p.frames) {
			loc := f.File
			switch {
			case f.Line == ddm.LineNative:
				loc = "Native Method"
			case f.File == "":
				loc = "Unknown Source"
			case f.Line >= 0:
				loc = fmt.Sprintf("%s:%d", f.File, f.Line)
			}
			b.WriteString(frameLines(f.Class, f.Method, loc, p.width))
		}
	}
	title := " Stack "
	if p.key == m.sel && p.key != "" {
		for _, t := range m.threads[m.sel] {
			if t.ID == p.tid {
				title = fmt.Sprintf(" Stack · %s%s ", style.Escape(truncate(t.Name, 40)), p.env.cfg.Mappings.note(vm.App))
			}
		}
	}
	p.view.SetTitle(title)
	p.view.SetText(b.String())
}

// frameLines writes one frame as "at Class.method(File:line)", wrapped to
// w cells between its parts: the location goes to an indented line of its
// own, and a class name too long for a line breaks after a '.', never
// inside a name; "at" always stays with its frame.
func frameLines(class, method, loc string, w int) string {
	const indent = "    "
	full := "at " + class + "." + method + "(" + loc + ")"
	styled := func(qual, meth string) string {
		return style.Escape(qual) + "[::b]" + style.Escape(meth) + "[::-]"
	}
	locText := "([::d]" + style.Escape(loc) + "[::-])"
	if w <= 0 || uniseg.StringWidth(full) <= w {
		return "at " + styled(class+".", method) + locText + "\n"
	}
	var lines []string
	head := "at " + class + "." + method
	qual := class + "."
	if uniseg.StringWidth(head) > w {
		// Break the qualified name after dots.
		prefix := "at "
		cur := prefix
		for _, part := range strings.SplitAfter(class+".", ".") {
			if part == "" {
				continue
			}
			if uniseg.StringWidth(cur+part) > w && cur != prefix && cur != indent {
				lines = append(lines, style.Escape(cur))
				cur = indent
			}
			cur += part
		}
		if uniseg.StringWidth(cur+method) > w && cur != prefix && cur != indent {
			lines = append(lines, style.Escape(cur))
			cur = indent
		}
		lead := prefix
		if len(lines) > 0 {
			lead = indent
		}
		lines = append(lines, lead+styled(strings.TrimPrefix(cur, lead), method))
	} else {
		lines = append(lines, "at "+styled(qual, method))
	}
	lines = append(lines, indent+locText)
	return strings.Join(lines, "\n") + "\n"
}

// CopyText is the thread the pane shows, with its stack (the copy key, y).
func (p *stackPane) CopyText() (what, text string) {
	if p.key == "" || p.key != p.env.m.sel {
		return "", ""
	}
	return p.env.nav.threadCopy(p.key, p.tid)
}
