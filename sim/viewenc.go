package sim

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strconv"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/viewtree"
)

// captureScale shrinks the simulated captures (a real one is at the view's
// size): a quarter of each side.
const captureScale = 4

// dumpLocked answers VURT op 1 as the framework of the VM's API level does:
// the v2 stream when asked for and known (API 23+, or no API set), else
// the text dump (with or without properties; skipChildren: the root only).
func (vm *VM) dumpLocked(w *simWindow, m *ddm.ViewRootRequest) []byte {
	if m.V2 && (vm.spec.API == 0 || vm.spec.API >= viewV2API) {
		e := viewtree.NewEncoder()
		e.Int("window:left", 0)
		e.Int("window:top", 0)
		encodeV2(e, w.root, m.SkipChildren)
		return e.EndStream()
	}
	var tw viewtree.TextWriter
	w.root.walk(func(v *simView, depth int, _, _ int32) {
		if m.SkipChildren && depth > 0 {
			return
		}
		tw.View(depth, v.class, v.hash)
		if m.IncludeProperties {
			textProps(&tw, v)
		}
	}, 0, 0, 0)
	return tw.Bytes()
}

func visName(vis int32) string { return viewtree.Visibility(vis).String() }

func lpName(v int32) string {
	switch v {
	case -1:
		return "MATCH_PARENT"
	case -2:
		return "WRAP_CONTENT"
	}
	return strconv.Itoa(int(v))
}

// encodeV2 writes a view as View/ViewGroup/TextView.encodeProperties do
// (a representative subset of their properties, in their order).
func encodeV2(e *viewtree.Encoder, v *simView, skipChildren bool) {
	e.BeginObject(v.class, v.hash)
	if v.id != "" {
		e.String("id", v.id)
	} else {
		e.Int("id", -1)
	}
	e.Float("misc:transformation.alpha", v.alpha)
	e.Int("layout:left", v.left)
	e.Int("layout:right", v.left+v.width)
	e.Int("layout:top", v.top)
	e.Int("layout:bottom", v.top+v.height)
	e.Int("layout:width", v.width)
	e.Int("layout:height", v.height)
	e.Int("layout:layoutDirection", 0)
	e.Bool("layout:layoutRtl", false)
	e.Int("layout:baseline", -1)
	e.Key("layoutParams")
	e.BeginObject("android.view.ViewGroup$MarginLayoutParams", v.hash^0x5a5a5a)
	e.Int("width", v.lpW)
	e.Int("height", v.lpH)
	e.Int("leftMargin", v.margin)
	e.Int("topMargin", v.margin)
	e.EndObject()
	e.Int("scrolling:scrollX", 0)
	e.Int("scrolling:scrollY", v.scrollY)
	e.Int("padding:paddingLeft", v.pad[0])
	e.Int("padding:paddingRight", v.pad[2])
	e.Int("padding:paddingTop", v.pad[1])
	e.Int("padding:paddingBottom", v.pad[3])
	e.Int("measurement:measuredWidth", v.width)
	e.Int("measurement:measuredHeight", v.height)
	e.Float("drawing:elevation", 0)
	e.Float("drawing:translationX", 0)
	e.Float("drawing:translationY", 0)
	e.Float("drawing:alpha", v.alpha)
	e.Int("drawing:layerType", 0)
	e.Bool("drawing:willNotDraw", len(v.children) > 0)
	e.Int("drawing:invalidations", int32(v.invalid))
	e.Bool("focus:hasFocus", false)
	e.Bool("focus:isFocused", false)
	e.Bool("misc:clickable", v.text == nil && len(v.children) == 0)
	e.Int("misc:visibility", v.vis)
	e.Bool("misc:enabled", v.enabled)
	e.Int("text:textDirection", 0)
	e.String("accessibility:contentDescription", "")
	if v.text != nil {
		e.String("text:text", *v.text)
		e.Float("text:textSize", 42)
		e.Int("text:typefaceStyle", 0)
		e.Int("text:gravity", 8388659)
	}
	if len(v.children) > 0 {
		e.Int("focus:descendantFocusability", 131072)
		e.Bool("drawing:clipChildren", true)
		e.Bool("drawing:clipToPadding", true)
		n := len(v.children)
		if skipChildren {
			n = 0
		}
		e.Short("meta:__childCount__", int16(n))
		for i := 0; i < n; i++ {
			e.Key("meta:__child__" + strconv.Itoa(i))
			encodeV2(e, v.children[i], false)
		}
	}
	e.EndObject()
}

// textProps writes a view's properties as ViewDebug's text dump names them.
func textProps(tw *viewtree.TextWriter, v *simView) {
	id := v.id
	if id == "" {
		id = "NO_ID"
	}
	tw.Prop("mID", id)
	tw.Prop("layout:mLeft", strconv.Itoa(int(v.left)))
	tw.Prop("layout:mTop", strconv.Itoa(int(v.top)))
	tw.Prop("layout:mRight", strconv.Itoa(int(v.left+v.width)))
	tw.Prop("layout:mBottom", strconv.Itoa(int(v.top+v.height)))
	tw.Prop("layout:getWidth()", strconv.Itoa(int(v.width)))
	tw.Prop("layout:getHeight()", strconv.Itoa(int(v.height)))
	tw.Prop("layout:layout_width", lpName(v.lpW))
	tw.Prop("layout:layout_height", lpName(v.lpH))
	tw.Prop("scrolling:mScrollY", strconv.Itoa(int(v.scrollY)))
	tw.Prop("padding:mPaddingLeft", strconv.Itoa(int(v.pad[0])))
	tw.Prop("padding:mPaddingTop", strconv.Itoa(int(v.pad[1])))
	tw.Prop("padding:mPaddingRight", strconv.Itoa(int(v.pad[2])))
	tw.Prop("padding:mPaddingBottom", strconv.Itoa(int(v.pad[3])))
	tw.Prop("drawing:getAlpha()", strconv.FormatFloat(float64(v.alpha), 'f', -1, 32))
	tw.Prop("getVisibility()", visName(v.vis))
	tw.Prop("isEnabled()", strconv.FormatBool(v.enabled))
	tw.Prop("accessibility:getContentDescription()", "null")
	if v.text != nil {
		tw.Prop("text:mText", *v.text)
	}
}

// captureLayersLocked answers VURT op 2: every view's picture, children
// after their parent, positions in the window.
func (vm *VM) captureLayersLocked(w *simWindow) []byte {
	l := &viewtree.Layers{Width: w.root.width, Height: w.root.height}
	w.root.walk(func(v *simView, _ int, x, y int32) {
		if v.vis == int32(viewtree.Gone) {
			return
		}
		l.Views = append(l.Views, viewtree.Layer{Name: fmt.Sprintf("%s@%x", v.class, v.hash),
			Visible: v.vis == 0, Left: x, Top: y, PNG: capturePNGSize(v, max(1, v.width/16), max(1, v.height/16))})
	}, 0, w.root.left, w.root.top)
	return viewtree.EncodeLayers(l)
}

// capturePNG is a view's picture (VUOP op 1): its fill and its visible
// descendants' boxes, at a quarter of its size (1×1 when it has none).
func (vm *VM) capturePNG(v *simView) []byte {
	return capturePNGSize(v, max(1, v.width/captureScale), max(1, v.height/captureScale))
}

func capturePNGSize(v *simView, w, h int32) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, int(w), int(h)))
	if v.width > 0 && v.height > 0 {
		sx, sy := float64(w)/float64(v.width), float64(h)/float64(v.height)
		v.walk(func(c *simView, _ int, x, y int32) {
			if c.vis != 0 {
				return
			}
			r, g, b := hashColor(c.class)
			if c.text != nil {
				r, g, b = r/2, g/2, b/2
			}
			col := color.NRGBA{r, g, b, uint8(255 * c.alpha)}
			x0, y0 := int(float64(x)*sx), int(float64(y)*sy)
			x1, y1 := int(float64(x+c.width)*sx), int(float64(y+c.height)*sy)
			for py := max(y0, 0); py < min(y1, int(h)); py++ {
				for px := max(x0, 0); px < min(x1, int(w)); px++ {
					img.SetNRGBA(px, py, col)
				}
			}
		}, 0, 0, 0)
	}
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	_ = enc.Encode(&b, img)
	return b.Bytes()
}
