package allocview

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
