package mapping

import (
	"reflect"
	"strings"
	"testing"
)

const textMap = `# compiler: R8
# {"id":"com.android.tools.r8.mapping","version":"2.0"}
com.example.Main -> a:
# {"id":"sourceFile","fileName":"Main.kt"}
    1:3:void com.example.Util.helper(int):10:12 -> b
    1:3:void caller():20 -> b
    4:4:void foo():30:30 -> c
    4:4:void bar():40:40 -> c
    void main(java.lang.String[]) -> main
outline.Class -> o:
    1:2:int outline():0 -> a
# {"id":"com.android.tools.r8.outline"}
com.example.Err -> e:
com.example.Bad -> z:
    1:1:void m` + "\x1b[31m" + `():5:5 -> x
`

func TestRetraceText(t *testing.T) {
	m := mustParse(t, textMap)
	in := "2026-12-07 E AndroidRuntime: FATAL EXCEPTION: main\n" +
		"Exception in thread \"main\" e: a cannot be cast to e\r\n" +
		"\tat a.b(SourceFile:2)\r\n" +
		"\tat a.c(SourceFile:4)\n" +
		"\tat java.base/java.lang.Thread.run(Thread.java:833)\n" +
		"\tat a.main(Unknown Source)\n" +
		"\tat a.b(Native Method)\n" +
		"Caused by: e: inner\n" +
		"\t... 3 more\n" +
		"  - locked <0x0abc> (a a)\n" +
		"E AndroidRuntime: \tat a.c(SourceFile:4) ~[app.jar]\n" +
		"no names here: a.b.c.d, 1.5, e.\n"
	want := "2026-12-07 E AndroidRuntime: FATAL EXCEPTION: main\n" +
		"Exception in thread \"main\" com.example.Err: com.example.Main cannot be cast to com.example.Err\r\n" +
		"\tat com.example.Util.helper(Util.java:11)\r\n" +
		"\tat com.example.Main.caller(Main.kt:20)\r\n" +
		"\tat com.example.Main.foo(Main.kt:30)\n" +
		"\t<OR> at com.example.Main.bar(Main.kt:40)\n" +
		"\tat java.base/java.lang.Thread.run(Thread.java:833)\n" +
		"\tat com.example.Main.main(Main.kt)\n" +
		"\tat com.example.Main.caller(Native Method)\n" +
		"Caused by: com.example.Err: inner\n" +
		"\t... 3 more\n" +
		"  - locked <0x0abc> (a com.example.Main)\n" +
		"E AndroidRuntime: \tat com.example.Main.foo(Main.kt:30)\n" +
		"E AndroidRuntime: \t<OR> at com.example.Main.bar(Main.kt:40) ~[app.jar]\n" +
		"no names here: a.b.c.d, 1.5, e.\n"
	var b strings.Builder
	st, err := m.RetraceText(&b, strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if st.Frames != 6 || st.Retraced != 5 || st.Ambiguous != 2 {
		t.Errorf("stats %+v", st)
	}
}

func TestRetraceTextOutlineAndEscapes(t *testing.T) {
	m := mustParse(t, textMap+`some.Class -> s:
    4:5:int foo.bar.Baz.inner(int):98:99 -> s
    4:5:int outlineCaller(int):24 -> s
    27:27:int outlineCaller(int):0:0 -> s
# {"id":"com.android.tools.r8.outlineCallsite","positions":{"1":4,"2":5}}
`)
	got := m.RetraceString("java.io.IOException\n\tat o.a(SourceFile:2)\n\tat s.s(SourceFile:27)\n")
	want := "java.io.IOException\n\tat foo.bar.Baz.inner(Baz.java:99)\n\tat some.Class.outlineCaller(Class.java:24)\n"
	if got != want {
		t.Errorf("outline: got\n%s", got)
	}
	// A control character in the mapping's names never reaches the output.
	got = m.RetraceString("\tat z.x(SourceFile:1)\n")
	if strings.ContainsRune(got, 0x1b) || !strings.Contains(got, `m\x1b[31m(Bad.java:5)`) {
		t.Errorf("escape passed: %q", got)
	}
	// No trailing newline stays without one; an overlong line passes whole.
	if got := m.RetraceString("\tat a.c(SourceFile:4)"); !strings.HasSuffix(got, "bar(Main.kt:40)") {
		t.Errorf("no newline: %q", got)
	}
	long := strings.Repeat("a.b ", maxTextLine/2) + "\n"
	if got := m.RetraceString(long + "\tat a.c(SourceFile:4)\n"); !strings.HasPrefix(got, long) || !strings.Contains(got, "foo(Main.kt:30)") {
		t.Errorf("overlong line: %d bytes, tail %q", len(got), got[len(got)-80:])
	}
}

// TestMatchFrameAgreesWithRegexp holds the hand parser to frameRE.
func TestMatchFrameAgreesWithRegexp(t *testing.T) {
	for _, line := range []string{
		"\tat a.b(SourceFile:2)", "at a.b()", "  at java.base/java.lang.Thread.run(Thread.java:833) ~[x]",
		"E AndroidRuntime: \tat a.c(SourceFile:4)", "what at a.b(", "\tat .b(x)", "\tat a.(x)", "\tat ab(x)",
		"at a/b/c.d(x)", "flat a.b(x) at c.d(y)", "\tat a.b(x(y))", "\tat a.<init>(Unknown Source:3)",
		"\tat a.b-$$ExternalSyntheticLambda0.run(D8$$SyntheticClass:0)", "at @mod/a.b(c)", "at /a.b(c)", "",
		"\tat\ta.b(c)", "xat a.b(c)", "at a.b(c) at d.e(f)", "\tat a b.c(d)",
	} {
		got, want := matchFrame(line), frameRE.FindStringSubmatchIndex(line)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q: hand %v, regexp %v", line, got, want)
		}
	}
}
