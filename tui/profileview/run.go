package profileview

import (
	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/calltreeview"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// RunOptions configure Run.
type RunOptions struct {
	Title string // shown in the header, e.g. the file name
	// Screen replaces the terminal (tests pass a tcell.SimulationScreen).
	Screen tcell.Screen
	// Palette defaults to style.FromEnv() (NO_COLOR).
	Palette *style.Palette
}

// NewShell returns the shell Run runs: a View showing p full screen,
// quitting on q and Ctrl-C.
func NewShell(p *trace.Profile, opt RunOptions) (*viewer.Shell, *View) {
	sh := viewer.New(viewer.Options{Screen: opt.Screen})
	pal := viewer.PaletteOr(opt.Palette)
	var v *View
	vopt := Options{Title: opt.Title, Palette: pal, Quit: sh.Quit}
	if calltreeview.NewModel(p, p.Clocks.First()).HasTrees() {
		// T shows the call-tree tabs; their q comes back to the table.
		var trees *calltreeview.View
		vopt.CallTrees = func() {
			if trees == nil {
				host := viewer.Host{Title: opt.Title + " · call trees (q: back to the methods)", Palette: pal, Quit: func() { sh.SetRoot(v) }, Runner: sh, Shell: sh}
				trees = calltreeview.New(host, p, p.Clocks.First())
			}
			sh.SetRoot(trees)
		}
	}
	v = New(vopt)
	v.SetProfile(p)
	sh.SetRoot(v)
	return sh, v
}

// Run shows p full screen until the user quits.
func Run(p *trace.Profile, opt RunOptions) error {
	sh, _ := NewShell(p, opt)
	return sh.Run()
}
