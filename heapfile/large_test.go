package heapfile

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
)

// The benchmark's heap (scene.Large, as heapgraphgen writes it) at 30 k
// objects, as HPROF and as heap graphs of API 30, 31 and 34: the analysis
// of both forms gives the same heaps, classes, dominators and paths. Its
// ids do not repeat, so API 31 and 34 take Feed's column path (the graph's
// arrays kept by the Builder), which the scene (an id dumped twice) does
// not.
func TestLargeHeapBothForms(t *testing.T) {
	var hp bytes.Buffer
	if err := scene.Large(&hp, scene.LargeOptions{Objects: 30000, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	ha, err := heapdump.Analyze(hp.Bytes(), heapdump.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ha.Close()
	want := ha.Report(200)
	var ids []uint64
	for x := 0; x < ha.NumNodes(); x += 97 {
		ids = append(ids, ha.ID(heapdump.Node(x)))
	}
	wantPaths, err := ha.Paths().Of(ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, api := range []int{30, 31, 34} {
		t.Run(fmt.Sprint("api", api), func(t *testing.T) {
			var out bytes.Buffer
			if err := heapgraph.FromHPROF(bytes.NewReader(hp.Bytes()), &out, heapgraph.WriterOptions{API: api, PID: 9}); err != nil {
				t.Fatal(err)
			}
			tr, err := heapgraph.Read(bytes.NewReader(out.Bytes()), heapgraph.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if columns := noRepeats(tr.Dumps[0].ID); !columns {
				t.Fatal("ids repeat in scene.Large")
			}
			hg, err := ReadHeapGraph(bytes.NewReader(out.Bytes()), Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer hg.Close()
			got := hg.Report(200)
			if !reflect.DeepEqual(want.Classes, got.Classes) {
				byName := map[string]heapdump.ClassRow{}
				for _, r := range got.Classes {
					byName[r.Name] = r
				}
				shown := 0
				for _, r := range want.Classes {
					if g := byName[r.Name]; g != r && shown < 5 {
						shown++
						t.Errorf("class %s: HPROF %+v, heap graph %+v", r.Name, r, g)
					}
				}
				got.Classes = want.Classes
			}
			for _, c := range []struct {
				what string
				a, b any
			}{{"heaps", want.Heaps, got.Heaps}, {"classes", want.Classes, got.Classes}, {"dominators", want.Dominators, got.Dominators},
				{"objects", want.Objects, got.Objects}, {"reachable", want.Reachable, got.Reachable}} {
				if !reflect.DeepEqual(c.a, c.b) {
					t.Errorf("%s differ:\nHPROF      %s\nheap graph %s", c.what, js(c.a), js(c.b))
				}
			}
			paths, err := hg.Paths().Of(ids)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(wantPaths, paths) {
				t.Errorf("paths differ")
			}
		})
	}
}

// noRepeats is exact: a repeated id anywhere is found.
func TestNoRepeats(t *testing.T) {
	for _, c := range []struct {
		ids  []uint64
		want bool
	}{
		{[]uint64{1, 2, 3}, true},
		{[]uint64{0x10000, 5, 0x20000, 0x10000}, false},
		{[]uint64{1 << 40, 1<<40 + 1, 7, 1 << 40}, false},
		{[]uint64{3, 2, 1, 0x10003}, true},
	} {
		if got := noRepeats(c.ids); got != c.want {
			t.Errorf("%v: %v", c.ids, got)
		}
	}
}
