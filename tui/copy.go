package tui

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/clip"
	"github.com/ddmtui/ddmtui/tui/keymap"
)

// Copier is a pane whose focused row can be copied to the clipboard (y,
// through OSC 52): what names the row for the status line ("thread main"),
// text is what is copied; text is "" when there is nothing to copy.
type Copier interface {
	CopyText() (what, text string)
}

// copyKeys is the copy key: it works on the focused pane if it is a Copier.
func (d *Dashboard) copyKeys() []keymap.Binding {
	return []keymap.Binding{
		keymap.Bind(tcell.KeyRune, 'y', "y", "copy the focused row to the clipboard (OSC 52)",
			"General", d.copyFocused).As("copy"),
	}
}

func (d *Dashboard) copyFocused() {
	p := d.panes[d.focus]
	c, ok := p.(Copier)
	if !ok {
		d.flash("nothing to copy in the " + p.Title())
		return
	}
	what, text := c.CopyText()
	d.flash(clip.Do(what, safeLines(text)))
}

// safeLines escapes control characters in each line of text (a VM's
// strings must not smuggle escape sequences into a paste), keeping the
// line breaks.
func safeLines(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = safetext.Terminal(l)
	}
	return strings.Join(lines, "\n")
}

// threadCopy is a thread's name line and, when the stack pane holds its
// stack, the stack, as a thread dump writes them.
func (d *Dashboard) threadCopy(key string, tid uint64) (what, text string) {
	for _, t := range d.m.threads[key] {
		if t.ID != tid {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%q tid=%d %s", t.Name, t.ID, t.State)
		if t.SysTID > 0 {
			fmt.Fprintf(&b, " sysTid=%d", t.SysTID)
		}
		b.WriteString("\n")
		what = "thread " + t.Name
		s := d.stackP
		if s.key == key && s.tid == tid && len(s.frames) > 0 {
			for _, f := range s.frames {
				b.WriteString("  at " + frameText(f) + "\n")
			}
			what += " and its stack"
		}
		return what, b.String()
	}
	return "", ""
}

// frameText is a frame as Java writes it: Class.method(File:line).
func frameText(f ddm.StackFrame) string {
	loc := f.File
	switch {
	case f.Line == ddm.LineNative:
		loc = "Native Method"
	case f.File == "":
		loc = "Unknown Source"
	case f.Line >= 0:
		loc = fmt.Sprintf("%s:%d", f.File, f.Line)
	}
	return f.Class + "." + f.Method + "(" + loc + ")"
}

// vmIdentity is a VM's identity line: app, pid, VM, where it is reached.
func vmIdentity(vm monitor.VM) string {
	parts := []string{appLabel(vm)}
	if vm.PID > 0 {
		parts = append(parts, fmt.Sprintf("pid %d", vm.PID))
	}
	if vm.VMIdent != "" && vm.VMIdent != appLabel(vm) {
		parts = append(parts, vm.VMIdent)
	}
	if vm.Family != "" {
		parts = append(parts, vm.Family)
	}
	if vm.ProcessOnly() {
		parts = append(parts, "profileable, no JDWP")
	}
	if vm.Architecture != "" {
		parts = append(parts, vm.Architecture)
	}
	if vm.UserIDKnown && vm.UserID != 0 {
		parts = append(parts, fmt.Sprintf("user %d", vm.UserID))
	}
	if vm.UIDKnown {
		parts = append(parts, fmt.Sprintf("uid %d", vm.UID))
	}
	parts = append(parts, vm.Key)
	if vm.DebugPort > 0 {
		parts = append(parts, fmt.Sprintf("debugger port %d", vm.DebugPort))
	}
	return strings.Join(parts, " · ")
}
