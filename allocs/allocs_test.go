package allocs

import (
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/ddm"
)

func hx(parts ...string) []byte {
	b, err := hex.DecodeString(strings.NewReplacer(" ", "", "\n", "").Replace(strings.Join(parts, "")))
	if err != nil {
		panic(err)
	}
	return b
}

// specExample is the 140-byte REAL reply of spec/ddm-chunks.md §7.7: a
// 24-byte java.lang.String allocated in thread 1 at
// com.example.Foo.bar(Foo.java:42).
var specExample = hx(
	"0F 09 08  00 01  00 00 00 20  00 02 00 01 00 01",
	"00 00 00 18  00 01  00 01  01",
	"00 00  00 00  00 00  00 2A",
	"00 00 00 11  00 4C 00 63 00 6F 00 6D 00 2F 00 65 00 78 00 61 00 6D 00 70 00 6C 00 65 00 2F 00 46 00 6F 00 6F 00 3B",
	"00 00 00 12  00 4C 00 6A 00 61 00 76 00 61 00 2F 00 6C 00 61 00 6E 00 67 00 2F 00 53 00 74 00 72 00 69 00 6E 00 67 00 3B",
	"00 00 00 03  00 62 00 61 00 72",
	"00 00 00 08  00 46 00 6F 00 6F 00 2E 00 6A 00 61 00 76 00 61",
)

func TestSpecExample(t *testing.T) {
	if len(specExample) != 140 {
		t.Fatalf("example is %d bytes, the spec says 140", len(specExample))
	}
	a, err := ddm.DecodeAllocations(specExample)
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range []Order{NewestFirst, OldestFirst} {
		tab := New(a, order)
		want := []Entry{{Index: 1, Size: 24, Class: "java.lang.String", ThreadID: 1,
			Frames: []Frame{{Class: "com.example.Foo", Method: "bar", File: "Foo.java", Line: 42}}}}
		if !reflect.DeepEqual(tab.Entries, want) {
			t.Fatalf("%v: entries\n %#v\nwant\n %#v", order, tab.Entries, want)
		}
		if tab.Bytes != 24 || tab.Site(0) != "com.example.Foo.bar(Foo.java:42)" || tab.Stacks() != 1 {
			t.Fatalf("bytes %d site %q stacks %d", tab.Bytes, tab.Site(0), tab.Stacks())
		}
		js, err := json.Marshal(tab.Entries[0])
		if err != nil {
			t.Fatal(err)
		}
		const wantJSON = `{"index":1,"size":24,"class":"java.lang.String","thread_id":1,"frames":[{"class":"com.example.Foo","method":"bar","file":"Foo.java","line":42}]}`
		if string(js) != wantJSON {
			t.Fatalf("JSON %s\nwant %s", js, wantJSON)
		}
		g := tab.Groups(ByClass, tab.Filter(""))
		if len(g) != 1 || g[0].Key != "java.lang.String" || g[0].Count != 1 || g[0].Bytes != 24 || g[0].Mean() != 24 ||
			g[0].Site != "com.example.Foo.bar(Foo.java:42)" {
			t.Fatalf("groups %+v", g)
		}
	}
}

func TestOrderOf(t *testing.T) {
	for _, c := range []struct {
		f    ddm.VMFamily
		name string
		want Order
	}{
		{ddm.FamilyART, "art", NewestFirst},
		{ddm.FamilyDalvik, "dalvik", OldestFirst},
		{ddm.FamilyUnknown, "", NewestFirst},
		{ddm.FamilyUnknown, "jvm", NewestFirst},
	} {
		if got := OrderOf(c.f); got != c.want {
			t.Errorf("OrderOf(%v) = %v", c.f, got)
		}
		if got := OrderOfFamily(c.name); got != c.want {
			t.Errorf("OrderOfFamily(%q) = %v", c.name, got)
		}
	}
}

var (
	fooBar   = ddm.AllocFrame{Class: "Lcom/example/Foo;", Method: "bar", File: "Foo.java", Line: 42}
	mainRun  = ddm.AllocFrame{Class: "Lcom/example/Main;", Method: "run", File: "Main.java", Line: 7}
	otherGo  = ddm.AllocFrame{Class: "Lcom/example/Other;", Method: "go", File: "Other.java", Line: 3}
	bufGrow  = ddm.AllocFrame{Class: "Lcom/example/Buf;", Method: "grow", File: "Buf.java", Line: 10}
	siteFoo  = "com.example.Foo.bar(Foo.java:42)"
	siteBuf  = "com.example.Buf.grow(Buf.java:10)"
	stackFM  = siteFoo + "\ncom.example.Main.run(Main.java:7)"
	stackFO  = siteFoo + "\ncom.example.Other.go(Other.java:3)"
	frameFoo = Frame{Class: "com.example.Foo", Method: "bar", File: "Foo.java", Line: 42}
)

// sample is six allocations in wire order.
func sample() *ddm.Allocations {
	return &ddm.Allocations{Entries: []ddm.Allocation{
		{Size: 24, ThreadID: 1, Class: "Ljava/lang/String;", Frames: []ddm.AllocFrame{fooBar, mainRun}},
		{Size: 100, ThreadID: 2, Class: "[B", Frames: []ddm.AllocFrame{bufGrow}},
		{Size: 40, ThreadID: 1, Class: "Ljava/lang/String;", Frames: []ddm.AllocFrame{fooBar, otherGo}},
		{Size: 16, ThreadID: 2, Class: "[I"},
		{Size: 24, ThreadID: 2, Class: "Ljava/lang/String;", Frames: []ddm.AllocFrame{fooBar, mainRun}},
		{Size: 300, ThreadID: 1, Class: "[B", Frames: []ddm.AllocFrame{bufGrow}},
	}}
}

func TestNewNumbersByOrder(t *testing.T) {
	for _, c := range []struct {
		order Order
		want  []int
	}{
		{NewestFirst, []int{6, 5, 4, 3, 2, 1}}, // ddmlib: count − i
		{OldestFirst, []int{1, 2, 3, 4, 5, 6}},
	} {
		tab := New(sample(), c.order)
		var got []int
		for _, e := range tab.Entries {
			got = append(got, e.Index)
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: indices %v, want %v", c.order, got, c.want)
		}
	}
	tab := New(sample(), NewestFirst)
	if tab.Bytes != 504 || tab.Len() != 6 || tab.Stacks() != 4 {
		t.Fatalf("bytes %d len %d stacks %d", tab.Bytes, tab.Len(), tab.Stacks())
	}
	// Equal stacks share their frames; classes are in Java form.
	if &tab.Entries[0].Frames[0] != &tab.Entries[4].Frames[0] {
		t.Error("equal stacks are not shared")
	}
	if got := []string{tab.Entries[1].Class, tab.Entries[3].Class, tab.Entries[0].Frames[1].Class}; !reflect.DeepEqual(got, []string{"byte[]", "int[]", "com.example.Main"}) {
		t.Errorf("class names %q", got)
	}
	if tab.Entries[3].Frames != nil || tab.Site(3) != NoSite {
		t.Errorf("entry without frames: %v %q", tab.Entries[3].Frames, tab.Site(3))
	}
	if empty := New(nil, NewestFirst); empty.Len() != 0 || len(empty.Filter("")) != 0 || empty.Groups(ByClass, nil) != nil {
		t.Error("nil allocations do not give an empty table")
	}
}

// row is the comparable part of a group.
type row struct {
	Key         string
	Count       int
	Bytes       uint64
	Mean        float64
	Class, Site string
	Newest      int
	Entries     []int
}

func rows(gs []Group) []row {
	out := make([]row, len(gs))
	for i, g := range gs {
		out[i] = row{g.Key, g.Count, g.Bytes, g.Mean(), g.Class, g.Site, g.Newest, g.Entries}
	}
	return out
}

func TestGroups(t *testing.T) {
	art := New(sample(), NewestFirst)
	all := art.Filter("")
	str := row{"java.lang.String", 3, 88, 88.0 / 3, "java.lang.String", siteFoo, 6, []int{0, 2, 4}}
	byt := row{"byte[]", 2, 400, 200, "byte[]", siteBuf, 5, []int{1, 5}}
	ints := row{"int[]", 1, 16, 16, "int[]", NoSite, 3, []int{3}}
	cases := []struct {
		name string
		by   GroupBy
		want []row
	}{
		{"class", ByClass, []row{str, byt, ints}},
		{"site", BySite, []row{
			{siteFoo, 3, 88, 88.0 / 3, "java.lang.String", siteFoo, 6, []int{0, 2, 4}},
			{siteBuf, 2, 400, 200, "byte[]", siteBuf, 5, []int{1, 5}},
			{NoSite, 1, 16, 16, "int[]", NoSite, 3, []int{3}},
		}},
		{"stack: count ties broken by bytes", ByStack, []row{
			{siteBuf, 2, 400, 200, "byte[]", siteBuf, 5, []int{1, 5}},
			{stackFM, 2, 48, 24, "java.lang.String", siteFoo, 6, []int{0, 4}},
			{stackFO, 1, 40, 40, "java.lang.String", siteFoo, 4, []int{2}},
			{NoSite, 1, 16, 16, "int[]", NoSite, 3, []int{3}},
		}},
		{"thread", ByThread, []row{
			// tid 1: String 24, String 40, byte[] 300; the class tie goes to the first name.
			{"1", 3, 364, 364.0 / 3, "java.lang.String", siteFoo, 6, []int{0, 2, 5}},
			{"2", 3, 140, 140.0 / 3, "byte[]", NoSite, 5, []int{1, 3, 4}},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := rows(art.Groups(c.by, all))
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got\n %+v\nwant\n %+v", got, c.want)
			}
		})
	}
	if g := art.Groups(Flat, all); g != nil {
		t.Errorf("flat grouping gave %d groups", len(g))
	}
	site := art.Groups(BySite, all)
	if !reflect.DeepEqual(site[0].Frames, []Frame{frameFoo}) || site[2].Frames != nil {
		t.Errorf("site frames %v / %v", site[0].Frames, site[2].Frames)
	}
	stack := art.Groups(ByStack, all)
	if len(stack[1].Frames) != 2 || stack[1].Frames[1].Method != "run" {
		t.Errorf("stack frames %v", stack[1].Frames)
	}
	if th := art.Groups(ByThread, all); th[0].ThreadID != 1 || th[1].ThreadID != 2 {
		t.Errorf("thread ids %d %d", th[0].ThreadID, th[1].ThreadID)
	}
	// Groups of a filtered set count only its entries.
	if got := rows(art.Groups(ByClass, art.Filter("tid=2"))); !reflect.DeepEqual(got, []row{
		// One each: ties go to the larger total.
		{"byte[]", 1, 100, 100, "byte[]", siteBuf, 5, []int{1}},
		{"java.lang.String", 1, 24, 24, "java.lang.String", siteFoo, 2, []int{4}},
		{"int[]", 1, 16, 16, "int[]", NoSite, 3, []int{3}},
	}) {
		t.Errorf("filtered groups %+v", got)
	}
}

func keys(gs []Group) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.Key
	}
	return out
}

func TestSortGroups(t *testing.T) {
	cases := []struct {
		order   Order
		by      GroupBy
		key     SortKey
		reverse bool
		want    []string
	}{
		{NewestFirst, ByClass, SortCount, false, []string{"java.lang.String", "byte[]", "int[]"}},
		{NewestFirst, ByClass, SortCount, true, []string{"int[]", "byte[]", "java.lang.String"}},
		{NewestFirst, ByClass, SortBytes, false, []string{"byte[]", "java.lang.String", "int[]"}},
		{NewestFirst, ByClass, SortMean, false, []string{"byte[]", "java.lang.String", "int[]"}},
		{NewestFirst, ByClass, SortName, false, []string{"byte[]", "int[]", "java.lang.String"}},
		{NewestFirst, ByClass, SortName, true, []string{"java.lang.String", "int[]", "byte[]"}},
		{NewestFirst, ByClass, SortSite, false, []string{"int[]", "byte[]", "java.lang.String"}}, // "(no stack)" < "com.example.Buf…" < "com.example.Foo…"
		{NewestFirst, ByClass, SortOrder, false, []string{"java.lang.String", "byte[]", "int[]"}},
		{OldestFirst, ByClass, SortOrder, false, []string{"byte[]", "java.lang.String", "int[]"}},
		{NewestFirst, BySite, SortBytes, false, []string{siteBuf, siteFoo, NoSite}},
		{NewestFirst, BySite, SortName, false, []string{NoSite, siteBuf, siteFoo}},
		{NewestFirst, ByStack, SortMean, false, []string{siteBuf, stackFO, stackFM, NoSite}},
		{NewestFirst, ByThread, SortBytes, true, []string{"2", "1"}},
	}
	for _, c := range cases {
		tab := New(sample(), c.order)
		gs := tab.Groups(c.by, tab.Filter(""))
		SortGroups(gs, c.key, c.reverse)
		if got := keys(gs); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v %v by %v reverse %v: %q, want %q", c.order, c.by, c.key, c.reverse, got, c.want)
		}
	}
	// Thread ids sort by number, not as text.
	tab := New(&ddm.Allocations{Entries: []ddm.Allocation{
		{Size: 1, ThreadID: 10, Class: "LA;"}, {Size: 1, ThreadID: 9, Class: "LA;"}, {Size: 1, ThreadID: 100, Class: "LA;"},
	}}, NewestFirst)
	gs := tab.Groups(ByThread, tab.Filter(""))
	SortGroups(gs, SortName, false)
	if got := keys(gs); !reflect.DeepEqual(got, []string{"9", "10", "100"}) {
		t.Errorf("threads by name: %q", got)
	}
}

func TestSortEntries(t *testing.T) {
	cases := []struct {
		order   Order
		key     SortKey
		reverse bool
		want    []int
	}{
		{NewestFirst, SortOrder, false, []int{0, 1, 2, 3, 4, 5}},
		{NewestFirst, SortOrder, true, []int{5, 4, 3, 2, 1, 0}},
		{OldestFirst, SortOrder, false, []int{5, 4, 3, 2, 1, 0}},
		{NewestFirst, SortCount, false, []int{0, 1, 2, 3, 4, 5}},
		{NewestFirst, SortBytes, false, []int{5, 1, 2, 0, 4, 3}},
		{OldestFirst, SortBytes, false, []int{5, 1, 2, 4, 0, 3}}, // the 24-byte tie goes to the newest
		{NewestFirst, SortMean, false, []int{5, 1, 2, 0, 4, 3}},
		{NewestFirst, SortName, false, []int{1, 5, 3, 0, 2, 4}},
		{NewestFirst, SortSite, false, []int{3, 1, 5, 0, 2, 4}},
	}
	for _, c := range cases {
		tab := New(sample(), c.order)
		got := tab.Filter("")
		tab.SortEntries(got, c.key, c.reverse)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v by %v reverse %v: %v, want %v", c.order, c.key, c.reverse, got, c.want)
		}
	}
}

func TestFilter(t *testing.T) {
	tab := New(sample(), NewestFirst)
	for _, c := range []struct {
		filter string
		want   []int
	}{
		{"", []int{0, 1, 2, 3, 4, 5}},
		{"foo", []int{0, 2, 4}},             // frame class, any case
		{"!foo", []int{1, 3, 5}},            // inverted
		{"BYTE", []int{1, 5}},               // allocated class in Java form
		{"[b", nil},                         // not the descriptor
		{"Main.java", []int{0, 4}},          // file
		{"Other.go", []int{2}},              // class.method
		{"example.Foo.bar", []int{0, 2, 4}}, // qualified method
		{"tid=2", []int{1, 3, 4}},           // thread
		{"!", []int{0, 1, 2, 3, 4, 5}},      // inverting nothing keeps everything
		{"zzz", nil},
		{"!zzz", []int{0, 1, 2, 3, 4, 5}},
	} {
		got := tab.Filter(c.filter)
		if len(got) == 0 {
			got = nil
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("Filter(%q) = %v, want %v", c.filter, got, c.want)
		}
	}
	if n, b := tab.Sum(tab.Filter("foo")); n != 3 || b != 88 {
		t.Errorf("Sum = %d, %d", n, b)
	}
}

func TestStacksOf(t *testing.T) {
	tab := New(sample(), NewestFirst)
	got := tab.StacksOf([]int{0, 2, 4})
	if len(got) != 2 || got[0].Count != 2 || got[0].Bytes != 48 || got[0].Newest != 6 || len(got[0].Frames) != 2 ||
		got[1].Count != 1 || got[1].Bytes != 40 || got[1].Newest != 4 || got[1].Frames[1].Method != "go" {
		t.Fatalf("stacks %+v", got)
	}
	if s := tab.StacksOf([]int{3}); len(s) != 1 || s[0].Frames != nil || s[0].Count != 1 {
		t.Fatalf("no-frame stack %+v", s)
	}
}

func TestFrameString(t *testing.T) {
	for _, c := range []struct {
		f    Frame
		want string
	}{
		{frameFoo, "com.example.Foo.bar(Foo.java:42)"},
		{Frame{Class: "java.lang.Object", Method: "<init>", File: "Object.java", Line: ddm.LineNative}, "java.lang.Object.<init>(Native Method)"},
		{Frame{Class: "A", Method: "m", File: "A.java", Line: ddm.LineUnknown}, "A.m(A.java)"},
		{Frame{Class: "A", Method: "m", Line: 3}, "A.m(Unknown Source)"},
	} {
		if got := c.f.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	for _, g := range Groupings {
		if p, err := ParseGroupBy(strings.ToUpper(g.String())); err != nil || p != g {
			t.Errorf("ParseGroupBy(%v) = %v, %v", g, p, err)
		}
	}
	if _, err := ParseGroupBy("size"); err == nil {
		t.Error("ParseGroupBy accepted size")
	}
	for k := SortCount; k <= SortOrder; k++ {
		if p, err := ParseSortKey(k.String()); err != nil || p != k {
			t.Errorf("ParseSortKey(%v) = %v, %v", k, p, err)
		}
	}
	if _, err := ParseSortKey("x"); err == nil {
		t.Error("ParseSortKey accepted x")
	}
}

// Distinct stacks whose hashes might collide are still told apart: every
// stack differing in one field is its own stack.
func TestStacksDistinct(t *testing.T) {
	base := ddm.AllocFrame{Class: "LA;", Method: "m", File: "A.java", Line: 1}
	variants := []ddm.AllocFrame{base,
		{Class: "LB;", Method: "m", File: "A.java", Line: 1},
		{Class: "LA;", Method: "n", File: "A.java", Line: 1},
		{Class: "LA;", Method: "m", File: "B.java", Line: 1},
		{Class: "LA;", Method: "m", File: "A.java", Line: 2},
		{Class: "LA;", Method: "m", File: "A.java", Line: 258}, // differs only in the high byte
		{Class: "LA;m", Method: "", File: "A.java", Line: 1},
	}
	var a ddm.Allocations
	for _, v := range variants {
		a.Entries = append(a.Entries, ddm.Allocation{Size: 8, Class: "LA;", Frames: []ddm.AllocFrame{v}})
	}
	a.Entries = append(a.Entries, ddm.Allocation{Size: 8, Class: "LA;", Frames: []ddm.AllocFrame{base, base}})
	tab := New(&a, NewestFirst)
	if tab.Stacks() != len(a.Entries) {
		t.Fatalf("%d stacks for %d distinct ones", tab.Stacks(), len(a.Entries))
	}
}
