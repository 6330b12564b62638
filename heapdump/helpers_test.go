package heapdump

import (
	"bytes"
	"testing"

	"github.com/ddmtui/ddmtui/hprof/scene"
)

// dump builds a file with fn and returns its bytes.
func dump(t testing.TB, idSize int, version string, fn func(b *scene.Builder)) []byte {
	t.Helper()
	var buf bytes.Buffer
	b, err := scene.NewBuilder(&buf, idSize, version)
	if err != nil {
		t.Fatal(err)
	}
	fn(b)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// analyse analyses data, failing the test on error.
func analyseBytes(t testing.TB, data []byte) *Heap {
	t.Helper()
	h, err := Analyze(data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// node returns the node of id, failing when it is not one.
func node(t testing.TB, h *Heap, id uint64) Node {
	t.Helper()
	n, ok := h.Lookup(id)
	if !ok {
		t.Fatalf("no node %#x", id)
	}
	return n
}

// row returns the histogram row of a class name.
func row(t testing.TB, h *Heap, name string) ClassRow {
	t.Helper()
	for _, r := range h.Histogram() {
		if r.Name == name {
			return r
		}
	}
	t.Fatalf("no histogram row %q", name)
	return ClassRow{}
}
