package calltreeview

import (
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// View is the call-tree tabs on a frame of their own, as the tests and
// benchmarks drive them (the profile viewer adds the same tabs to its frame).
type View struct {
	*viewer.Frame
	Tabs *Tabs
}

// New returns a view of p's call trees.
func New(h viewer.Host, p *trace.Profile, c trace.Clock) *View {
	f := viewer.NewFrame(viewer.FrameOptions{Palette: h.Palette, Quit: h.Quit, HelpTitle: "Call tree keys", Item: "node",
		FilterHelp: "keep the paths through methods whose name contains the text"})
	f.SetRunner(h.Runner)
	m := NewModel(p, c)
	tabs := AddTabs(f, m, h.Palette)
	header := func(status string) {
		f.SetHeader(style.Escape(safetext.Terminal(h.Title)) + " · " + style.Escape(status))
	}
	tabs.OnStatus = header
	header(m.Status())
	return &View{Frame: f, Tabs: tabs}
}
