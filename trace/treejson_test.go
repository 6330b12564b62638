package trace

import (
	"bytes"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/testkit/treejson"
)

func readTreeJSON(t *testing.T, p *Profile, opt TreeJSONOptions) *treejson.Doc {
	t.Helper()
	var b bytes.Buffer
	if err := WriteTreeJSON(&b, p, opt); err != nil {
		t.Fatal(err)
	}
	doc, err := treejson.Decode(b.Bytes())
	if err != nil {
		t.Fatalf("%v\n%.400s", err, b.String())
	}
	return doc
}

func TestTreeJSONHandBuilt(t *testing.T) {
	p := profileOf(t, handTreeTrace(), BuildOptions{CallTree: true})
	var b bytes.Buffer
	if err := WriteTreeJSON(&b, p, TreeJSONOptions{Clock: ClockWall}); err != nil {
		t.Fatal(err)
	}
	// Wall times are twice the CPU times of TestCallTreeHandBuilt.
	want := `{"clock": "wall", "node": ["method", "inclusive_usec", "exclusive_usec", "calls", "children"], "threads": [
{"tid": 1, "name": "main", "top_down": [[0,36,16,1,[[0,12,4,1,[[1,8,8,1,[]]]],[1,8,8,1,[[2,0,0,1,[]]]]]],[2,20,0,1,[],{"unplaced_usec": 20}]], "exits_from_start": 1, "exits_ignored": 1},
{"tid": 2, "name": "bg", "top_down": [[0,20,12,1,[[1,8,8,1,[]]]]]}],
"merged": {"top_down": [[0,56,28,2,[[1,16,16,2,[[2,0,0,1,[]]]],[0,12,4,1,[[1,8,8,1,[]]]]]],[2,20,0,1,[],{"unplaced_usec": 20}]], "exits_from_start": 1, "exits_ignored": 1},
"methods": ["x.A.a ()V", "x.C.c ()V", "x.B.b ()V"]}
`
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
	doc := readTreeJSON(t, p, TreeJSONOptions{Clock: ClockCPU, BottomUp: true, MaxDepth: 2})
	a := doc.Merged.BottomUp[0]
	if a.Method != "x.A.a ()V" || a.Inclusive != 28 || a.Exclusive != 16 || a.Calls != 3 {
		t.Errorf("bottom-up a: %+v", a)
	}
	c := doc.Merged.BottomUp[1]
	if c.Children[0].Method != "x.A.a ()V" || !c.Children[0].Truncated || len(c.Children[0].Children) != 0 || c.Children[0].Calls != 3 {
		t.Errorf("bottom-up c, cut at depth 2: %+v", c)
	}
	if _, err := (&Profile{Threads: p.Threads[:1]}).treeless(); err != nil {
		t.Fatal(err)
	}
}

// treeless is p without call trees, for the ErrNoCallTree check.
func (p *Profile) treeless() (*Profile, error) {
	q := *p
	q.Threads = []ThreadProfile{p.Threads[0]}
	q.Threads[0].Tree = nil
	if err := WriteTreeJSON(io.Discard, &q, TreeJSONOptions{}); err != ErrNoCallTree {
		return nil, err
	}
	return &q, nil
}

// TestTreeJSONEqualsFlatProfile: on every test trace, the JSON's bottom-up
// top level has the flat profile's numbers, and the top-down tree's
// exclusive times add up per method to the flat exclusive times.
func TestTreeJSONEqualsFlatProfile(t *testing.T) {
	for name, tr := range treeTestTraces(t) {
		t.Run(name, func(t *testing.T) {
			p := profileOf(t, tr, BuildOptions{CallTree: true})
			c := p.Clocks.First()
			byName := map[string]Stats{}
			for _, ms := range p.All.Methods {
				if ms.Index == TopLevel {
					continue
				}
				m := &p.Methods[ms.Index]
				name := m.FullName()
				if m.Signature != "" {
					name += " " + m.Signature
				}
				s := byName[name]
				addStats(&s, &ms.Stats)
				byName[name] = s
			}
			td := readTreeJSON(t, p, TreeJSONOptions{Clock: c, MaxDepth: -1})
			excl := map[string]uint64{}
			var stack []treejson.Node
			stack = append(stack, td.Merged.TopDown...)
			for len(stack) > 0 {
				n := stack[len(stack)-1]
				stack = append(stack[:len(stack)-1], n.Children...)
				excl[n.Method] += n.Exclusive
			}
			for name, s := range byName {
				if excl[name] != s.Exclusive[c] {
					t.Errorf("%s: top-down exclusive %d, flat %d", name, excl[name], s.Exclusive[c])
				}
			}
			bu := readTreeJSON(t, p, TreeJSONOptions{Clock: c, BottomUp: true})
			for _, n := range bu.Merged.BottomUp {
				s := byName[n.Method]
				if n.Calls != s.Calls || n.Inclusive != s.Inclusive[c] || n.Exclusive != s.Exclusive[c] {
					t.Errorf("%s: bottom up %d/%d/%d, flat %d/%d/%d", n.Method, n.Calls, n.Inclusive, n.Exclusive, s.Calls, s.Inclusive[c], s.Exclusive[c])
				}
			}
		})
	}
}

// TestFoldedAgreesWithTree: each folded line is a path of the merged
// top-down tree (by name) and its value the path's exclusive time.
func TestFoldedAgreesWithTree(t *testing.T) {
	for name, tr := range treeTestTraces(t) {
		t.Run(name, func(t *testing.T) {
			p := profileOf(t, tr, BuildOptions{CallTree: true})
			c := p.Clocks.First()
			want := map[string]uint64{}
			for i := range p.Threads {
				tp := &p.Threads[i]
				if tp.Tree == nil {
					continue
				}
				label := strings.ReplaceAll(threadLabel(tp), ";", ":")
				v := NewTopDownView([]*CallTree{tp.Tree}, c)
				want[label] += v.Nodes[0].Self[c]
				var path []string
				v.Walk(0, func(n int32, depth int) bool {
					path = append(path[:depth-1], strings.ReplaceAll(frameName(p, v.Nodes[n].Method), ";", ":"))
					want[label+";"+strings.Join(path, ";")] += v.Nodes[n].Self[c]
					return true
				})
			}
			var b bytes.Buffer
			if err := WriteFolded(&b, p, c); err != nil {
				t.Fatal(err)
			}
			got := map[string]uint64{}
			for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
				sp := strings.LastIndexByte(l, ' ')
				v, err := strconv.ParseUint(l[sp+1:], 10, 64)
				if err != nil {
					t.Fatalf("line %q", l)
				}
				if _, dup := got[l[:sp]]; dup {
					t.Errorf("path twice: %q", l[:sp])
				}
				got[l[:sp]] = v
			}
			for path, v := range want {
				if got[path] != v {
					t.Errorf("%s: folded %d, tree %d", path, got[path], v)
				}
			}
		})
	}
}

// TestFoldedDeepTraceMemory: 50,000 nested calls (only the innermost with
// time) write their one line from a stack. Building every path as a string
// took 50,000²/2 frame names (gigabytes); the stack needs a few MB.
func TestFoldedDeepTraceMemory(t *testing.T) {
	const depth = 50_000
	p := profileOf(t, deepTrace(depth, false), BuildOptions{CallTree: true})
	var out bytes.Buffer
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := WriteFoldedOptions(&out, p, FoldedOptions{Clock: ClockCPU, MaxDepth: -1}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	line := out.String()
	if strings.Count(line, "\n") != 1 || strings.Count(line, ";a.f") != depth || !strings.HasSuffix(line, ";a.leaf 1\n") {
		t.Fatalf("output: %d bytes, %d lines", len(line), strings.Count(line, "\n"))
	}
	allocated := after.TotalAlloc - before.TotalAlloc - uint64(out.Cap())
	t.Logf("allocated %d KiB for a %d KiB line", allocated>>10, len(line)>>10)
	if allocated > 16<<20 {
		t.Errorf("WriteFolded allocated %d MiB for one %d-frame path", allocated>>20, depth)
	}
	doc := readTreeJSON(t, p, TreeJSONOptions{Clock: ClockCPU})
	n, levels := doc.Merged.TopDown[0], 1
	for len(n.Children) > 0 {
		n = n.Children[0]
		levels++
	}
	if levels != DefaultTreeJSONDepth || !n.Truncated || n.Inclusive != 1 {
		t.Errorf("JSON cut at %d levels (truncated %v)", levels, n.Truncated)
	}
}

// TestTreeJSONSums: top down, on every node of every tree, in the full
// output and cut at several shares, inclusive = exclusive + unplaced +
// the children's inclusive; every node kept is at least the share of its
// tree's traced time, and only "(other)" nodes are under it; the "(other)"
// nodes sum what they fold, so each level's total is the full output's.
func TestTreeJSONSums(t *testing.T) {
	for name, tr := range treeTestTraces(t) {
		t.Run(name, func(t *testing.T) {
			p := profileOf(t, tr, BuildOptions{CallTree: true})
			c := p.Clocks.First()
			total := func(i int) uint64 { // the traced time of thread i, or merged (-1)
				var trees []*CallTree
				for k := range p.Threads {
					if (i < 0 || k == i) && p.Threads[k].Tree != nil {
						trees = append(trees, p.Threads[k].Tree)
					}
				}
				return NewTopDownView(trees, c).Nodes[0].Inclusive[c]
			}
			full := readTreeJSON(t, p, TreeJSONOptions{Clock: c, MaxDepth: -1})
			if full.Cut != nil {
				t.Errorf("full output: cut %+v", *full.Cut)
			}
			for _, share := range []float64{0, DefaultTreeMinShare, 0.05, 0.3} {
				var cut TreeCut
				doc := readTreeJSON(t, p, TreeJSONOptions{Clock: c, MaxDepth: -1, MinShare: share, Cut: &cut})
				var folded int64
				check := func(where string, roots, fullRoots []treejson.Node, traced uint64) {
					minIncl := uint64(math.Ceil(share * float64(traced)))
					if sumIncl(roots) != sumIncl(fullRoots) {
						t.Errorf("share %g, %s: top level sums to %d, full output %d", share, where, sumIncl(roots), sumIncl(fullRoots))
					}
					stack := slices.Clone(roots)
					for len(stack) > 0 {
						n := stack[len(stack)-1]
						stack = append(stack[:len(stack)-1], n.Children...)
						if n.Method == OtherName {
							folded += n.Folded
							if n.Folded < 1 || n.Exclusive != n.Inclusive || len(n.Children) != 0 || n.Inclusive >= max(minIncl, 1) && n.Folded == 1 {
								t.Errorf("share %g, %s: bad %s node %+v", share, where, OtherName, n)
							}
							continue
						}
						if n.Inclusive < minIncl {
							t.Errorf("share %g, %s: %s kept with %d µs, under %d", share, where, n.Method, n.Inclusive, minIncl)
						}
						if got := int64(n.Exclusive) + n.Unplaced + int64(sumIncl(n.Children)); got != int64(n.Inclusive) {
							t.Errorf("share %g, %s: %s: exclusive %d + unplaced %d + children %d = %d, inclusive %d", share, where, n.Method, n.Exclusive, n.Unplaced, sumIncl(n.Children), got, n.Inclusive)
						}
					}
				}
				k := 0
				for i := range p.Threads {
					if p.Threads[i].Records == 0 {
						continue
					}
					check("thread "+p.Threads[i].Name, doc.Threads[k].TopDown, full.Threads[k].TopDown, total(i))
					k++
				}
				check("merged", doc.Merged.TopDown, full.Merged.TopDown, total(-1))
				if folded != cut.Folded || (share == 0) != (doc.Cut == nil) || doc.Cut != nil && doc.Cut.Folded != folded {
					t.Errorf("share %g: %d nodes folded in the trees, reported %+v and %+v", share, folded, cut, doc.Cut)
				}
				t.Logf("share %g: %d nodes folded into %d", share, cut.Folded, cut.Others)
			}
		})
	}
}

func sumIncl(ns []treejson.Node) (s uint64) {
	for _, n := range ns {
		s += n.Inclusive
	}
	return s
}

// TestFoldedDepthCap: the folded output of a deep recursion with time on
// every frame is quadratic in its depth (a line per frame, each as long as
// its path: 3,000 frames wrote 18 MB). By default paths are cut at
// DefaultTreeJSONDepth frames, the time below on one "(truncated)" line, so
// the values still sum to the thread's time; the cut is reported.
func TestFoldedDepthCap(t *testing.T) {
	const depth = 3000
	p := profileOf(t, deepTrace(depth, true), BuildOptions{CallTree: true})
	var out bytes.Buffer
	var cut TreeCut
	if err := WriteFoldedOptions(&out, p, FoldedOptions{Clock: ClockCPU, Cut: &cut}); err != nil {
		t.Fatal(err)
	}
	var def bytes.Buffer
	if err := WriteFolded(&def, p, ClockCPU); err != nil || def.String() != out.String() {
		t.Fatalf("WriteFolded differs from its default options (%v)", err)
	}
	if out.Len() > 1<<20 {
		t.Fatalf("%d-deep recursion: %d bytes of folded stacks, want them cut (under 1 MiB)", depth, out.Len())
	}
	var sum uint64
	truncated := 0
	for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		sp := strings.LastIndexByte(l, ' ')
		v, err := strconv.ParseUint(l[sp+1:], 10, 64)
		if err != nil {
			t.Fatalf("line %q", l)
		}
		sum += v
		frames := strings.Count(l[:sp], ";")
		if strings.HasSuffix(l[:sp], ";"+TruncatedFrame) {
			truncated++
			frames--
		}
		if frames > DefaultTreeJSONDepth {
			t.Fatalf("a line of %d frames, over the cut at %d", frames, DefaultTreeJSONDepth)
		}
	}
	if total := p.Threads[0].Tree.Inclusive(0, ClockCPU); sum != total {
		t.Errorf("values sum to %d, the thread's time is %d", sum, total)
	}
	if truncated != 1 || cut.Truncated != 1 {
		t.Errorf("%d truncated lines, %d cuts reported; want 1", truncated, cut.Truncated)
	}
	var full bytes.Buffer
	if err := WriteFoldedOptions(&full, p, FoldedOptions{Clock: ClockCPU, MaxDepth: -1}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(full.String(), "\n"); n != depth+1 || strings.Contains(full.String(), TruncatedFrame) {
		t.Errorf("MaxDepth -1: %d lines, want %d and no cut", n, depth+1)
	}
}

// TestFlatGraphOfBottomUp: a bottom-up view's FlatGraph has the flat
// profile's calls and times on the view's clock; a range tree's is the
// flat profile of the range.
func TestFlatGraphOfBottomUp(t *testing.T) {
	p := profileOf(t, handTreeTrace(), BuildOptions{CallTree: true})
	for _, c := range []Clock{ClockCPU, ClockWall} {
		var trees []*CallTree
		for i := range p.Threads {
			trees = append(trees, p.Threads[i].Tree)
		}
		g := NewBottomUpView(trees, c).FlatGraph()
		for _, ms := range p.All.Methods {
			s := g.Stats(ms.Index)
			if s.Calls != ms.Calls || s.Inclusive[c] != ms.Inclusive[c] || s.Exclusive[c] != ms.Exclusive[c] {
				t.Errorf("%v, method %d: flat graph %+v, profile %+v", c, ms.Index, s, ms.Stats)
			}
		}
		if g.Total()[c] != p.All.Total()[c] {
			t.Errorf("%v: total %d, profile %d", c, g.Total()[c], p.All.Total()[c])
		}
	}
	if NewTopDownView(nil, ClockCPU).FlatGraph() != nil {
		t.Error("a top-down view has a flat graph")
	}
}
