package heapgraph

import (
	"bytes"
	"testing"
)

// FuzzRead: any input gives a graph whose indexes hold, or an error;
// never a panic. Seeds: testdata/fuzz/FuzzRead (the byte-exact vector in
// the API 30, 31 and 34 encodings, a split dump with late types; crashers
// found later stay there too). 15 s runs 360 k inputs.
func FuzzRead(f *testing.F) {
	f.Add(vector)
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Read(bytes.NewReader(data), Options{})
		if err != nil {
			return
		}
		for _, g := range tr.Dumps {
			if len(g.Type) != len(g.ID) || len(g.Size) != len(g.ID) || len(g.Heap) != len(g.ID) || len(g.RefEnd) != len(g.ID) || len(g.Refs) != len(g.FieldOf) {
				t.Fatalf("slices disagree: %v", g)
			}
			for i := range g.ID {
				if int(g.Type[i]) >= len(g.Types) {
					t.Fatalf("object %d: type index %d", i, g.Type[i])
				}
				if from, to := g.RefRange(i); from > to || to > len(g.Refs) {
					t.Fatalf("object %d: refs %d..%d", i, from, to)
				}
			}
			m := g.Model()
			if err := g.EachNode(func(n *Node) error {
				if int(n.Class) >= len(m.Classes) {
					t.Fatalf("node %#x: class %d", n.ID, n.Class)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
