package viewtree

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// The v2 stream's value tags (ViewHierarchyEncoder; spec/viewdebug.md
// "VURT ops", useV2 = 1).
const (
	tagBool   = 'Z'
	tagByte   = 'B'
	tagShort  = 'S'
	tagInt    = 'I'
	tagLong   = 'J'
	tagFloat  = 'F'
	tagDouble = 'D'
	tagString = 'R'
	tagMap    = 'M'
	// maxV2String is the encoder's cap on a string's UTF-8 bytes.
	maxV2String = 32767
)

// indexMarker is the start of the property index map's first value, the
// string "propertyIndex": its u2 length then its bytes.
var indexMarker = []byte("\x00\x0dpropertyIndex")

// IsV2 reports whether a VURT dump reply is the binary v2 stream rather than
// the text dump: the stream starts with a key (tag 'S', then a property id
// below 256), a text line with a class name (never a zero byte).
func IsV2(data []byte) bool {
	return len(data) >= 3 && data[0] == tagShort && data[1] == 0
}

// field is what a property means for the Node's own fields.
type field uint8

const (
	fNone field = iota
	fClass
	fHash
	fChild
	fID
	fLeft
	fTop
	fWidth
	fHeight
	fRight
	fBottom
	fVisibility
	fAlpha
	fPadLeft
	fPadTop
	fPadRight
	fPadBottom
	fText
	fScrollX
	fScrollY
	fWindowLeft
	fWindowTop
)

var v2Fields = map[string]field{
	"meta:__name__": fClass, "meta:__hash__": fHash, "id": fID,
	"layout:left": fLeft, "layout:top": fTop, "layout:width": fWidth, "layout:height": fHeight,
	"layout:right": fRight, "layout:bottom": fBottom,
	"misc:visibility": fVisibility, "drawing:alpha": fAlpha,
	"padding:paddingLeft": fPadLeft, "padding:paddingTop": fPadTop,
	"padding:paddingRight": fPadRight, "padding:paddingBottom": fPadBottom,
	"text:text": fText, "scrolling:scrollX": fScrollX, "scrolling:scrollY": fScrollY,
	"window:left": fWindowLeft, "window:top": fWindowTop,
}

// nameTable names v2 property ids and says what each means.
type nameTable struct {
	names  []string
	fields []field
}

func (nt *nameTable) name(id int16) (string, bool) {
	if id > 0 && int(id) < len(nt.names) && nt.names[id] != "" {
		return nt.names[id], true
	}
	return fmt.Sprintf("#%d", id), false
}

func (nt *nameTable) field(id int16) field {
	if id > 0 && int(id) < len(nt.fields) {
		return nt.fields[id]
	}
	return fNone
}

// DecodeV2 reads a binary v2 dump (ViewHierarchyEncoder): the window's
// place, the root view's map with its children, then the property index
// that names every id (read first: it is found from the end). A stream cut
// inside the views keeps those read before the cut (Truncated); ids the
// index does not name are named "#ID" (counted in Unnamed).
func DecodeV2(data []byte) (*Tree, error) {
	at := bytes.LastIndex(data, indexMarker)
	if at < 5 || data[at-1] != tagString || data[at-4] != tagShort || data[at-5] != tagMap {
		return nil, fmt.Errorf("v2 dump: %w", ErrNoIndex)
	}
	start := at - 5
	t := &Tree{Format: FormatV2, raw: data}
	if err := t.index.read(data, start); err != nil {
		return nil, fmt.Errorf("v2 dump: property index: %w", err)
	}
	t.names = append([]string(nil), t.index.names...)
	for _, n := range t.names {
		t.nameBytes += len(n)
	}
	t.Props = make([]Property, 0, start/8) // a key and its value: 5 bytes at least, 8 for an int
	d := v2Decoder{t: t, b: data[:start], nested: map[[2]int16]int32{}, unnamed: map[int16]int32{}}
	if err := d.body(); err != nil {
		return nil, fmt.Errorf("v2 dump: %w", err)
	}
	if len(t.Nodes) == 0 {
		return nil, fmt.Errorf("v2 dump: %w", ErrEmptyDump)
	}
	t.finish()
	return t, nil
}

// read reads the index map at data[start:]: (S id, R name) pairs after
// the first pair, __name__ = "propertyIndex", up to the end key S 0,
// which must end the data.
func (nt *nameTable) read(data []byte, start int) error {
	r := wire.NewReader(data, 0)
	r.Skip(start+1, "index map")
	first := true
	type entry struct {
		id   int16
		name string
	}
	var entries []entry
	maxID := int16(0)
	for {
		if tag := r.U1("index key tag"); tag != tagShort && r.Err() == nil {
			r.Failf("index key tag", "%q, want 'S'", tag)
		}
		id := r.S2("index key")
		if r.Err() != nil {
			return r.Err()
		}
		if id == 0 {
			break
		}
		if tag := r.U1("index value tag"); tag != tagString && r.Err() == nil {
			r.Failf("index value tag", "%q, want 'R'", tag)
		}
		n := int(r.U2("index name length"))
		name := r.Bytes(n, "index name")
		if r.Err() != nil {
			return r.Err()
		}
		if first {
			first = false
			continue // __name__ = "propertyIndex"
		}
		if id > 0 {
			entries = append(entries, entry{id, string(name)})
			maxID = max(maxID, id)
		}
	}
	if r.Len() != 0 {
		return fmt.Errorf("%d bytes after the index", r.Len())
	}
	nt.names = make([]string, int(maxID)+1)
	nt.fields = make([]field, int(maxID)+1)
	for _, e := range entries {
		nt.names[e.id] = e.name
		f, ok := v2Fields[e.name]
		if !ok && strings.HasPrefix(e.name, "meta:__child__") {
			f = fChild
		}
		nt.fields[e.id] = f
	}
	return nil
}

// v2Decoder reads the views with a plain cursor over the bytes (the
// stream's values are few bytes each; a 2,000-view dump holds ~100,000).
type v2Decoder struct {
	t       *Tree
	b       []byte // the stream before the property index
	off     int
	scratch [][]Property // a view's properties until its map ends, by depth
	nested  map[[2]int16]int32
	unnamed map[int16]int32
}

// errCut marks the end of the data inside a view: the dump was cut short.
var errCut = errors.New("cut short")

func (d *v2Decoder) bad(off int, what string, err error) error {
	return &wire.FormatError{Offset: off, What: what, Err: err}
}

// key reads a key: 'S' and a property id.
func (d *v2Decoder) key() (int16, error) {
	if d.off+3 > len(d.b) {
		return 0, errCut
	}
	if tag := d.b[d.off]; tag != tagShort {
		return 0, d.bad(d.off, "key tag", fmt.Errorf("%q, want 'S'", tag))
	}
	id := int16(uint16(d.b[d.off+1])<<8 | uint16(d.b[d.off+2]))
	d.off += 3
	return id, nil
}

// tag reads a value's tag.
func (d *v2Decoder) tag() (byte, error) {
	if d.off >= len(d.b) {
		return 0, errCut
	}
	d.off++
	return d.b[d.off-1], nil
}

// body reads the top-level pairs and the root view's map.
func (d *v2Decoder) body() error {
	sawRoot := false
	for d.off < len(d.b) {
		switch tag := d.b[d.off]; {
		case tag == tagMap && !sawRoot:
			sawRoot = true
			d.off++
			if err := d.view(0, -1); err != nil {
				if errors.Is(err, errCut) {
					d.t.Truncated = true
					return nil
				}
				return err
			}
		case tag == tagShort && !sawRoot:
			id, err := d.key()
			if err != nil {
				return err
			}
			vt, err := d.tag()
			if err != nil {
				return err
			}
			var p Property
			if err := d.value(&p, vt, id, 0); err != nil {
				return err
			}
			switch d.t.index.field(id) {
			case fWindowLeft:
				d.t.WindowLeft = int32(p.bits)
			case fWindowTop:
				d.t.WindowTop = int32(p.bits)
			}
		default:
			return d.bad(d.off, "top level", fmt.Errorf("unexpected tag %q", tag))
		}
	}
	return nil
}

// view reads one view's map (its 'M' already read).
func (d *v2Decoder) view(depth int, parent int32) error {
	if depth >= MaxDepth {
		return d.bad(d.off, "view", ErrTooDeep)
	}
	if len(d.t.Nodes) >= MaxNodes {
		return d.bad(d.off, "view", ErrTooMany)
	}
	idx := int32(len(d.t.Nodes))
	d.t.Nodes = append(d.t.Nodes, Node{Parent: parent, Depth: int32(depth), Alpha: 1})
	for len(d.scratch) <= depth {
		d.scratch = append(d.scratch, nil)
	}
	d.scratch[depth] = d.scratch[depth][:0]
	defer d.close(idx, depth)
	for {
		id, err := d.key()
		if err != nil {
			return err
		}
		if id == 0 {
			return nil
		}
		tag, err := d.tag()
		if err != nil {
			return err
		}
		if tag == tagMap {
			if d.t.index.field(id) == fChild {
				err = d.view(depth+1, idx)
			} else {
				err = d.nestedMap(id, depth, 1)
			}
			if err != nil {
				return err
			}
			continue
		}
		var p Property
		if err := d.value(&p, tag, id, 0); err != nil {
			return err
		}
		if f := d.t.index.field(id); f != fNone {
			d.apply(&d.t.Nodes[idx], &p, f)
		}
		d.scratch[depth] = append(d.scratch[depth], p)
	}
}

// close files the view's properties into the tree.
func (d *v2Decoder) close(idx int32, depth int) {
	n := &d.t.Nodes[idx]
	start := int32(len(d.t.Props))
	d.t.Props = append(d.t.Props, d.scratch[depth]...)
	n.props = [2]int32{start, int32(len(d.t.Props))}
	n.propsDone = true
}

// nestedMap reads a property map inside a view (layout params, the
// theme); its properties join the view's, named outer/inner.
func (d *v2Decoder) nestedMap(outer int16, depth, level int) error {
	if level > maxMapDepth {
		return d.bad(d.off, "property map", ErrTooDeep)
	}
	for {
		id, err := d.key()
		if err != nil {
			return err
		}
		if id == 0 {
			return nil
		}
		tag, err := d.tag()
		if err != nil {
			return err
		}
		if tag == tagMap {
			if err := d.nestedMap(id, depth, level+1); err != nil {
				return err
			}
			continue
		}
		var p Property
		if err := d.value(&p, tag, id, outer); err != nil {
			return err
		}
		d.scratch[depth] = append(d.scratch[depth], p)
	}
}

// value reads one non-map value into p and names it.
func (d *v2Decoder) value(p *Property, tag byte, id, outer int16) error {
	b, o := d.b, d.off
	p.Kind = Kind(tag)
	var n int
	switch tag {
	case tagBool, tagByte:
		n = 1
	case tagShort:
		n = 2
	case tagInt, tagFloat:
		n = 4
	case tagLong, tagDouble:
		n = 8
	case tagString:
		if o+2 > len(b) {
			return errCut
		}
		sn := int(b[o])<<8 | int(b[o+1])
		if sn > maxV2String {
			return d.bad(o, "string length", wire.ErrTooLong)
		}
		if o+2+sn > len(b) {
			return errCut
		}
		p.bits = strBits(o+2, sn)
		d.off = o + 2 + sn
		p.name = d.name(id, outer)
		return nil
	default:
		return d.bad(o-1, "value tag", fmt.Errorf("unknown tag %q", tag))
	}
	if o+n > len(b) {
		return errCut
	}
	var v uint64
	for _, c := range b[o : o+n] {
		v = v<<8 | uint64(c)
	}
	switch tag {
	case tagShort:
		v = uint64(int64(int16(v)))
	case tagInt:
		v = uint64(int64(int32(v)))
	}
	p.bits = v
	d.off = o + n
	p.name = d.name(id, outer)
	return nil
}

// name is the index in t.names of property id (nested in the map of
// property outer when not 0).
func (d *v2Decoder) name(id, outer int16) int32 {
	if outer == 0 {
		if _, ok := d.t.index.name(id); ok {
			return int32(id)
		}
		d.t.Unnamed++
		if i, ok := d.unnamed[id]; ok {
			return i
		}
		i := d.t.addName(fmt.Sprintf("#%d", id))
		d.unnamed[id] = i
		return i
	}
	key := [2]int16{outer, id}
	if i, ok := d.nested[key]; ok {
		return i
	}
	o, ok1 := d.t.index.name(outer)
	in, ok2 := d.t.index.name(id)
	if !ok1 || !ok2 {
		d.t.Unnamed++
	}
	if !d.t.nameFits(len(o) + 1 + len(in)) {
		return d.t.namesCut() // neither the name nor the pair is kept
	}
	i := d.t.addName(o + "/" + in)
	d.nested[key] = i
	return i
}

// apply sets the node's own fields from a property.
func (d *v2Decoder) apply(n *Node, p *Property, f field) {
	num := int32(p.bits)
	switch f {
	case fClass:
		if p.Kind == tagString {
			n.Class = d.intern(p)
		}
	case fHash:
		n.Hash = uint32(p.bits)
	case fID:
		switch {
		case p.Kind == tagString:
			n.ID = p.value(d.t.raw)
		case num != -1:
			n.ID = fmt.Sprintf("0x%08x", uint32(num))
		}
	case fLeft:
		n.Left = num
	case fTop:
		n.Top = num
	case fWidth:
		n.Width = num
	case fHeight:
		n.Height = num
	case fVisibility:
		n.Visibility = Visibility(num)
	case fAlpha:
		if p.Kind == tagFloat {
			n.Alpha = f32(p.bits)
		}
	case fPadLeft:
		n.Padding[0] = num
	case fPadTop:
		n.Padding[1] = num
	case fPadRight:
		n.Padding[2] = num
	case fPadBottom:
		n.Padding[3] = num
	case fText:
		n.HasText = true
		if p.Kind == tagString {
			n.Text = p.value(d.t.raw)
		}
	case fScrollX:
		n.ScrollX = num
	case fScrollY:
		n.ScrollY = num
	}
}

// intern returns a class name shared by every view of that class.
func (d *v2Decoder) intern(p *Property) string {
	b := p.span(d.t.raw)
	for i := len(d.t.Nodes) - 2; i >= 0 && i >= len(d.t.Nodes)-8; i-- {
		if c := d.t.Nodes[i].Class; c == string(b) {
			return c
		}
	}
	return string(b)
}

func f32(bits uint64) float32 { return math.Float32frombits(uint32(bits)) }
func f64(bits uint64) float64 { return math.Float64frombits(bits) }
