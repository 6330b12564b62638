package viewer

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// Footer is the bottom line every view shares: its key hints or status,
// replaced by the / prompt while a filter is typed. The filter follows
// every keystroke; Enter keeps it, Esc restores the one from before.
type Footer struct {
	*tview.Pages
	status *tview.TextView
	prompt *tview.InputField
	asking bool
	before string
	change func(string)
	done   func()
}

// NewFooter returns a footer showing an empty status; change is the
// filter's setter, called on every edit of the prompt.
func NewFooter(change func(string)) *Footer {
	f := &Footer{change: change, status: tview.NewTextView().SetDynamicColors(false).SetWrap(false), prompt: tview.NewInputField().SetLabel("/")}
	f.prompt.SetChangedFunc(func(s string) {
		if f.change != nil {
			f.change(s)
		}
	})
	f.prompt.SetDoneFunc(f.end)
	f.Pages = tview.NewPages().
		AddPage("status", f.status, true, true).
		AddPage("prompt", f.prompt, true, false)
	return f
}

// DynamicColors lets the status carry tview colour tags (escape VM strings).
func (f *Footer) DynamicColors() *Footer { f.status.SetDynamicColors(true); return f }

// SetStatus sets the status line (key hints, the selection's detail).
func (f *Footer) SetStatus(text string) { f.status.SetText(text) }

// Prompting reports whether the prompt is open.
func (f *Footer) Prompting() bool { return f.asking }

// Input is the prompt's input handler: a view routes keys to it while
// Prompting.
func (f *Footer) Input() func(*tcell.EventKey, func(tview.Primitive)) { return f.prompt.InputHandler() }

// Field is the prompt's input field (what gets the focus while asking).
func (f *Footer) Field() *tview.InputField { return f.prompt }

// Ask opens the prompt on current; the change function follows every edit
// (and gets current back on Esc); done runs when the prompt closes.
func (f *Footer) Ask(current string, done func()) {
	f.asking, f.before, f.done = true, current, done
	f.prompt.SetText(current)
	f.SwitchToPage("prompt")
}

// SetFilter replaces the prompt's text (and so the filter) from outside,
// e.g. Esc in the view clearing it.
func (f *Footer) SetFilter(s string) { f.prompt.SetText(s) }

func (f *Footer) end(key tcell.Key) {
	if key == tcell.KeyEscape {
		f.prompt.SetText(f.before) // calls change
	}
	f.asking = false
	f.SwitchToPage("status")
	if f.done != nil {
		f.done()
	}
}
