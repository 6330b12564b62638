package dumpview

import (
	"fmt"
	"strings"
)

// CopyText is the selected thread's name line and its stack, as the dump
// writes them.
func (v *View) CopyText() (what, text string) {
	p := v.process()
	i := v.selectedThread()
	if p == nil || i < 0 || i >= len(p.Threads) {
		return "", ""
	}
	t := p.Threads[i]
	var b strings.Builder
	fmt.Fprintf(&b, "%q tid=%d %s\n", t.Name, t.TID, t.State)
	for _, f := range t.Frames {
		b.WriteString("  at " + f.String() + "\n")
	}
	return "thread " + t.Name + " and its stack", b.String()
}
