package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/trace"
)

// obfuscatedMapping is what R8 would write for the methods of obfuscatedTrace.
const obfuscatedMapping = `# compiler: R8
com.example.shop.Cart -> a.a:
# {"id":"sourceFile","fileName":"Cart.kt"}
    1:5:com.example.shop.Item add(com.example.shop.Item,int):20:24 -> a
    6:6:void clear():30:30 -> b
com.example.shop.Item -> a.b:
    1:2:java.lang.String label():7:8 -> a
`

// obfuscatedTrace is a release build's trace: its key names a.a.a and a.b.a.
func obfuscatedTrace() *trace.Trace {
	tr := &trace.Trace{Header: trace.Header{Version: 3, Clocks: trace.Dual, Threads: []trace.Thread{{ID: 1, Name: "main"}},
		Methods: []trace.Method{
			{ID: 4, Class: "a.a", Name: "a", Signature: "(La/b;I)La/b;", File: "SourceFile"},
			{ID: 8, Class: "a.b", Name: "a", Signature: "()Ljava/lang/String;", File: "SourceFile"},
			{ID: 12, Class: "java.lang.String", Name: "length", Signature: "()I", File: "String.java"},
		}}}
	now := uint32(0)
	ev := func(a trace.Action, id uint32) {
		tr.Events = append(tr.Events, trace.Event{Thread: 1, Action: a, MethodID: id, Time: [2]uint32{now, 2 * now}})
		now += 10
	}
	ev(trace.Enter, 4)
	ev(trace.Enter, 8)
	ev(trace.Enter, 12)
	ev(trace.Exit, 12)
	ev(trace.Exit, 8)
	ev(trace.Exit, 4)
	return tr
}

// TestTraceMapping: a dmtrace (format 3) and an ART format V2 trace whose
// methods carry obfuscated names show the source's names, signatures and
// files with --mapping, in the JSON, folded and DOT exports alike.
func TestTraceMapping(t *testing.T) {
	dir := t.TempDir()
	if d := os.Getenv("KEEPDIR"); d != "" {
		dir = d
	}
	mp := filepath.Join(dir, "mapping.txt")
	if err := os.WriteFile(mp, []byte(obfuscatedMapping), 0o644); err != nil {
		t.Fatal(err)
	}
	var v1, v2 bytes.Buffer
	if err := trace.Encode(&v1, obfuscatedTrace()); err != nil {
		t.Fatal(err)
	}
	if err := trace.EncodeV2(&v2, obfuscatedTrace(), trace.V2Options{Streaming: true}); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"dmtrace": v1.Bytes(), "v2": v2.Bytes()} {
		path := filepath.Join(dir, name+".trace")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := runApp(t, "trace", path, "--json", "--mapping", mp)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Methods []trace.JSONMethod `json:"methods"`
		}
		decodeFirstJSON(t, out, &got)
		want := map[string]trace.JSONMethod{
			"com.example.shop.Cart.add":   {Class: "com.example.shop.Cart", Method: "add", Signature: "(Lcom/example/shop/Item;I)Lcom/example/shop/Item;", File: "Cart.kt"},
			"com.example.shop.Item.label": {Class: "com.example.shop.Item", Method: "label", Signature: "()Ljava/lang/String;", File: "Item.java"},
			"java.lang.String.length":     {Class: "java.lang.String", Method: "length", Signature: "()I", File: "String.java"},
		}
		seen := 0
		for _, m := range got.Methods {
			w, ok := want[m.Class+"."+m.Method]
			if !ok {
				if strings.HasPrefix(m.Class, "a.") {
					t.Errorf("%s: obfuscated name left: %+v", name, m)
				}
				continue
			}
			seen++
			if m.Signature != w.Signature || m.File != w.File || m.Calls != 1 {
				t.Errorf("%s: %+v, want %+v", name, m, w)
			}
		}
		if seen != len(want) {
			t.Errorf("%s: %d of %d methods found in %s", name, seen, len(want), out)
		}
		folded := filepath.Join(dir, name+".folded")
		dot := filepath.Join(dir, name+".dot")
		chrome := filepath.Join(dir, name+".json")
		if _, err := runApp(t, "trace", path, "--mapping", mp, "--folded", folded, "--dot", dot, "--dot-threshold", "-1", "--chrome", chrome); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{folded, dot, chrome} {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(b), "com.example.shop.Cart.add") || !strings.Contains(string(b), "com.example.shop.Item.label") || strings.Contains(string(b), "a.a.a") {
				t.Errorf("%s: %s lacks the source names:\n%s", name, filepath.Base(f), b)
			}
		}
	}
	// A mapping of another build says so.
	other := filepath.Join(dir, "other.txt")
	os.WriteFile(other, []byte("x.Y -> q.q:\n"), 0o644)
	out, err := runApp(t, "trace", filepath.Join(dir, "dmtrace.trace"), "--json", "--mapping", other)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "mapping: 0 of 2 classes known — wrong build?") {
		t.Errorf("no coverage warning:\n%.300s", out[len(out)-300:])
	}
}
