package heapfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
)

// sceneHeaps analyses one planted heap (hprof/scene) in both forms: its
// HPROF and its heap graph in ART's encoding for api.
func sceneHeaps(t *testing.T, api int) (hp, hg *heapdump.Heap, e *scene.Expect) {
	t.Helper()
	graph, hprofBytes, e, err := heapgraph.Scene(scene.Options{Seed: 7, API: api}, heapgraph.WriterOptions{API: api, PID: 4242})
	if err != nil {
		t.Fatal(err)
	}
	if f := Sniff(graph); f != FormatHeapGraph {
		t.Fatalf("heap graph sniffed as %d", f)
	}
	if f := Sniff(hprofBytes); f != FormatHPROF {
		t.Fatalf("HPROF sniffed as %d", f)
	}
	hp, err = heapdump.Analyze(hprofBytes, heapdump.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hp.Close() })
	hg, err = ReadHeapGraph(bytes.NewReader(graph), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hg.Close() })
	return hp, hg, e
}

// The analysis of one heap's two forms agrees on everything a heap graph
// carries, in ART's encodings of API 30 (per-object field names), 31 and
// 34 (per-type field lists): every node's class, shallow size, heap,
// reachability, immediate dominator, retained size and shortest path; the
// histogram, the heaps, the top dominators, the detached Fragments with
// their paths; and both agree with what the scene planted.
func TestBothFormsAgree(t *testing.T) {
	for _, api := range []int{30, 31, 34} {
		t.Run(fmt.Sprint("api", api), func(t *testing.T) {
			hp, hg, e := sceneHeaps(t, api)
			if hp.NumNodes() != hg.NumNodes() || hg.NumNodes() != e.Nodes {
				t.Fatalf("nodes: HPROF %d, heap graph %d, planted %d", hp.NumNodes(), hg.NumNodes(), e.Nodes)
			}
			if hg.Version() != Version {
				t.Errorf("version %q", hg.Version())
			}
			var ids []uint64
			bad := 0
			for x := range hp.NumNodes() {
				n := heapdump.Node(x)
				id := hp.ID(n)
				ids = append(ids, id)
				m, ok := hg.Lookup(id)
				if !ok {
					t.Errorf("%#x not in the heap graph", id)
					continue
				}
				a := nodeFacts(hp, n)
				b := nodeFacts(hg, m)
				if a != b {
					if bad++; bad <= 10 {
						t.Errorf("%#x: HPROF %+v\n  heap graph %+v", id, a, b)
					}
				}
			}
			pa, err := hp.Paths().Of(ids)
			if err != nil {
				t.Fatal(err)
			}
			pb, err := hg.Paths().Of(ids)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(pa, pb) {
				for i := range pa.Paths {
					if !reflect.DeepEqual(pa.Paths[i], pb.Paths[i]) {
						if bad++; bad <= 10 {
							t.Errorf("path of %s: HPROF %s\n  heap graph %s", pa.Paths[i].ID, js(pa.Paths[i]), js(pb.Paths[i]))
						}
					}
				}
			}

			ra, rb := hp.Report(1000), hg.Report(1000)
			same := func(what string, a, b any) {
				t.Helper()
				if !reflect.DeepEqual(a, b) {
					t.Errorf("%s differ:\nHPROF      %s\nheap graph %s", what, js(a), js(b))
				}
			}
			same("heaps", ra.Heaps, rb.Heaps)
			same("classes", ra.Classes, rb.Classes)
			same("dominators", ra.Dominators, rb.Dominators)
			same("objects", ra.Objects, rb.Objects)
			same("reachable", ra.Reachable, rb.Reachable)
			var fragments []heapdump.LeakJSON
			for _, l := range ra.Leaks {
				if l.Kind == "fragment" {
					fragments = append(fragments, l)
				}
			}
			same("detached Fragments", fragments, rb.Leaks)
			if ra.Unavailable != nil {
				t.Errorf("HPROF: unavailable %v", ra.Unavailable)
			}
			for _, s := range []string{"leaks", "duplicate_strings", "bitmaps"} {
				if rb.Unavailable[s] == "" {
					t.Errorf("heap graph: %s not said unavailable (%v)", s, rb.Unavailable)
				}
			}
			if len(rb.DuplicateStrings) != 0 || len(rb.Bitmaps) != 0 {
				t.Errorf("heap graph: duplicate strings %v, bitmaps %v: guessed", rb.DuplicateStrings, rb.Bitmaps)
			}

			// What the scene planted.
			byName := map[string]heapdump.ClassRow{}
			for _, c := range rb.Classes {
				byName[c.Name] = c
			}
			for _, c := range e.Classes {
				got := byName[c.Name]
				if got.Instances != c.Instances || got.Shallow != c.Shallow {
					t.Errorf("class %s: %d instances %d bytes, planted %d, %d", c.Name, got.Instances, got.Shallow, c.Instances, c.Shallow)
				}
			}
			for _, o := range e.Retained {
				n, ok := hg.Lookup(uint64(o.ID))
				if !ok || hg.Retained(n) != o.Retained {
					t.Errorf("retained of %#x (%s): %d, planted %d", o.ID, o.Class, hg.Retained(n), o.Retained)
				}
			}
			planted := 0
			for _, l := range e.Leaks {
				if l.Kind != "fragment" {
					continue
				}
				planted++
				found := false
				for _, g := range rb.Leaks {
					if g.ID == heapdump.HexID(uint64(l.ID)) {
						found = true
						if g.Retained != l.Retained || g.Reason != l.Reason || len(g.Path) != len(l.Path) {
							t.Errorf("fragment %#x: %s, planted %+v", l.ID, js(g), l)
						}
					}
				}
				if !found {
					t.Errorf("planted fragment %#x (%s) not found", l.ID, l.Class)
				}
			}
			if planted == 0 || planted != len(rb.Leaks) {
				t.Errorf("%d fragments planted, %d found", planted, len(rb.Leaks))
			}
		})
	}
}

type facts struct {
	Class, Heap       string
	Shallow, Retained uint64
	Reachable, Root   bool
	Idom              uint64
	IdomIsSuper       bool
}

func nodeFacts(h *heapdump.Heap, n heapdump.Node) facts {
	f := facts{Class: h.ClassName(n), Heap: h.HeapName(n), Shallow: h.Shallow(n), Reachable: h.Reachable(n), Root: h.IsRoot(n)}
	if f.Reachable {
		f.Retained = h.Retained(n)
		if d, ok := h.Dominator(n); ok && d != heapdump.SuperRoot {
			f.Idom = h.ID(d)
		} else {
			f.IdomIsSuper = ok
		}
	}
	return f
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
