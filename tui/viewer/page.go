package viewer

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// Page is one screen of a Frame: a Table (rows, or a tree of rows), a Text,
// or a view's own drawing (Custom). A tab of the frame holds a stack of
// pages: its root, and the pages drilled into from it.
type Page interface {
	tview.Primitive
	// Title names the page in the tab bar.
	Title() string
	// Scope names the page's kind for its own keys: bindings registered
	// in that scope (Frame.AddKeys with keymap.Binding.In) act only while
	// such a page is shown. "" for none.
	Scope() string
	// Move moves the page's selection, or scrolls it, by delta rows;
	// ±1<<30 go to the ends.
	Move(delta int)
	// PageSize is how far the page keys move.
	PageSize() int
}

// Filterable is a page the / prompt filters.
type Filterable interface {
	Filter() string
	SetFilter(string)
}

// Hinted is a page with key hints of its own for the footer (e.g.
// "j/k scroll  Esc back"), shown instead of the view's.
type Hinted interface{ Hints() string }

// keyed is a page that brings bindings of its own (a table's sort keys, a
// tree's expand keys); the frame registers them once per scope.
type keyed interface {
	pageKeys(f *Frame) []keymap.Binding
}

// Text is a scrollable page of text with tview tags (escape peer strings
// with style.Escape): a stack of frames, an object's fields, the reason a
// page is empty.
type Text struct {
	*tview.TextView
	title, scope, hints string
}

// NewText returns an empty text page titled title, in key scope scope.
func NewText(title, scope string) *Text {
	t := &Text{title: title, scope: scope}
	t.TextView = tview.NewTextView().SetDynamicColors(true).SetScrollable(true).SetWrap(false)
	return t
}

// NewMessage returns a page that says why there is nothing to show (an
// error, a capability the VM lacks): title, then text, wrapped. text is
// plain: it is escaped here.
func NewMessage(title, text string) *Text {
	t := NewText(title, "")
	t.SetWrap(true).SetWordWrap(true)
	t.SetText(style.Escape(title) + "\n\n" + escapeLines(text))
	return t
}

// escapeLines escapes each line of text, keeping the line breaks.
func escapeLines(text string) string {
	out := []byte(nil)
	start := 0
	for i := 0; i <= len(text); i++ {
		if i == len(text) || text[i] == '\n' {
			out = append(out, style.Escape(text[start:i])...)
			if i < len(text) {
				out = append(out, '\n')
			}
			start = i + 1
		}
	}
	return string(out)
}

// Title implements Page.
func (t *Text) Title() string { return t.title }

// SetPageTitle renames the page (the tab bar shows it).
func (t *Text) SetPageTitle(s string) *Text { t.title = s; return t }

// Scope implements Page.
func (t *Text) Scope() string { return t.scope }

// SetHints sets the footer's key hints while the page is shown.
func (t *Text) SetHints(s string) *Text { t.hints = s; return t }

// Hints implements Hinted.
func (t *Text) Hints() string { return t.hints }

// Move scrolls.
func (t *Text) Move(delta int) {
	row, col := t.GetScrollOffset()
	switch {
	case delta <= -1<<29:
		t.ScrollToBeginning()
	case delta >= 1<<29:
		t.ScrollToEnd()
	default:
		t.ScrollTo(max(0, row+delta), col)
	}
}

// PageSize is the text's height.
func (t *Text) PageSize() int {
	_, _, _, h := t.GetInnerRect()
	return max(1, h-1)
}

// Custom is a page the view draws itself (a flame chart, a heap map): any
// tview.Primitive, with the frame's header, footer, help and keys around
// it. Keys that no binding takes go to the primitive's own input handler.
type Custom struct {
	tview.Primitive
	title, scope, hints string
	move                func(int)
	pageSize            func() int
}

// NewCustom wraps p as a page titled title, in key scope scope.
func NewCustom(p tview.Primitive, title, scope string) *Custom {
	return &Custom{Primitive: p, title: title, scope: scope}
}

// OnMove makes the movement keys call move (by rows, ±1<<30 to the ends)
// and page by pageSize(); without it they do nothing on this page.
func (c *Custom) OnMove(move func(delta int), pageSize func() int) *Custom {
	c.move, c.pageSize = move, pageSize
	return c
}

// SetHints sets the footer's key hints while the page is shown.
func (c *Custom) SetHints(s string) *Custom { c.hints = s; return c }

// Hints implements Hinted.
func (c *Custom) Hints() string { return c.hints }

// Release passes the frame's Release (the page is left) to a primitive
// that holds something until then (a picture charged to the memory
// budget).
func (c *Custom) Release() {
	if r, ok := c.Primitive.(interface{ Release() }); ok {
		r.Release()
	}
}

// Title implements Page.
func (c *Custom) Title() string { return c.title }

// Scope implements Page.
func (c *Custom) Scope() string { return c.scope }

// Move implements Page.
func (c *Custom) Move(delta int) {
	if c.move != nil {
		c.move(delta)
	}
}

// PageSize implements Page.
func (c *Custom) PageSize() int {
	if c.pageSize != nil {
		return max(1, c.pageSize())
	}
	_, _, _, h := c.GetRect()
	return max(1, h-1)
}

// passKey hands a key no binding took to a custom page's primitive.
func passKey(p Page, ev *tcell.EventKey, setFocus func(tview.Primitive)) {
	if c, ok := p.(*Custom); ok {
		if h := c.Primitive.InputHandler(); h != nil {
			h(ev, setFocus)
		}
	}
}
