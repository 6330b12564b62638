package viewer_test

import (
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// A standalone viewer draws in the terminal's own colours, as the dashboard
// does, whatever tview's global styles held before (issue 38 #2: `ddmtui
// trace`, `anr` and `allocs` drew rows in bright white, \e[97m, and headers
// on forced black, unreadable on a light terminal).
func TestRunDrawsInTheTerminalsColours(t *testing.T) {
	saved := tview.Styles
	t.Cleanup(func() { tview.Styles = saved })
	// tview's own defaults, as a process that never ran the dashboard has.
	tview.Styles.PrimitiveBackgroundColor = tcell.ColorBlack
	tview.Styles.PrimaryTextColor = tcell.ColorWhite
	tview.Styles.BorderColor = tcell.ColorWhite
	tview.Styles.TitleColor = tcell.ColorWhite
	tview.Styles.GraphicsColor = tcell.ColorWhite

	screen := tcell.NewSimulationScreen("UTF-8")
	if err := screen.Init(); err != nil {
		t.Fatal(err)
	}
	defer screen.Fini()
	screen.SetSize(100, 20)
	pal := style.Palette{}
	_, v := viewer.NewRun(viewer.RunOptions{Title: "f.trace", Screen: screen, Palette: &pal}, func(h viewer.Host) *viewer.Frame {
		f := viewer.NewFrame(viewer.FrameOptions{Palette: h.Palette, HelpTitle: "keys", Item: "class", Quit: h.Quit})
		f.AddTab(viewer.NewTable(&classRows{names: []string{"java.lang.String", "byte[]", "int[]"}}, viewer.TableOptions{Title: "Classes"}))
		f.AddBar(tview.NewTextView().SetText("a bar of text"), 1)
		return f
	})
	v.SetRect(0, 0, 100, 20)
	v.Draw(screen)
	screen.Show()
	cells, w, _ := screen.GetContents()
	white, black := 0, 0
	for i, c := range cells {
		fg, bg, _ := c.Style.Decompose()
		if fg == tcell.ColorWhite && len(c.Runes) > 0 && c.Runes[0] != ' ' {
			white++
			if white == 1 {
				t.Errorf("cell %d,%d %q drawn in bright white", i%w, i/w, string(c.Runes))
			}
		}
		if bg == tcell.ColorBlack {
			black++
		}
	}
	if white > 0 || black > 0 {
		t.Errorf("%d cells in bright white, %d on forced black", white, black)
	}
}
