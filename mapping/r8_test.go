package mapping

import (
	"reflect"
	"testing"
)

// The vectors below follow R8's doc/retrace.md (the mapping file format and
// its versioned metadata) and the behaviour it asks of a retracing tool; the
// expected answers are worked out from that text.

func retraceStack(t *testing.T, m *Mapping, thrown string, frames ...StackFrame) [][][]string {
	t.Helper()
	var out [][][]string
	for _, r := range m.Stack(thrown, frames) {
		if r.Dropped {
			out = append(out, nil)
			continue
		}
		out = append(out, frameStrings(r))
	}
	return out
}

func TestR8InlineFrames(t *testing.T) {
	m := mustParse(t, `# compiler: R8
# {"id":"com.android.tools.r8.mapping","version":"2.0"}
com.example.Main -> a:
# {"id":"sourceFile","fileName":"Main.kt"}
    1:3:void com.example.Util.helper(int):10:12 -> b
    1:3:void com.example.Main$Nested.middle():40 -> b
    1:3:void caller():20 -> b
    4:4:void caller():21:21 -> b
com.example.Util -> c:
# {"id":"sourceFile","fileName":"Util.kt"}
`)
	got := frameStrings(m.Frame(StackFrame{"a", "b", 2, ""}))
	want := [][]string{{"com.example.Util.helper(Util.kt:11)", "com.example.Main$Nested.middle(Main.kt:40)", "com.example.Main.caller(Main.kt:20)"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("line 2: %v, want %v", got, want)
	}
	if got := frameStrings(m.Frame(StackFrame{"a", "b", 4, ""})); !reflect.DeepEqual(got, [][]string{{"com.example.Main.caller(Main.kt:21)"}}) {
		t.Errorf("line 4: %v", got)
	}
	// Without a line the frame is the method that carries the name.
	if got := frameStrings(m.Frame(StackFrame{"a", "b", NoLine, ""})); !reflect.DeepEqual(got, [][]string{{"com.example.Main.caller(Main.kt:-)"}}) {
		t.Errorf("no line: %v", got)
	}
	// Methods lists the outer method only, not what was inlined into it.
	if ms := m.Methods("a", "b", ""); len(ms) != 1 || ms[0].Name != "caller" {
		t.Errorf("Methods = %+v", ms)
	}
}

func TestR8AmbiguousRanges(t *testing.T) {
	m := mustParse(t, `com.example.A -> a:
    1:1:void foo():10:10 -> a
    1:1:void bar(int):20:20 -> a
    2:2:void foo():11:11 -> a
`)
	r := m.Frame(StackFrame{"a", "a", 1, ""})
	want := [][]string{{"com.example.A.foo(A.java:10)"}, {"com.example.A.bar(A.java:20)"}}
	if got := frameStrings(r); !r.Ambiguous || !reflect.DeepEqual(got, want) {
		t.Errorf("got %v ambiguous %v", got, r.Ambiguous)
	}
	if r := m.Frame(StackFrame{"a", "a", 2, ""}); r.Ambiguous || frameStrings(r)[0][0] != "com.example.A.foo(A.java:11)" {
		t.Errorf("line 2: %v", frameStrings(r))
	}
}

func TestR8Outline(t *testing.T) {
	m := mustParse(t, `# {"id":"com.android.tools.r8.mapping","version":"2.0"}
outline.Class -> a:
    1:2:int outline():0 -> a
# {"id":"com.android.tools.r8.outline"}
some.Class -> b:
    4:5:int foo.bar.Baz.inner(int):98:99 -> s
    4:5:int outlineCaller(int):24 -> s
    27:27:int outlineCaller(int):0:0 -> s
# {"id":"com.android.tools.r8.outlineCallsite","positions":{"1":4,"2":5},"outline":"La;a()I"}
    30:30:void main():50:50 -> main
`)
	got := retraceStack(t, m, "java.io.IOException",
		StackFrame{"a", "a", 2, ""}, StackFrame{"b", "s", 27, ""}, StackFrame{"b", "main", 30, ""})
	want := [][][]string{
		nil, // the outline's frame is gone
		{{"foo.bar.Baz.inner(Baz.java:99)", "some.Class.outlineCaller(Class.java:24)"}},
		{{"some.Class.main(Class.java:50)"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	got = retraceStack(t, m, "", StackFrame{"a", "a", 1, ""}, StackFrame{"b", "s", 27, ""})
	if want := [][][]string{nil, {{"foo.bar.Baz.inner(Baz.java:98)", "some.Class.outlineCaller(Class.java:24)"}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("position 1: %v", got)
	}
}

func TestR8RewriteFrame(t *testing.T) {
	m := mustParse(t, `# {"id":"com.android.tools.r8.mapping","version":"2.0"}
com.example.Foo -> a:
    1:1:void com.example.Bar.check(java.lang.Object):5:5 -> m
    1:1:void run(java.lang.Object):20 -> m
    # {"id":"com.android.tools.r8.rewriteFrame","conditions":["throws(Ljava/lang/NullPointerException;)"],"actions":["removeInnerFrames(1)"]}
com.example.Oops -> b:
    2:2:void com.example.Bar.check(java.lang.Object):6:6 -> m
    2:2:void run(java.lang.Object):21 -> m
    # { id: 'com.android.tools.r8.rewriteFrame', conditions: ['throws(Lcom/example/MyError;)'], actions: ['removeInnerFrames(1)'] }
com.example.MyError -> c:
`)
	// An NPE thrown by the inlined check is the caller's null receiver.
	got := retraceStack(t, m, "java.lang.NullPointerException", StackFrame{"a", "m", 1, ""})
	if want := [][][]string{{{"com.example.Foo.run(Foo.java:20)"}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("NPE: %v", got)
	}
	got = retraceStack(t, m, "java.lang.IllegalStateException", StackFrame{"a", "m", 1, ""})
	if want := [][][]string{{{"com.example.Bar.check(Bar.java:5)", "com.example.Foo.run(Foo.java:20)"}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("other exception: %v", got)
	}
	// Only the top frame: below it the condition says nothing.
	got = retraceStack(t, m, "java.lang.NullPointerException", StackFrame{"x", "y", 1, ""}, StackFrame{"a", "m", 1, ""})
	if len(got[1][0]) != 2 {
		t.Errorf("rule applied below the top: %v", got)
	}
	// The condition names the exception by its obfuscated class (c) or the
	// source one; bare keys and single quotes as R8's document writes them.
	got = retraceStack(t, m, "c", StackFrame{"b", "m", 2, ""})
	if want := [][][]string{{{"com.example.Oops.run(Oops.java:21)"}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("obfuscated thrown class: %v", got)
	}
}

func TestR8ResidualSignature(t *testing.T) {
	m := mustParse(t, `# {"id":"com.android.tools.r8.mapping","version":"2.2"}
com.example.Shapes -> a:
    1:1:void draw(com.example.Circle,int):10:10 -> a
    # {"id":"com.android.tools.r8.residualsignature","signature":"(Lb;)V"}
    2:2:void draw(com.example.Square):20:20 -> a
    # {"id":"com.android.tools.r8.residualsignature","signature":"(Lc;)V"}
    com.example.Circle unit -> b
    # {"id":"com.android.tools.r8.residualsignature","signature":"Lb;"}
com.example.Circle -> b:
com.example.Square -> c:
`)
	// The unused int was removed: only the residual signature finds draw(Circle,int).
	ms := m.Methods("a", "a", "(Lb;)V")
	if len(ms) != 1 || ms[0].Java() != "com.example.Shapes.draw(com.example.Circle,int)" {
		t.Errorf("(Lb;)V = %+v", ms)
	}
	ms = m.Methods("a", "a", "(Lc;)V")
	if len(ms) != 1 || ms[0].Params[0] != "com.example.Square" {
		t.Errorf("(Lc;)V = %+v", ms)
	}
	if ms := m.Methods("a", "a", "(J)V"); len(ms) != 2 {
		t.Errorf("a signature matching none gives every candidate: %+v", ms)
	}
	if f, ok := m.Field([]string{"a"}, "b"); !ok || f.Type != "com.example.Circle" || f.Name != "unit" {
		t.Errorf("field with residual signature: %+v", f)
	}
}

func TestR8Synthesized(t *testing.T) {
	m := mustParse(t, `# {"id":"com.android.tools.r8.mapping","version":"1.0"}
some.pkg.Class -> foo.a:
    4:4:void example.Foo.lambda$main$0():225 -> a
    4:4:void run(example.Foo):2 -> a
    # {'id':'com.android.tools.r8.synthesized'}
    5:5:void example.Foo.lambda$main$1():228 -> a
    5:5:void run(example.Foo):4 -> a
    6:6:void kept():30:30 -> b
some.pkg.Lambda -> x.y:
# {"id":"sourceFile","fileName":"R8$$SyntheticClass"}
# {"id":"com.android.tools.r8.synthesized"}
    void run() -> a
`)
	// The synthesized run is stripped from both of its ranges.
	for line, want := range map[int]string{4: "example.Foo.lambda$main$0(Foo.java:225)", 5: "example.Foo.lambda$main$1(Foo.java:228)"} {
		got := frameStrings(m.Frame(StackFrame{"foo.a", "a", line, ""}))
		if !reflect.DeepEqual(got, [][]string{{want}}) {
			t.Errorf("line %d: %v", line, got)
		}
	}
	if got := frameStrings(m.Frame(StackFrame{"foo.a", "b", 6, ""})); !reflect.DeepEqual(got, [][]string{{"some.pkg.Class.kept(Class.java:30)"}}) {
		t.Errorf("kept: %v", got)
	}
	// A frame of a synthesized class's own method is dropped.
	if r := m.Frame(StackFrame{"x.y", "a", 1, ""}); !r.Dropped {
		t.Errorf("synthesized class frame kept: %v", frameStrings(r))
	}
	if ms := m.Methods("foo.a", "a", ""); len(ms) != 1 || !ms[0].Synthesized {
		t.Errorf("Methods = %+v", ms)
	}
}
