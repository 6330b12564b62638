package apply

import (
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/viewtree"
)

const appMapping = `com.example.shop.Cart -> a.a:
# {"id":"sourceFile","fileName":"Cart.kt"}
    1:3:void com.example.shop.Price.round(int):40:42 -> a
    1:3:com.example.shop.Item add(com.example.shop.Item):20 -> a
com.example.shop.Item -> a.b:
`

func parse(t *testing.T) *mapping.Mapping {
	m, err := mapping.Parse([]byte(appMapping))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestAllocations(t *testing.T) {
	m := parse(t)
	a := &ddm.Allocations{Entries: []ddm.Allocation{
		{Size: 24, Class: "[La/b;", Frames: []ddm.AllocFrame{
			{Class: "La/a;", Method: "a", File: "SourceFile", Line: 2},
			{Class: "Ljava/lang/Thread;", Method: "run", File: "Thread.java", Line: ddm.LineNative},
		}},
		{Size: 16, Class: "La/b;", Frames: []ddm.AllocFrame{{Class: "La/a;", Method: "a", File: "SourceFile", Line: 2}}},
	}}
	classes := Allocations(m, a)
	if a.Entries[0].Class != "[Lcom/example/shop/Item;" || a.Entries[1].Class != "Lcom/example/shop/Item;" {
		t.Errorf("classes: %q %q", a.Entries[0].Class, a.Entries[1].Class)
	}
	want := []ddm.AllocFrame{
		{Class: "Lcom/example/shop/Price;", Method: "round", File: "Price.java", Line: 41},
		{Class: "Lcom/example/shop/Cart;", Method: "add", File: "Cart.kt", Line: 20},
		{Class: "Ljava/lang/Thread;", Method: "run", File: "Thread.java", Line: ddm.LineNative},
	}
	if !reflect.DeepEqual(a.Entries[0].Frames, want) {
		t.Errorf("frames:\n%+v\nwant\n%+v", a.Entries[0].Frames, want)
	}
	if !reflect.DeepEqual(a.Entries[1].Frames, want[:2]) {
		t.Errorf("second entry: %+v", a.Entries[1].Frames)
	}
	if c := m.Coverage(classes); c.Known != 2 || c.Seen != 2 {
		t.Errorf("coverage of %v: %+v", classes, c)
	}
	if Allocations(nil, a) != nil {
		t.Error("nil mapping changed something")
	}
}

func TestReaderEndsEarly(t *testing.T) {
	m := parse(t)
	r, stats := Reader(m, strings.NewReader(strings.Repeat("\tat a.a.a(SourceFile:2)\n", 20000)))
	buf := make([]byte, 100)
	if _, err := io.ReadFull(r, buf); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(buf), "\tat com.example.shop.Price.round(Price.java:41)\n") {
		t.Errorf("filtered: %q", buf)
	}
	stats() // must return although the reader stopped early
	r, stats = Reader(m, strings.NewReader("Caused by: a.b: x\n"))
	b, _ := io.ReadAll(r)
	if string(b) != "Caused by: com.example.shop.Item: x\n" || stats().Frames != 0 {
		t.Errorf("%q", b)
	}
}

func TestViewTree(t *testing.T) {
	m := parse(t)
	tr := &viewtree.Tree{Nodes: []viewtree.Node{{Class: "android.widget.FrameLayout"}, {Class: "a.b"}, {Class: "a.zz"}}}
	classes := ViewTree(m, tr)
	if tr.Nodes[0].Class != "android.widget.FrameLayout" || tr.Nodes[1].Class != "com.example.shop.Item" || tr.Nodes[2].Class != "a.zz" {
		t.Errorf("nodes: %+v", tr.Nodes)
	}
	if c := m.Coverage(classes); c.Seen != 2 || c.Known != 1 {
		t.Errorf("coverage: %+v", c)
	}
}

func TestStack(t *testing.T) {
	m := parse(t)
	stack := []ddm.StackFrame{
		{Class: "a.a", Method: "a", File: "SourceFile", Line: 3},
		{Class: "a.a", Method: "a", File: "SourceFile", Line: ddm.LineNative},
		{Class: "java.lang.Thread", Method: "run", File: "Thread.java", Line: 923},
	}
	got := Stack(m, stack)
	want := []ddm.StackFrame{
		{Class: "com.example.shop.Price", Method: "round", File: "Price.java", Line: 42},
		{Class: "com.example.shop.Cart", Method: "add", File: "Cart.kt", Line: 20},
		{Class: "com.example.shop.Cart", Method: "add", File: "Cart.kt", Line: ddm.LineNative},
		{Class: "java.lang.Thread", Method: "run", File: "Thread.java", Line: 923},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%+v\nwant\n%+v", got, want)
	}
	if stack[0].Class != "a.a" {
		t.Error("the input was changed")
	}
	if got := Stack(nil, stack); &got[0] != &stack[0] {
		t.Error("nil mapping copied the stack")
	}
}
