package trace

import (
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

type jsonTreeNode struct {
	Method    string         `json:"method"`
	Inclusive uint64         `json:"inclusive_usec"`
	Exclusive uint64         `json:"exclusive_usec"`
	Calls     int64          `json:"calls"`
	Truncated bool           `json:"truncated"`
	Children  []jsonTreeNode `json:"children"`
}

type jsonTrees struct {
	Clock   string `json:"clock"`
	Threads []struct {
		TID       uint32         `json:"tid"`
		Name      string         `json:"name"`
		TopDown   []jsonTreeNode `json:"top_down"`
		BottomUp  []jsonTreeNode `json:"bottom_up"`
		FromStart int64          `json:"exits_from_start"`
		Ignored   int64          `json:"exits_ignored"`
	} `json:"threads"`
	Merged struct {
		TopDown   []jsonTreeNode `json:"top_down"`
		BottomUp  []jsonTreeNode `json:"bottom_up"`
		FromStart int64          `json:"exits_from_start"`
		Ignored   int64          `json:"exits_ignored"`
	} `json:"merged"`
}

func readTreeJSON(t *testing.T, p *Profile, opt TreeJSONOptions) jsonTrees {
	t.Helper()
	var b bytes.Buffer
	if err := WriteTreeJSON(&b, p, opt); err != nil {
		t.Fatal(err)
	}
	var doc jsonTrees
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
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
	want := `{"clock": "wall", "threads": [
{"tid": 1, "name": "main", "top_down": [{"method": "x.A.a ()V", "inclusive_usec": 36, "exclusive_usec": 16, "calls": 1, "children": [{"method": "x.A.a ()V", "inclusive_usec": 12, "exclusive_usec": 4, "calls": 1, "children": [{"method": "x.C.c ()V", "inclusive_usec": 8, "exclusive_usec": 8, "calls": 1, "children": []}]},{"method": "x.C.c ()V", "inclusive_usec": 8, "exclusive_usec": 8, "calls": 1, "children": [{"method": "x.B.b ()V", "inclusive_usec": 0, "exclusive_usec": 0, "calls": 1, "children": []}]}]},{"method": "x.B.b ()V", "inclusive_usec": 20, "exclusive_usec": 0, "calls": 1, "children": []}], "exits_from_start": 1, "exits_ignored": 1},
{"tid": 2, "name": "bg", "top_down": [{"method": "x.A.a ()V", "inclusive_usec": 20, "exclusive_usec": 12, "calls": 1, "children": [{"method": "x.C.c ()V", "inclusive_usec": 8, "exclusive_usec": 8, "calls": 1, "children": []}]}]}],
"merged": {"top_down": [{"method": "x.A.a ()V", "inclusive_usec": 56, "exclusive_usec": 28, "calls": 2, "children": [{"method": "x.C.c ()V", "inclusive_usec": 16, "exclusive_usec": 16, "calls": 2, "children": [{"method": "x.B.b ()V", "inclusive_usec": 0, "exclusive_usec": 0, "calls": 1, "children": []}]},{"method": "x.A.a ()V", "inclusive_usec": 12, "exclusive_usec": 4, "calls": 1, "children": [{"method": "x.C.c ()V", "inclusive_usec": 8, "exclusive_usec": 8, "calls": 1, "children": []}]}]},{"method": "x.B.b ()V", "inclusive_usec": 20, "exclusive_usec": 0, "calls": 1, "children": []}], "exits_from_start": 1, "exits_ignored": 1}}
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
			var stack []jsonTreeNode
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
	if err := WriteFolded(&out, p, ClockCPU); err != nil {
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
