package viewtree

import (
	"errors"
	"testing"
)

// textVector is ViewDebug.dump's output for a frame with a text view whose
// text holds a newline (escaped, its length counted after escaping), a
// null content description, and a non-ASCII text (é is one UTF-16 unit,
// 😀 two).
const textVector = "com.android.internal.policy.DecorView@68f0cbc mID=5,NO_ID layout:mLeft=1,0 layout:mTop=1,0 layout:getWidth()=4,1080 layout:getHeight()=4,2400 getVisibility()=7,VISIBLE drawing:getAlpha()=3,1.0 \n" +
	" android.widget.TextView@1f mID=8,id/title layout:mLeft=2,32 layout:mTop=2,48 layout:mRight=3,232 layout:mBottom=3,108 getVisibility()=4,GONE drawing:getAlpha()=3,0.5 padding:mPaddingLeft=1,8 text:mText=9,Hi\\nthere accessibility:getContentDescription()=4,null \n" +
	" android.widget.Button@2a mID=6,id/ok  text:mText=6,Ok é😀 layout:mLeft=1,5 \n" +
	"DONE.\n"

func TestDecodeTextVector(t *testing.T) {
	tr, err := DecodeText([]byte(textVector))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Truncated || len(tr.Nodes) != 3 || tr.Format != FormatText {
		t.Fatalf("truncated %v, %d nodes", tr.Truncated, len(tr.Nodes))
	}
	root, tv, b := tr.Nodes[0], tr.Nodes[1], tr.Nodes[2]
	if root.Name() != "com.android.internal.policy.DecorView@68f0cbc" || root.ID != "" || root.Width != 1080 || root.Height != 2400 || root.HasText {
		t.Errorf("root %+v", root)
	}
	if tv.ID != "id/title" || tv.Left != 32 || tv.Width != 200 || tv.Height != 60 || tv.Visibility != Gone ||
		tv.Alpha != 0.5 || tv.Padding[0] != 8 || tv.Text != "Hi\nthere" || tv.Parent != 0 {
		t.Errorf("text view %+v", tv)
	}
	if b.Text != "Ok é😀" || b.Parent != 0 || b.Left != 5 {
		t.Errorf("button %+v", b)
	}
	props := tr.Properties(1)
	last := props[len(props)-1]
	if tr.Name(last) != "accessibility:getContentDescription()" || tr.Value(last) != "null" || Category(tr.Name(last)) != "accessibility" {
		t.Errorf("null property %+v %q", last, tr.Value(last))
	}
	if got := tr.Children(0); len(got) != 2 {
		t.Errorf("children %v", got)
	}
}

func TestTextWriterWritesVector(t *testing.T) {
	var w TextWriter
	w.View(0, "a.V", 1)
	w.Prop("mID", "NO_ID")
	w.Prop("text:mText", "x\ny 😀")
	w.View(1, "a.W", 0xab)
	w.Prop("mID", "null")
	want := "a.V@1 mID=5,NO_ID text:mText=7,x\\ny 😀 \n a.W@ab mID=4,null \nDONE.\n"
	if got := string(w.Bytes()); got != want {
		t.Fatalf("%q\nwant %q", got, want)
	}
	tr, err := DecodeText([]byte(want))
	if err != nil || tr.Nodes[0].Text != "x\ny 😀" || tr.Nodes[1].ID != "" {
		t.Fatalf("%v %+v", err, tr)
	}
}

func TestDecodeTextNoProperties(t *testing.T) {
	tr, err := DecodeText([]byte("a.V@1\n b.W@2\n  c.X@3\n b.Y@4\nDONE.\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Nodes) != 4 || tr.Nodes[3].Parent != 0 || tr.Nodes[2].Parent != 1 {
		t.Fatalf("%+v", tr.Nodes)
	}
	if tr.Subtree(1) != 3 || tr.Find("c.X@3") != 2 || tr.Find("@4") != 3 || tr.Find("c.X@4") != -1 {
		t.Fatal("Subtree/Find")
	}
}

func TestDecodeTextCutShort(t *testing.T) {
	tr, err := DecodeText([]byte(textVector[:len(textVector)-6]))
	if err != nil || !tr.Truncated || len(tr.Nodes) != 3 {
		t.Fatalf("%v %+v", err, tr)
	}
}

func TestDecodeTextRejects(t *testing.T) {
	for name, in := range map[string]string{
		"depth jump":     "a.V@1\n  b.W@2\nDONE.\n",
		"no hash":        "a.V mID=1,x\nDONE.\n",
		"long value":     "a.V@1 mID=50,x \nDONE.\n",
		"short value":    "a.V@1 mID=1,xyz \nDONE.\n",
		"bad length":     "a.V@1 mID=-3,x \nDONE.\n",
		"no equals":      "a.V@1 mID \nDONE.\n",
		"empty":          "DONE.\n",
		"not a dump":     "hello",
		"huge length":    "a.V@1 mID=99999999999999,x \nDONE.\n",
		"depth at start": " a.V@1\nDONE.\n",
	} {
		if tr, err := DecodeText([]byte(in)); err == nil {
			t.Errorf("%s: accepted %+v", name, tr.Nodes)
		}
	}
	deep := ""
	for i := 0; i <= MaxDepth; i++ {
		for j := 0; j < i; j++ {
			deep += " "
		}
		deep += "a.V@1\n"
	}
	if _, err := DecodeText([]byte(deep)); !errors.Is(err, ErrTooDeep) {
		t.Errorf("deep: %v", err)
	}
}

// Find takes the simple class name the views pane shows when one view
// fits it (issue 38 #15: `views --capture TextView@ff4018a` failed).
func TestFindBySimpleClassName(t *testing.T) {
	tr, err := DecodeText([]byte("android.widget.FrameLayout@1\n android.widget.TextView@ff4018a\n com.example.TextView@77\n android.widget.TextView@77\nDONE.\n"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{
		"TextView@ff4018a":                1,
		"android.widget.TextView@ff4018a": 1,
		"TextView@77":                     -1, // two views fit: say none rather than pick one
		"com.example.TextView@77":         2,
		"android.widget.TextView@77":      3,
		"@77":                             2,
		"FrameLayout@1":                   0,
		"Layout@1":                        -1,
		"widget.TextView@ff4018a":         -1,
	} {
		if got := tr.Find(name); got != want {
			t.Errorf("Find(%q) = %d, want %d", name, got, want)
		}
	}
}
