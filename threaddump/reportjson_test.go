package threaddump

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// WriteJSON streams, yet writes what the encoder writes, byte for byte:
// every fixture, and a dump large enough to have every streamed array.
func TestWriteJSONEqualsEncoder(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	inputs := map[string][]byte{"lock-cycle": lockCycleDump(50, false), "empty-process": []byte("----- pid 1 at 2024-05-14 10:48:12 -----\nCmd line: x\n\n----- end 1 -----\n")}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = b
	}
	for name, in := range inputs {
		d, err := Parse(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		r := NewReport(d)
		var want, got bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteJSON(&got); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var streamed bytes.Buffer
		if err := NewStreamingReport(d).WriteJSON(&streamed); err != nil {
			t.Fatalf("%s: streaming: %v", name, err)
		}
		if !bytes.Equal(streamed.Bytes(), want.Bytes()) {
			t.Errorf("%s: the streaming report's JSON differs from the report's", name)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			i := 0
			for i < min(got.Len(), want.Len()) && got.Bytes()[i] == want.Bytes()[i] {
				i++
			}
			t.Errorf("%s: WriteJSON differs from the encoder at byte %d:\n got …%q\nwant …%q", name, i,
				got.Bytes()[max(0, i-60):min(got.Len(), i+60)], want.Bytes()[max(0, i-60):min(want.Len(), i+60)])
		}
	}
}
