package viewtree

// JSONNode is a view in the JSON of `ddmtui views --json` and `snapshot
// --views`: left and top relative to the parent, id null for NO_ID, text
// null for views that are not text views.
type JSONNode struct {
	Class      string      `json:"class"`
	Hash       string      `json:"hash"`
	ID         *string     `json:"id"`
	Left       int32       `json:"left"`
	Top        int32       `json:"top"`
	Width      int32       `json:"width"`
	Height     int32       `json:"height"`
	ScreenLeft int32       `json:"screen_left"`
	ScreenTop  int32       `json:"screen_top"`
	Visibility string      `json:"visibility"`
	Alpha      float32     `json:"alpha"`
	Padding    [4]int32    `json:"padding"`
	Text       *string     `json:"text"`
	Children   []*JSONNode `json:"children"`
}

// JSONWindow is one window and its tree (nil when its dump failed, with
// Error saying why).
type JSONWindow struct {
	Name      string `json:"name"`
	ViewCount int    `json:"view_count"`
	Format    Format `json:"format,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	// NamesCut counts the properties whose names were not kept (the
	// tree's names passed MaxNameBytes).
	NamesCut int       `json:"names_cut,omitempty"`
	Tree     *JSONNode `json:"tree"`
	Error    string    `json:"error,omitempty"`
}

// JSON is the tree as nested JSONNodes.
func (t *Tree) JSON() *JSONNode {
	if len(t.Nodes) == 0 {
		return nil
	}
	out := make([]JSONNode, len(t.Nodes))
	for i := range t.Nodes {
		n := &t.Nodes[i]
		j := &out[i]
		*j = JSONNode{Class: n.Class, Hash: n.HashString(), Left: n.Left, Top: n.Top, Width: n.Width, Height: n.Height,
			ScreenLeft: n.ScreenLeft, ScreenTop: n.ScreenTop, Visibility: n.Visibility.String(), Alpha: n.Alpha,
			Padding: n.Padding, Children: []*JSONNode{}}
		if n.ID != "" {
			id := n.ID
			j.ID = &id
		}
		if n.HasText {
			text := n.Text
			j.Text = &text
		}
		if n.Parent >= 0 {
			p := &out[n.Parent]
			p.Children = append(p.Children, j)
		}
	}
	return &out[0]
}

// JSONWindowOf is a window's JSON entry from its dump, or its error.
func JSONWindowOf(name string, t *Tree, err error) JSONWindow {
	w := JSONWindow{Name: name}
	if err != nil {
		w.Error = err.Error()
		return w
	}
	w.ViewCount, w.Format, w.Truncated, w.NamesCut, w.Tree = t.Count(), t.Format, t.Truncated, t.NamesCut, t.JSON()
	return w
}
