package viewtree

import (
	"strconv"
	"testing"
	"time"
)

// benchProps writes the ~50 properties a framework View, TextView or
// ViewGroup encodes (a representative set, in their order).
func benchProps(e *Encoder, i int, text bool) {
	e.Int("id", int32(-1+i%2*(0x7f0a0000+i)))
	for _, p := range []string{"layout:left", "layout:right", "layout:top", "layout:bottom", "layout:width", "layout:height",
		"layout:layoutDirection", "layout:baseline", "scrolling:scrollX", "scrolling:scrollY", "padding:paddingLeft",
		"padding:paddingRight", "padding:paddingTop", "padding:paddingBottom", "padding:userPaddingRight",
		"padding:userPaddingLeft", "padding:userPaddingBottom", "padding:userPaddingStart", "padding:userPaddingEnd",
		"measurement:minHeight", "measurement:minWidth", "measurement:measuredWidth", "measurement:measuredHeight",
		"drawing:solidColor", "drawing:layerType", "misc:visibility", "misc:scrollBarStyle", "text:textDirection",
		"text:textAlignment", "accessibility:labelFor", "accessibility:importantForAccessibility", "focus:focusable"} {
		e.Int(p, int32(i*7))
	}
	for _, p := range []string{"drawing:elevation", "drawing:translationX", "drawing:translationY", "drawing:rotation",
		"drawing:scaleX", "drawing:scaleY", "drawing:pivotX", "drawing:pivotY", "drawing:alpha", "drawing:transitionAlpha"} {
		e.Float(p, 1)
	}
	for _, p := range []string{"layout:layoutRtl", "drawing:willNotDraw", "focus:hasFocus", "focus:isFocused",
		"misc:clickable", "misc:pressed", "misc:selected", "misc:enabled", "misc:activated"} {
		e.Bool(p, i%3 == 0)
	}
	e.Key("layoutParams")
	e.BeginObject("android.view.ViewGroup$MarginLayoutParams", uint32(i))
	e.Int("width", -1)
	e.Int("height", -2)
	e.Int("leftMargin", 8)
	e.EndObject()
	e.String("accessibility:contentDescription", "")
	if text {
		e.String("text:text", "Item "+strconv.Itoa(i)+" — a line of text")
		e.Float("text:textSize", 42)
	}
}

// BenchTree is a RecyclerView-heavy window of about n views: rows of
// an icon and two text views under a list.
func BenchTree(n int) []byte {
	e := NewEncoder()
	e.Int("window:left", 0)
	e.Int("window:top", 0)
	e.BeginObject("com.android.internal.policy.DecorView", 1)
	benchProps(e, 0, false)
	rows := max(1, (n-2)/4)
	e.Short("meta:__childCount__", 1)
	e.Key("meta:__child__0")
	e.BeginObject("androidx.recyclerview.widget.RecyclerView", 2)
	benchProps(e, 1, false)
	e.Short("meta:__childCount__", int16(min(rows, 32767)))
	for r := 0; r < rows; r++ {
		e.Key("meta:__child__" + strconv.Itoa(r))
		e.BeginObject("android.widget.LinearLayout", uint32(10+r*4))
		benchProps(e, r, false)
		e.Short("meta:__childCount__", 3)
		for k, cls := range []string{"android.widget.ImageView", "android.widget.TextView", "android.widget.TextView"} {
			e.Key("meta:__child__" + strconv.Itoa(k))
			e.BeginObject(cls, uint32(11+r*4+k))
			benchProps(e, r, k > 0)
			e.EndObject()
		}
		e.EndObject()
	}
	e.EndObject()
	e.EndObject()
	return e.EndStream()
}

// The target: a 2,000-view tree parsed in 5 ms or less.
func BenchmarkDecodeV2_2000Views(b *testing.B) {
	data := BenchTree(2000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		t, err := DecodeV2(data)
		if err != nil || t.Count() < 1990 {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}

// reportCPU adds the process's CPU time per op (GC included), which a
// loaded machine does not stretch as it stretches wall time.
func reportCPU(b *testing.B, since time.Duration) {
	if c := processCPU(); c > 0 {
		b.ReportMetric(float64(c-since)/float64(b.N)/1e6, "cpu-ms/op")
	}
}

func BenchmarkDecodeText_2000Views(b *testing.B) {
	t, err := DecodeV2(BenchTree(2000))
	if err != nil {
		b.Fatal(err)
	}
	var w TextWriter
	for i := range t.Nodes {
		w.View(int(t.Nodes[i].Depth), t.Nodes[i].Class, t.Nodes[i].Hash)
		for _, p := range t.Properties(i) {
			w.Prop(t.Name(p), t.Value(p))
		}
	}
	data := w.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		if _, err := DecodeText(data); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu)
}

// Memory per tree is linear: 20,000 views cost about ten times 2,000.
func TestDecodeMemoryLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates a 20,000-view tree")
	}
	per := func(n int) float64 {
		data := BenchTree(n)
		res := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = DecodeV2(data)
			}
		})
		return float64(res.AllocedBytesPerOp()) / float64(n)
	}
	small, big := per(2000), per(20000)
	if big > 1.5*small {
		t.Fatalf("bytes per view: %.0f at 2,000 views, %.0f at 20,000", small, big)
	}
}
