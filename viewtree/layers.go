package viewtree

import (
	"fmt"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// Capture-layers stream markers (VURT op 2).
const (
	layerView = 1
	layerEnd  = 2
	// MaxLayers bounds the views of one capture-layers stream.
	MaxLayers = 20_000
)

// Layers is a window's capture-layers reply: its size, then every drawn
// view's picture in pre-order.
type Layers struct {
	Width, Height int32
	Views         []Layer
	// Truncated says the stream ended before its end marker.
	Truncated bool
}

// Layer is one view's picture in a capture-layers stream.
type Layer struct {
	Name      string // class@hash
	Visible   bool
	Left, Top int32 // in the window
	PNG       []byte
}

// DecodeLayers reads a capture-layers stream: s4 width, s4 height, then per
// view u1 1, a Java writeUTF name, u1 visible, s4 left, s4 top, s4 length
// and the PNG; u1 2 ends it. PNG lengths are checked against the bytes
// present (a claim past the end is a cut); a stream cut inside a record
// keeps the records before it.
func DecodeLayers(data []byte) (*Layers, error) {
	r := wire.NewReader(data, 0)
	l := &Layers{Width: r.S4("width"), Height: r.S4("height")}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("capture layers: %w", err)
	}
	if l.Width < 0 || l.Height < 0 {
		return nil, fmt.Errorf("capture layers: window of %dx%d", l.Width, l.Height)
	}
	for {
		if r.Len() == 0 {
			l.Truncated = true
			return l, nil
		}
		switch m := r.U1("marker"); m {
		case layerEnd:
			if r.Len() != 0 {
				return nil, fmt.Errorf("capture layers: %d bytes after the end", r.Len())
			}
			return l, nil
		case layerView:
		default:
			return nil, fmt.Errorf("capture layers: %w", &wire.FormatError{Offset: r.Offset() - 1, What: "marker", Err: fmt.Errorf("%d, want 1 or 2", m)})
		}
		if len(l.Views) >= MaxLayers {
			return nil, fmt.Errorf("capture layers: more than %d views", MaxLayers)
		}
		var v Layer
		v.Name = string(r.Bytes(int(r.U2("name length")), "name"))
		v.Visible = r.U1("visible") != 0
		v.Left, v.Top = r.S4("left"), r.S4("top")
		n := r.S4("png length")
		if r.Err() == nil && n < 0 {
			return nil, fmt.Errorf("capture layers: view %d: PNG of %d bytes", len(l.Views), n)
		}
		if r.Err() == nil && int(n) > r.Len() {
			l.Truncated = true // cut inside the picture: a PNG claims more than is left
			return l, nil
		}
		v.PNG = r.Bytes(int(n), "png")
		if r.Err() != nil {
			l.Truncated = true
			return l, nil
		}
		l.Views = append(l.Views, v)
	}
}

// EncodeLayers writes a capture-layers stream as ViewDebug does (names
// are ASCII class@hash, so writeUTF's modified UTF-8 is plain UTF-8).
func EncodeLayers(l *Layers) []byte {
	w := wire.Writer{}
	w.S4(l.Width)
	w.S4(l.Height)
	for _, v := range l.Views {
		w.U1(layerView)
		w.U2(uint16(len(v.Name)))
		w.B = append(w.B, v.Name...)
		w.Bool(v.Visible)
		w.S4(v.Left)
		w.S4(v.Top)
		w.S4(int32(len(v.PNG)))
		w.B = append(w.B, v.PNG...)
	}
	w.U1(layerEnd)
	return w.B
}
