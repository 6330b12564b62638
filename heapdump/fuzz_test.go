package heapdump

import (
	"encoding/json"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
)

// FuzzAnalyze: any input gives a Heap or an error, never a panic, and every
// query on a Heap answers. The committed corpus is in testdata/fuzz.
func FuzzAnalyze(f *testing.F) {
	_, android := scenario(f, ScenarioOptions{})
	_, std8 := scenario(f, ScenarioOptions{IDSize: 8, Version: hprof.VersionStandard, Internal: true})
	f.Add(android)
	f.Add(std8)
	f.Add(android[:len(android)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Analyze(data, Options{})
		if err != nil {
			return
		}
		if _, err := json.Marshal(h.Report(3)); err != nil {
			t.Fatal(err)
		}
		n := h.NumNodes()
		for i := 0; i < n && i < 64; i++ {
			x := Node(i)
			h.Fields(x)
			h.ArrayElements(x, 0, 4)
			h.Referrers(x)
			h.Dominators().Children(x)
			h.Strings().Value(x)
			if p := h.Paths().ToRoot(x); len(p) != min(h.Paths().Depth(x), MaxPathSteps) {
				t.Fatalf("node %d: path %d, depth %d", i, len(p), h.Paths().Depth(x))
			}
		}
		_ = Diff(h.Histogram(), nil)
	})
}

// FuzzBuilder: whatever a reader feeds a Builder (ids that repeat or are
// 0, types never given, superclass loops, references to no object, names
// that do not match the references) gives a Heap or an error, never a
// panic, and every query on the Heap answers. The bytes are read as a
// program: each op is a kind byte and little numbers.
func FuzzBuilder(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 1, 1, 1, 0, 2, 3, 9, 1, 5, 2, 1})
	f.Add([]byte{0, 1, 1, 0, 0, 2, 2, 1, 1, 1, 1, 3, 2, 2, 2, 0, 1, 4, 3, 3})
	f.Fuzz(func(t *testing.T, prog []byte) {
		b := NewBuilder("fuzz", Options{})
		next := func() uint64 {
			if len(prog) == 0 {
				return 0
			}
			v := prog[0]
			prog = prog[1:]
			return uint64(v % 8)
		}
		kinds := []Kind{KindInstance, KindObjectArray, KindPrimitiveArray, KindClass, 9}
		names := []string{"referent", "java.lang.ref.Reference.referent", "a", "X.b", "", "c.d.e"}
		for len(prog) > 0 && len(prog) < 4096 {
			switch next() % 4 {
			case 0:
				id := next()
				b.Type(Type{ID: id, Name: []string{"java.lang.ref.Reference", "A", "B[]", "java.lang.Class"}[id%4],
					Super: next(), InstanceSize: next(), RefFields: names[:next()%3]})
			case 1, 2:
				o := Object{ID: next(), Type: next(), Kind: kinds[next()%5], Size: next(), Heap: []string{"", "app", "zygote"}[next()%3], ClassOf: next()}
				if o.Size == 7 {
					o.Size = SizeOfType
				}
				for range next() {
					o.Refs = append(o.Refs, next())
				}
				if next()%2 == 0 {
					for i := range o.Refs {
						o.RefFields = append(o.RefFields, names[i%len(names)])
					}
					if next() == 0 {
						o.RefFields = append(o.RefFields, "extra")
					}
				}
				b.Object(o)
			case 3:
				b.Root(next())
			}
		}
		h, err := b.Finish()
		if err != nil {
			return
		}
		if _, err := json.Marshal(h.Report(3)); err != nil {
			t.Fatal(err)
		}
		for i := range h.NumNodes() {
			x := Node(i)
			h.Fields(x)
			h.ArrayElements(x, 0, 4)
			h.Referrers(x)
			h.Dominators().Children(x)
			if p := h.Paths().ToRoot(x); len(p) != min(h.Paths().Depth(x), MaxPathSteps) {
				t.Fatalf("node %d: path %d, depth %d", i, len(p), h.Paths().Depth(x))
			}
		}
		_ = Diff(h.Histogram("app"), h.Histogram())
	})
}
