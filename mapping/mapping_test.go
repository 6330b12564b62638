package mapping

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// proguardMap is a ProGuard 6 style mapping: ranges, overloads that share
// an obfuscated name, fields, a subclass.
const proguardMap = `# a comment before the first class
com.example.app.Main -> a.a:
    java.lang.String greeting -> a
    int counter -> b
    1:1:void main(java.lang.String[]):10:10 -> main
    2:4:void work(int):20:22 -> a
    5:5:void work(java.lang.String):30:30 -> a
    void noLines() -> c
com.example.app.Main$Inner -> a.b:
    com.example.app.Main outer -> a
    1:3:int compute(int,long[]):7:9 -> a
com.example.app.Child -> a.c:
    int ownField -> c
`

func mustParse(t *testing.T, s string) *Mapping {
	t.Helper()
	m, err := Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestClassForms(t *testing.T) {
	m := mustParse(t, proguardMap)
	for in, want := range map[string]string{
		"a.a":         "com.example.app.Main",
		"a.b":         "com.example.app.Main$Inner",
		"a.a[]":       "com.example.app.Main[]",
		"a.b[][]":     "com.example.app.Main$Inner[][]",
		"La/a;":       "Lcom/example/app/Main;",
		"[La/b;":      "[Lcom/example/app/Main$Inner;",
		"[[La/a;":     "[[Lcom/example/app/Main;",
		"a/a":         "com/example/app/Main",
		"a.z":         "a.z",
		"[I":          "[I",
		"java.lang.X": "java.lang.X",
	} {
		if got := m.Type(in); got != want {
			t.Errorf("Type(%q) = %q, want %q", in, got, want)
		}
	}
	if _, ok := m.Class("a.z"); ok {
		t.Error("unknown class reported known")
	}
	if got := m.Signature("(La/a;[La/b;I)La/c;"); got != "(Lcom/example/app/Main;[Lcom/example/app/Main$Inner;I)Lcom/example/app/Child;" {
		t.Errorf("Signature = %q", got)
	}
	if o, ok := m.Obfuscated("com.example.app.Main$Inner"); !ok || o != "a.b" {
		t.Errorf("Obfuscated = %q %v", o, ok)
	}
}

func TestFieldWalksSuperclasses(t *testing.T) {
	m := mustParse(t, proguardMap)
	// a.c's superclass is a.a: its field b is Main.counter.
	f, ok := m.Field([]string{"a.c", "a.a"}, "b")
	if !ok || f != (Field{Class: "com.example.app.Main", Name: "counter", Type: "int"}) {
		t.Errorf("Field = %+v %v", f, ok)
	}
	f, ok = m.Field([]string{"a.c", "a.a"}, "c")
	if !ok || f.Name != "ownField" || f.Class != "com.example.app.Child" {
		t.Errorf("own field = %+v %v", f, ok)
	}
	if _, ok := m.Field([]string{"a.c"}, "zz"); ok {
		t.Error("unknown field found")
	}
	// A method named like a field is not a field.
	if f, ok := m.Field([]string{"a.a"}, "main"); ok {
		t.Errorf("method found as field: %+v", f)
	}
}

func TestMethodsBySignature(t *testing.T) {
	m := mustParse(t, proguardMap)
	all := m.Methods("a.a", "a", "")
	if len(all) != 2 {
		t.Fatalf("Methods = %+v", all)
	}
	one := m.Methods("a.a", "a", "(Ljava/lang/String;)V")
	if len(one) != 1 || one[0].Params[0] != "java.lang.String" || one[0].Descriptor() != "(Ljava/lang/String;)V" {
		t.Errorf("by signature = %+v", one)
	}
	inner := m.Methods("a.b", "a", "(I[J)I")
	if len(inner) != 1 || inner[0].Java() != "com.example.app.Main$Inner.compute(int,long[])" {
		t.Errorf("inner = %+v", inner)
	}
}

func frameStrings(r Retraced) [][]string {
	var out [][]string
	for _, c := range r.Candidates {
		var ch []string
		for _, f := range c {
			ch = append(ch, f.Class+"."+f.Name+"("+f.File+":"+itoa(f.Line)+")")
		}
		out = append(out, ch)
	}
	return out
}

func itoa(n int) string {
	if n == NoLine {
		return "-"
	}
	return strconv.Itoa(n)
}

func TestFrameRangesChooseOverload(t *testing.T) {
	m := mustParse(t, proguardMap)
	cases := []struct {
		f    StackFrame
		want [][]string
		amb  bool
	}{
		{StackFrame{"a.a", "a", 3, ""}, [][]string{{"com.example.app.Main.work(Main.java:21)"}}, false},
		{StackFrame{"a.a", "a", 5, ""}, [][]string{{"com.example.app.Main.work(Main.java:30)"}}, false},
		// Two overloads and no line: both, marked ambiguous.
		{StackFrame{"a.a", "a", NoLine, ""}, [][]string{{"com.example.app.Main.work(Main.java:-)"}, {"com.example.app.Main.work(Main.java:-)"}}, true},
		{StackFrame{"a.a", "main", 1, ""}, [][]string{{"com.example.app.Main.main(Main.java:10)"}}, false},
		{StackFrame{"a.a", "c", 42, ""}, [][]string{{"com.example.app.Main.noLines(Main.java:42)"}}, false},
		{StackFrame{"a.b", "a", 2, ""}, [][]string{{"com.example.app.Main$Inner.compute(Main.java:8)"}}, false},
		// Unknown method of a known class: the class is retraced, the name kept.
		{StackFrame{"a.b", "zz", 2, ""}, [][]string{{"com.example.app.Main$Inner.zz(Main.java:2)"}}, false},
		{StackFrame{"x.y", "z", 2, ""}, [][]string{{"x.y.z(:2)"}}, false},
	}
	for _, c := range cases {
		r := m.Frame(c.f)
		if got := frameStrings(r); !reflect.DeepEqual(got, c.want) || r.Ambiguous != c.amb {
			t.Errorf("%+v: got %v ambiguous %v, want %v %v", c.f, got, r.Ambiguous, c.want, c.amb)
		}
	}
}

func TestAmbiguousOverloadsWithoutRanges(t *testing.T) {
	m := mustParse(t, `com.example.A -> a:
    void run(int) -> a
    void run(java.lang.String) -> a
    void other() -> b
`)
	r := m.Frame(StackFrame{"a", "a", 7, ""})
	if !r.Ambiguous || len(r.Candidates) != 2 {
		t.Fatalf("want two candidates: %+v", r)
	}
	if r.Candidates[0][0].Params[0] != "int" || r.Candidates[1][0].Params[0] != "java.lang.String" {
		t.Errorf("candidates: %+v", r.Candidates)
	}
	if r.Candidates[0][0].Line != 7 {
		t.Errorf("ProGuard without ranges keeps the line: %d", r.Candidates[0][0].Line)
	}
}

func TestHeaderAndSkips(t *testing.T) {
	long := "    " + strings.Repeat("x", MaxLine+10) + " -> a"
	m := mustParse(t, `# compiler: R8
# compiler_version: 8.2.42
# min_api: 24
# pg_map_id: 5b46fdc
# pg_map_hash: SHA-256 5b46fdc1c3bd
# {"id":"com.android.tools.r8.mapping","version":"2.2"}
com.example.A -> a:
    this is not a member line
    1:x:void bad() -> b
`+long+`
    void ok() -> c
orphan line without arrow
com.example.B -> b:
# {"id":"com.example.unknown","what":1}
    int f -> a
`)
	if m.Header != (Header{Compiler: "R8", CompilerVersion: "8.2.42", MapID: "5b46fdc", MapHash: "SHA-256 5b46fdc1c3bd", Version: "2.2"}) {
		t.Errorf("header = %+v", m.Header)
	}
	if m.Skipped != 4 || m.FirstSkip == nil || m.FirstSkip.Line != 8 {
		t.Errorf("skipped %d first %v", m.Skipped, m.FirstSkip)
	}
	if m.Classes() != 2 || m.Members() != 2 {
		t.Errorf("classes %d members %d", m.Classes(), m.Members())
	}
	if !strings.Contains(m.Summary(), "4 malformed lines skipped (first: line 8:") {
		t.Errorf("summary = %q", m.Summary())
	}
	// The member after the orphan belongs to no class: b's field still maps.
	if f, ok := m.Field([]string{"b"}, "a"); !ok || f.Name != "f" {
		t.Errorf("field after unknown metadata: %+v %v", f, ok)
	}
}

func TestNotAMapping(t *testing.T) {
	for _, in := range []string{"", "hello\nworld\n", "    int a -> b\n", "\x00\xff -> :"} {
		_, err := Parse([]byte(in))
		if !errors.Is(err, ErrNotMapping) {
			t.Errorf("%q: err = %v", in, err)
		}
	}
	_, err := Parse([]byte("hello\n"))
	var le *LineError
	if !errors.As(err, &le) || le.Line != 1 {
		t.Errorf("want the first bad line in the error: %v", err)
	}
}

func TestCoverage(t *testing.T) {
	m := mustParse(t, proguardMap)
	c := m.Coverage([]string{"a.a", "a.b[]", "a.a", "[La/b;", "java.lang.String", "int[]", "[I", "[[J", "q.r", "q.s", "q.t", "q.u", "q.v", "q.w", "q.x"})
	if c.Seen != 9 || c.Known != 2 || !c.Suspicious() {
		t.Errorf("coverage = %+v", c)
	}
	if got := c.String(); got != "mapping: 2 of 9 classes known — wrong build?" {
		t.Errorf("String = %q", got)
	}
	if c := m.Coverage([]string{"a.a", "a.b"}); c.Suspicious() || c.String() != "mapping: 2 of 2 classes known" {
		t.Errorf("good coverage = %v", c)
	}
}
