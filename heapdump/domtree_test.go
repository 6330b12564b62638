package heapdump

import (
	"bytes"
	"slices"
	"testing"

	"github.com/ddmtui/ddmtui/hprof/scene"
)

// Top's bounded heap keeps exactly the first max of the sorted top level
// (D10), ties by id included, for every bound.
func TestTopIsThePrefixOfChildren(t *testing.T) {
	var buf bytes.Buffer
	if err := scene.Large(&buf, scene.LargeOptions{Objects: 20000, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	h := analyseBytes(t, buf.Bytes())
	all := h.Dominators().Children(SuperRoot)
	ties := 0
	for i := 1; i < len(all); i++ {
		if h.Retained(all[i]) == h.Retained(all[i-1]) {
			ties++
		}
	}
	if len(all) < 1000 || ties < 100 {
		t.Fatalf("test setup: %d top dominators, %d ties", len(all), ties)
	}
	for _, max := range []int{1, 2, 3, 10, 100, 777, len(all) - 1} {
		if got := h.Dominators().Top(max); !slices.Equal(got, all[:max]) {
			t.Errorf("Top(%d) is not the first %d of the top level", max, max)
		}
	}
	if n := h.Dominators().NumChildren(SuperRoot); n != len(all) {
		t.Errorf("NumChildren %d, %d children", n, len(all))
	}
}
