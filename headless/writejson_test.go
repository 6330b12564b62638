package headless

import (
	"bytes"
	"testing"
)

// WriteJSON's bytes: indented by two spaces, a final newline, <, > and &
// left as written, quotes and control characters escaped as JSON needs.
func TestWriteJSONBytes(t *testing.T) {
	var b bytes.Buffer
	v := map[string]any{"method": "java.util.List<String>.<init>", "q": "a\"b&c\n"}
	if err := WriteJSON(&b, v); err != nil {
		t.Fatal(err)
	}
	const want = "{\n  \"method\": \"java.util.List<String>.<init>\",\n  \"q\": \"a\\\"b&c\\n\"\n}\n"
	if b.String() != want {
		t.Fatalf("%q\nwant %q", b.String(), want)
	}
}
