// Package viewtree is the model of an Android window's view hierarchy as
// the framework's view debugging handler (DdmHandleViewDebug: VULW, VURT,
// VUOP) reports it, and the decoders of what it sends: the binary v2 dump
// of ViewHierarchyEncoder with its property index (DecodeV2), the text dump
// of ViewDebug.dump (DecodeText), the capture-layers stream (DecodeLayers),
// a subtree's profile, the theme dump and an invoked method's return value.
// It also writes each form (EncodeV2, EncodeText, EncodeLayers…), as the
// framework does, for the simulator and the tests. The wire layouts are in
// ../shared/spec/viewdebug.md.
//
// Main types: Tree (one window: views in pre-order in one slice, their
// properties in another, so memory is linear in the dump), Node, Property.
// Every length is bounded (MaxDepth, MaxNodes, the record or line a string
// sits in); a dump cut short keeps the views read before the cut
// (Tree.Truncated). Strings in a Tree come from the app: escape them
// before showing them.
package viewtree

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Bounds on what a dump may hold.
const (
	// MaxDepth bounds the nesting of views (and of property maps inside a
	// view): deeper input is an error, never a deep recursion.
	MaxDepth = 128
	// MaxNodes bounds the views of one window.
	MaxNodes = 200_000
	// maxMapDepth bounds property maps nested inside one view's map
	// (layout params, the theme).
	maxMapDepth = 8
	// MaxNameBytes bounds the bytes of one tree's property names (issue 37
	// #7). A real window's are a few KiB (a few hundred names of a few
	// dozen bytes); a hostile dump names a nested map's properties per
	// (map, property) pair out of 64 KiB names (a 6 MB reply made 1.2 GB of
	// names), or a text dump gives every view new names (2.5 M of them made
	// 470 MB). Past it, new names are not kept: their properties are named
	// NamesCutName and counted in Tree.NamesCut.
	MaxNameBytes = 4 << 20
)

// NamesCutName names the properties whose own name passed MaxNameBytes.
const NamesCutName = "(name not kept: the dump's names pass the bound)"

// Errors a decoder returns (wrapped with the place they were found).
var (
	ErrTooDeep    = errors.New("views nested deeper than the bound")
	ErrTooMany    = errors.New("more views than the bound")
	ErrNoIndex    = errors.New("no property index at the end of the dump")
	ErrNotADump   = errors.New("not a view hierarchy dump")
	ErrEmptyDump  = errors.New("the dump holds no view")
	ErrNoSuchView = errors.New("no such view")
)

// Visibility is View.getVisibility().
type Visibility int8

// View visibilities, with the framework's numbers.
const (
	Visible   Visibility = 0
	Invisible Visibility = 4
	Gone      Visibility = 8
)

func (v Visibility) String() string {
	switch v {
	case Visible:
		return "VISIBLE"
	case Invisible:
		return "INVISIBLE"
	case Gone:
		return "GONE"
	}
	return strconv.Itoa(int(v))
}

// ParseVisibility reads a visibility as the text dump prints it (a name)
// or as a number.
func ParseVisibility(s string) (Visibility, bool) {
	switch s {
	case "VISIBLE":
		return Visible, true
	case "INVISIBLE":
		return Invisible, true
	case "GONE":
		return Gone, true
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < -128 || n > 127 {
		return 0, false
	}
	return Visibility(n), true
}

// Format says which dump a tree was read from.
type Format string

// Dump formats.
const (
	FormatV2   Format = "v2"
	FormatText Format = "text"
)

// Tree is one window's views in pre-order: Nodes[0] is the root, a node's
// children follow it. Props holds every node's properties, each node
// naming its range.
type Tree struct {
	Window     string // the window name VULW gave, when known
	Format     Format
	WindowLeft int32 // the window's place on the screen (v2 only)
	WindowTop  int32
	Nodes      []Node
	Props      []Property
	// Truncated says the dump ended inside a view (a busy app's UI thread
	// gives dumpv2 ~2 s): the views read before the cut are kept.
	Truncated bool
	// Unnamed counts properties whose id the v2 index does not name
	// (named "#ID").
	Unnamed int
	// NamesCut counts properties named NamesCutName: the tree's names had
	// passed MaxNameBytes.
	NamesCut int

	raw      []byte    // the dump: string values point into it
	children []int32   // every node's children, each node a range
	names    []string  // property names, by Property.name
	index    nameTable // v2: what each property id means
	// nameBytes counts the bytes of names; cutName is NamesCutName's
	// index in names plus one (0: not used yet).
	nameBytes int
	cutName   int32
}

// Per-item sizes Bytes counts (64-bit): a Node's fields and a Property.
const (
	nodeBytes     = 144
	propertyBytes = 16
)

// Bytes is at most what the tree holds in memory: the dump its values
// point into, its nodes and their strings (counted even where they point
// into the dump), properties, child lists and property names. The model
// charges it to the memory budget (monitor).
func (t *Tree) Bytes() int64 {
	if t == nil {
		return 0
	}
	n := int64(len(t.raw)+len(t.Window)+t.nameBytes) + nodeBytes*int64(len(t.Nodes)) +
		propertyBytes*int64(len(t.Props)) + 4*int64(len(t.children)) + 16*int64(len(t.names))
	for i := range t.Nodes {
		nd := &t.Nodes[i]
		n += int64(len(nd.Class) + len(nd.ID) + len(nd.Text))
	}
	return n
}

// nameFits reports whether a new name of n bytes stays within MaxNameBytes.
func (t *Tree) nameFits(n int) bool { return t.nameBytes+n <= MaxNameBytes }

// addName adds a property name, or, past MaxNameBytes, names the property
// NamesCutName (added once).
func (t *Tree) addName(name string) int32 {
	if !t.nameFits(len(name)) {
		return t.namesCut()
	}
	t.nameBytes += len(name)
	t.names = append(t.names, name)
	return int32(len(t.names) - 1)
}

// namesCut counts a property whose name is not kept and returns
// NamesCutName's index.
func (t *Tree) namesCut() int32 {
	t.NamesCut++
	if t.cutName == 0 {
		t.names = append(t.names, NamesCutName)
		t.cutName = int32(len(t.names))
	}
	return t.cutName - 1
}

// Node is one view.
type Node struct {
	Class string
	Hash  uint32 // identity hash, printed in hex after '@'
	ID    string // "id/name" (or the number the VM gave), "" for NO_ID
	// Left and Top are relative to the parent; ScreenLeft and ScreenTop
	// are in the screen (the window's place, the parents' places, less
	// their scrolling).
	Left, Top, Width, Height int32
	ScreenLeft, ScreenTop    int32
	ScrollX, ScrollY         int32
	Visibility               Visibility
	Alpha                    float32
	Padding                  [4]int32 // left, top, right, bottom
	Text                     string
	HasText                  bool // a text view (Text may be "")
	Depth                    int32
	Parent                   int32 // -1 for the root

	props     [2]int32 // [start, end) in Tree.Props
	kids      [2]int32 // [start, end) in Tree.children
	propsDone bool     // props closed (the view's map ended)
}

// Name is how VUOP names the view: class@hexhash.
func (n *Node) Name() string { return n.Class + "@" + n.HashString() }

// HashString is the identity hash as printed after '@'.
func (n *Node) HashString() string { return strconv.FormatUint(uint64(n.Hash), 16) }

// Children are the indexes of the node's children in Tree.Nodes.
func (t *Tree) Children(i int) []int32 {
	n := &t.Nodes[i]
	return t.children[n.kids[0]:n.kids[1]]
}

// Properties are the node's properties in the order the dump gave them.
func (t *Tree) Properties(i int) []Property {
	n := &t.Nodes[i]
	return t.Props[n.props[0]:n.props[1]]
}

// Value is a property's value as text.
func (t *Tree) Value(p Property) string { return p.value(t.raw) }

// Find returns the index of the view named class@hash (or by its hash
// alone), -1 if none. The class may be the simple name the views pane
// shows (TextView@ff4018a for android.widget.TextView@ff4018a) when one
// view only fits it; a full name that matches wins.
func (t *Tree) Find(name string) int {
	cls, hash, ok := SplitName(name)
	if !ok {
		return -1
	}
	short, shorts := -1, 0
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if n.Hash != hash {
			continue
		}
		if cls == "" || n.Class == cls {
			return i
		}
		if SimpleClass(n.Class) == cls {
			short, shorts = i, shorts+1
		}
	}
	if shorts == 1 {
		return short
	}
	return -1
}

// SimpleClass is a class name without its package: "TextView" for
// "android.widget.TextView", as the views pane shows it.
func SimpleClass(cls string) string {
	if d := strings.LastIndexByte(cls, '.'); d >= 0 {
		return cls[d+1:]
	}
	return cls
}

// SplitName splits class@hexhash; "@hexhash" leaves the class empty.
func SplitName(name string) (class string, hash uint32, ok bool) {
	at := strings.LastIndexByte(name, '@')
	if at < 0 {
		return "", 0, false
	}
	h, err := strconv.ParseUint(name[at+1:], 16, 32)
	if err != nil {
		return "", 0, false
	}
	return name[:at], uint32(h), true
}

// Subtree is the range [i, end) of the node's subtree in pre-order.
func (t *Tree) Subtree(i int) int {
	d := t.Nodes[i].Depth
	j := i + 1
	for j < len(t.Nodes) && t.Nodes[j].Depth > d {
		j++
	}
	return j
}

// Count is the number of views.
func (t *Tree) Count() int { return len(t.Nodes) }

// Effective reports whether the view would be drawn: it and every parent
// are VISIBLE (not GONE or INVISIBLE), as seen from the dump.
func (t *Tree) Effective(i int) Visibility {
	v := Visible
	for j := i; j >= 0; j = int(t.Nodes[j].Parent) {
		switch t.Nodes[j].Visibility {
		case Gone:
			return Gone
		case Invisible:
			v = Invisible
		}
	}
	return v
}

// finish links children and computes screen positions, once every node is
// read. Nodes are in pre-order, so a parent always comes before its child.
func (t *Tree) finish() {
	counts := make([]int32, len(t.Nodes)+1)
	for i := 1; i < len(t.Nodes); i++ {
		counts[t.Nodes[i].Parent+1]++
	}
	var at int32
	for i := range t.Nodes {
		t.Nodes[i].kids = [2]int32{at, at}
		at += counts[i+1]
	}
	t.children = make([]int32, at)
	for i := 1; i < len(t.Nodes); i++ {
		p := &t.Nodes[t.Nodes[i].Parent]
		t.children[p.kids[1]] = int32(i)
		p.kids[1]++
	}
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if n.Parent < 0 {
			n.ScreenLeft, n.ScreenTop = t.WindowLeft+n.Left, t.WindowTop+n.Top
			continue
		}
		p := &t.Nodes[n.Parent]
		n.ScreenLeft = p.ScreenLeft + n.Left - p.ScrollX
		n.ScreenTop = p.ScreenTop + n.Top - p.ScrollY
	}
}

// Kind is a property value's type: the v2 tag ('Z', 'B', 'S', 'I', 'J',
// 'F', 'D', 'R'), or 'T' for a text dump's value.
type Kind byte

// Property is one property of a view: Tree.Name gives its name, Tree.Value
// its value. It holds no pointer (a 2,000-view tree has ~100,000 of them).
type Property struct {
	name int32 // index in Tree.names
	Kind Kind
	bits uint64 // a number; a string's offset in the dump (high 32 bits) and length
}

func strBits(off, n int) uint64 { return uint64(off)<<32 | uint64(uint32(n)) }

// span is a string value's bytes in the dump.
func (p Property) span(raw []byte) []byte {
	off, n := int(p.bits>>32), int(uint32(p.bits))
	return raw[off : off+n]
}

// Name is a property's name with its category ("layout:left",
// "drawing:getAlpha()"); one nested in a map (layout params, the theme) is
// named "outer/inner".
func (t *Tree) Name(p Property) string { return t.names[p.name] }

// Category is a property name's prefix before ':' ("misc" when it has
// none; the nested ones of a map take the map's).
func Category(name string) string {
	if i := strings.IndexByte(name, '/'); i >= 0 {
		name = name[:i]
	}
	if i := strings.IndexByte(name, ':'); i >= 0 {
		return name[:i]
	}
	return "misc"
}

// Short is a property name without its category.
func Short(name string) string {
	slash := strings.IndexByte(name, '/')
	if i := strings.IndexByte(name, ':'); i >= 0 && (slash < 0 || i < slash) {
		return name[i+1:]
	}
	return name
}

func (p Property) value(raw []byte) string {
	switch p.Kind {
	case 'Z':
		return strconv.FormatBool(p.bits != 0)
	case 'B':
		return strconv.Itoa(int(int8(p.bits)))
	case 'S':
		return strconv.Itoa(int(int16(p.bits)))
	case 'I':
		return strconv.Itoa(int(int32(p.bits)))
	case 'J':
		return strconv.FormatInt(int64(p.bits), 10)
	case 'F':
		return strconv.FormatFloat(float64(f32(p.bits)), 'g', -1, 32)
	case 'D':
		return strconv.FormatFloat(f64(p.bits), 'g', -1, 64)
	case 'R':
		return string(p.span(raw))
	case 'T':
		return unescapeText(string(p.span(raw)))
	}
	return ""
}

// String renders a tree as the `views` command's text: one line per view,
// indented by depth, with id, bounds, visibility and text.
func (t *Tree) String() string {
	var b strings.Builder
	for i := range t.Nodes {
		t.writeLine(&b, i)
	}
	return b.String()
}

func (t *Tree) writeLine(b *strings.Builder, i int) {
	n := &t.Nodes[i]
	b.WriteString(strings.Repeat("  ", int(n.Depth)))
	b.WriteString(n.Name())
	if n.ID != "" {
		b.WriteString(" " + n.ID)
	}
	fmt.Fprintf(b, " [%d,%d %dx%d]", n.Left, n.Top, n.Width, n.Height)
	if n.Visibility != Visible {
		b.WriteString(" " + n.Visibility.String())
	}
	if n.HasText {
		b.WriteString(" " + strconv.Quote(n.Text))
	}
	b.WriteByte('\n')
}
