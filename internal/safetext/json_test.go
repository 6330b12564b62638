package safetext

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// Issue 37: `--json` output escapes C1 and bidirectional controls, which
// encoding/json writes raw, and still decodes to the same strings.
func TestJSONEscapesC1AndBidi(t *testing.T) {
	in := map[string]string{"app": "evil\u009b2J\u0085x\u202egpj.exe\u2066\u2069\u200e", "ok": "été ✓ \u2029"}
	var raw bytes.Buffer
	if err := json.NewEncoder(&raw).Encode(in); err != nil {
		t.Fatal(err)
	}
	if !strings.ContainsRune(raw.String(), '\u009b') {
		t.Fatal("encoding/json escapes C1 itself: the test proves nothing")
	}
	// every split of the document into two writes gives the same text
	want := `{"app":"evil\u009b2J\u0085x\u202egpj.exe\u2066\u2069\u200e","ok":"été ✓ \u2029"}` + "\n"
	for cut := 0; cut <= raw.Len(); cut++ {
		var out bytes.Buffer
		w := JSON(&out)
		w.Write(raw.Bytes()[:cut])
		w.Write(raw.Bytes()[cut:])
		if out.String() != want {
			t.Fatalf("cut at %d: %q\nwant %q", cut, out.String(), want)
		}
	}
	var back map[string]string
	if err := json.Unmarshal([]byte(want), &back); err != nil || back["app"] != in["app"] || back["ok"] != in["ok"] {
		t.Fatalf("%v %q", err, back)
	}
}
