package viewtree

import (
	"testing"
)

// The fuzz targets check that a decoder never panics and that what it
// accepts is a consistent tree (every parent before its child, property
// ranges inside Props).

func checkTree(t *testing.T, tr *Tree) {
	for i := range tr.Nodes {
		n := &tr.Nodes[i]
		if i == 0 && n.Parent != -1 || i > 0 && (n.Parent < 0 || int(n.Parent) >= i) {
			t.Fatalf("node %d parent %d", i, n.Parent)
		}
		for _, p := range tr.Properties(i) {
			_ = tr.Value(p)
		}
		for _, c := range tr.Children(i) {
			if tr.Nodes[c].Parent != int32(i) {
				t.Fatalf("child %d of %d has parent %d", c, i, tr.Nodes[c].Parent)
			}
		}
	}
	_ = tr.JSON()
	_ = tr.String()
}

func FuzzDecodeV2(f *testing.F) {
	f.Add(v2Vector())
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := DecodeV2(data)
		if err == nil {
			checkTree(t, tr)
		}
	})
}

func FuzzDecodeText(f *testing.F) {
	f.Add([]byte(textVector))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := DecodeText(data)
		if err == nil {
			checkTree(t, tr)
		}
	})
}

func FuzzDecodeLayers(f *testing.F) {
	f.Add(layersVector)
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := DecodeLayers(data)
		if err == nil && len(l.Views) > MaxLayers {
			t.Fatal("bound")
		}
	})
}
