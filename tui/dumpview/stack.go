package dumpview

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/threaddump"
	"github.com/ddmtui/ddmtui/tui/style"
)

// colourTag returns a tview colour tag for c, or "" for the default colour
// (so NO_COLOR leaves text alone).
func colourTag(c tcell.Color) string {
	if c == tcell.ColorDefault {
		return ""
	}
	return "[" + c.String() + "]"
}

func (v *View) stackText(p *threaddump.Process, i int) string {
	t := p.Threads[i]
	pal := v.opt.Palette
	info := t.StateInfo()
	var b strings.Builder
	header := `"` + style.Escape(t.Name) + `"`
	if t.Daemon {
		header += " daemon"
	}
	header += " prio=" + strconv.Itoa(t.Priority)
	if t.Unattached {
		header += " (not attached)"
	} else {
		header += fmt.Sprintf(" tid=%d %s", t.TID, style.Escape(t.State))
	}
	for _, f := range t.HeaderFlags {
		header += " " + style.Escape(f)
	}
	fmt.Fprintf(&b, "[::b]%s[::-]\n", header)
	stateTag := colourTag(pal.ThreadState(info.Class))
	fmt.Fprintf(&b, "%s%s[-]: %s\n", stateTag, style.Escape(info.Name), info.Explanation)
	details := []string{fmt.Sprintf("sysTid=%d", t.SysTID), fmt.Sprintf("nice=%d", t.Nice)}
	for _, kv := range [][2]string{{"group", t.Group}, {"cgrp", t.Cgroup}, {"sched", t.Sched}, {"state", t.KernelState}} {
		if kv[1] != "" {
			details = append(details, kv[0]+"="+style.Escape(kv[1]))
		}
	}
	details = append(details, fmt.Sprintf("utm=%d stm=%d core=%d", t.Utime, t.Stime, t.Core))
	if t.HZ > 0 {
		details = append(details, fmt.Sprintf("(%.2fs CPU at HZ=%d)", float64(t.CPU())/float64(t.HZ), t.HZ))
	}
	if len(t.HeldMutexes) > 0 {
		details = append(details, "holds "+style.Escape(strings.Join(t.HeldMutexes, " ")))
	}
	b.WriteString("[::d]" + strings.Join(details, " ") + "[::-]\n")
	if t.Truncated {
		b.WriteString("[::b]the dump ends inside this thread[::-]\n")
	}
	if ci, ok := v.cycleOf[i]; ok {
		fmt.Fprintf(&b, "%s[::b]in deadlock %d of %d: see the banner[::-][-]\n", colourTag(pal.Warning()), ci+1, len(v.analysis.Deadlocks))
	}
	for _, e := range v.analysis.Edges {
		if e.Waiter == i && e.Owner >= 0 {
			fmt.Fprintf(&b, "waits for %s held by %s\n", style.Escape(e.Lock.ObjectText()), threadLabel(p.Threads[e.Owner]))
		}
	}
	b.WriteString("\n")
	writeLocks := func(frame int) {
		for _, l := range t.Locks {
			if l.Frame != frame {
				continue
			}
			tag := colourTag(pal.Accent())
			if l.Kind != threaddump.LockHeld {
				tag = colourTag(pal.Warning())
			}
			line := "- " + l.Kind.String() + " " + l.ObjectText()
			if l.HeldBy != 0 {
				line += " held by thread " + strconv.Itoa(l.HeldBy)
				if owner := p.Thread(l.HeldBy); owner != nil {
					line += " (" + owner.Name + ")"
				} else if l.HeldByName != "" {
					line += " (" + l.HeldByName + ")"
				}
			}
			fmt.Fprintf(&b, "  %s%s[-]\n", tag, style.Escape(line))
		}
	}
	writeLocks(-1)
	for fi, f := range t.Frames {
		switch f.Kind {
		case threaddump.FrameJava:
			fmt.Fprintf(&b, "  at %s\n", style.Escape(f.String()))
		case threaddump.FrameNative:
			fmt.Fprintf(&b, "  [::d]native: %s[::-]\n", style.Escape(f.String()))
		case threaddump.FrameKernel:
			fmt.Fprintf(&b, "  [::d]kernel: %s[::-]\n", style.Escape(f.Text))
		default:
			fmt.Fprintf(&b, "  [::d]%s[::-]\n", style.Escape(f.Text))
		}
		writeLocks(fi)
	}
	if len(t.Unknown) > 0 {
		b.WriteString("\n[::d]lines not understood:[::-]\n")
		for _, l := range t.Unknown {
			fmt.Fprintf(&b, "  [::d]%d: %s[::-]\n", l.No, style.Escape(l.Text))
		}
	}
	return b.String()
}
