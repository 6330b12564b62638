package mapping

import (
	"bytes"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse and, when they index, asks every
// kind of lookup with names taken from the input: nothing may panic, and
// every known class must map back to itself through Obfuscated.
func FuzzParse(f *testing.F) {
	f.Add([]byte(proguardMap))
	f.Add([]byte("a -> b:\n    1:2:void c(int):3:4 -> d\n    1:2:void e():5 -> d\n# {\"id\":\"com.android.tools.r8.outline\"}\n"))
	f.Add([]byte("x -> y:\n    27:27:int s(int):0:0 -> s\n# {\"id\":\"com.android.tools.r8.outlineCallsite\",\"positions\":{\"1\":4}}\n"))
	f.Add([]byte("x -> y:\n    1:1:void m():5 -> m\n    # {'id':'com.android.tools.r8.rewriteFrame','conditions':['throws(La;)'],'actions':['removeInnerFrames(9)']}\n"))
	f.Add([]byte("x -> y:\n# {\"id\":\"com.android.tools.r8.synthesized\"}\n    void run() -> a\n    int f -> b\n    # {\"id\":\"com.android.tools.r8.residualsignature\",\"signature\":\"I\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil {
			return
		}
		var names [][]byte
		for _, line := range bytes.Split(data, []byte{'\n'}) {
			for _, w := range bytes.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == ':' || r == '(' || r == ')' }) {
				if len(names) < 40 {
					names = append(names, w)
				}
			}
		}
		var frames []StackFrame
		for i, n := range names {
			s := string(n)
			m.Class(s)
			m.Class("[L" + s + ";")
			m.Class(s + "[]")
			m.Signature("(L" + s + ";I)L" + s + ";")
			m.Field([]string{s, "a"}, s)
			m.Methods(s, s, "(L"+s+";)V")
			for _, line := range []int{NoLine, 0, 1, i, 1 << 30} {
				frames = append(frames, StackFrame{Class: s, Method: string(names[(i+1)%len(names)]), Line: line})
			}
			if o, ok := m.Class(s); ok && !bytes.ContainsAny(n, "[/;") {
				if back, ok := m.Obfuscated(o); !ok || m.Type(back) != o {
					t.Fatalf("%q -> %q -> %q", s, o, back)
				}
			}
		}
		for _, r := range m.Stack("a", frames) {
			if !r.Dropped && len(r.Candidates) == 0 {
				t.Fatal("a frame retraced to nothing")
			}
		}
		m.Coverage([]string{"a", "b"})
		_ = m.Summary()
	})
}
