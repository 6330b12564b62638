package profileview

import (
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/tui/clip"
)

// CopyText is the selected method's signature: "class.name(descriptor)".
func (v *View) CopyText() (what, text string) {
	m := v.selectedMethod()
	if m < 0 || v.p == nil {
		return "", ""
	}
	name := v.p.Name(m)
	return "method " + name, name + v.p.Methods[m].Signature
}

// copyRow copies the selected method (y) through OSC 52.
func (v *View) copyRow() {
	what, text := v.CopyText()
	v.footer.SetStatus(safetext.Terminal(clip.Do(what, safetext.Terminal(text))))
}
