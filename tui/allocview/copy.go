package allocview

import (
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/tui/clip"
)

// CopyText is the selected row's allocation site: the group's site, or
// the entry's when not grouped.
func (v *View) CopyText() (what, text string) {
	g, entries := v.Selected()
	site := ""
	switch {
	case g != nil:
		site = g.Site
	case len(entries) == 1 && v.tab != nil:
		site = v.tab.Site(entries[0])
	}
	if site == "" {
		return "", ""
	}
	return "allocation site", site
}

// copyRow copies the selected row's allocation site (y) through OSC 52.
func (v *View) copyRow() {
	what, text := v.CopyText()
	v.SetMessage(clip.Do(what, safetext.Terminal(text)))
}
