package trace

import (
	"bufio"
	"io"
	"math"
	"strconv"
)

// TreeJSONOptions configure WriteTreeJSON.
type TreeJSONOptions struct {
	Clock    Clock
	BottomUp bool // bottom-up trees ("bottom_up") instead of top-down ("top_down")
	// MaxDepth cuts the trees below this many levels (0: DefaultTreeJSONDepth,
	// negative: none); a node whose children are cut has "truncated": true.
	// Most JSON readers refuse documents nested deeper than a few thousand
	// levels (Go's encoding/json: 10,000; Python's json: about 1,000).
	MaxDepth int
	// MinShare keeps the nodes whose inclusive time is at least this share
	// of their tree's (a thread's, or the merged tree's) traced time (0:
	// every node; the CLI's default is DefaultTreeMinShare); the rest of a
	// node's children are folded into one child, OtherName, whose
	// inclusive and exclusive times and calls are their sums, so that
	// inclusive = exclusive + children still holds (top down).
	MinShare float64
	// Cut, when set, receives what the document left out.
	Cut *TreeCut
}

// DefaultTreeJSONDepth is the default of TreeJSONOptions.MaxDepth.
const DefaultTreeJSONDepth = 256

// DefaultTreeMinShare is the CLI's default TreeJSONOptions.MinShare: 0.1%,
// pprof's habit (its node fraction). On the 10 M-record anchor of
// docs/PERFORMANCE.md it takes the JSON from 722 MB to a few MB.
const DefaultTreeMinShare = 0.001

// OtherName is the method name of the node that stands for the children
// a cut folded.
const OtherName = "(other)"

// TreeCut counts what WriteTreeJSON left out.
type TreeCut struct {
	// Folded: nodes folded into "(other)" children (each counted once,
	// with their subtrees not counted), and Others: such children written.
	Folded, Others int64
	// Truncated: nodes whose children were cut at MaxDepth.
	Truncated int64
}

// Any reports whether anything was left out.
func (c TreeCut) Any() bool { return c.Folded > 0 || c.Truncated > 0 }

// WriteTreeJSON writes the call trees of p (built with
// BuildOptions.CallTree) as one JSON document, a method table and trees of
// nodes that name their method by its index in it (issue 39 #2: the size
// of the output follows the nodes it keeps, not their names):
//
//	{"clock": "thread-cpu", "node": ["method", "inclusive_usec", "exclusive_usec", "calls", "children"],
//	 "threads": [{"tid": 1, "name": "main", "top_down": [NODE…]}], "merged": {"top_down": [NODE…]},
//	 "methods": ["CLASS.METHOD SIGNATURE", …]}
//
// with NODE = [METHOD, INCLUSIVE, EXCLUSIVE, CALLS, [NODE…]] in the order
// "node" names (a sampled profile's nodes also carry "samples" and
// "self_samples" before the children), METHOD an index into "methods",
// children ordered by inclusive time, descending; "bottom_up" instead of
// "top_down" with BottomUp. A node that has more to say ends with an
// object: {"unplaced_usec": …}, {"truncated": true}, {"folded_nodes": …}.
// Top down, inclusive = exclusive + the children's inclusive on every
// node, except below a node cut at MaxDepth ("truncated", no children) and
// for a call that began before the trace: its callees ran before it ended
// but were placed under the root, and the part of its inclusive time they
// took is "unplaced_usec" (inclusive = exclusive + unplaced + children).
// With MinShare the nodes under the share are folded into OtherName
// children ("folded_nodes": how many) and the document has "cut":
// {"min_share": …, "folded_nodes": …, "truncated_nodes": …}. A thread (and
// "merged") also has "exits_from_start" and "exits_ignored" when some of
// its records had no place in the tree (see CallTree.FromStart). Threads
// without records are left out. The document is compact (one line per
// thread) and written as the trees are walked, so memory stays near one
// top-level node's subtree; "methods", the names the trees used, comes
// last.
func WriteTreeJSON(w io.Writer, p *Profile, opt TreeJSONOptions) error {
	maxDepth := opt.MaxDepth
	if maxDepth == 0 {
		maxDepth = DefaultTreeJSONDepth
	}
	key := "top_down"
	if opt.BottomUp {
		key = "bottom_up"
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	tw := treeJSONWriter{bw: bw, index: make([]int32, len(p.Methods)+1), c: opt.Clock, maxDepth: maxDepth, minShare: max(opt.MinShare, 0), topDown: !opt.BottomUp, sampled: p.Sampling != nil}
	bw.WriteString(`{"clock": `)
	bw.Write(appendJSONString(nil, p.ClockName(opt.Clock)))
	if p.Sampling != nil {
		bw.Write(p.Sampling.appendJSON([]byte(`, "sampling": `)))
		bw.WriteString(`, "node": ["method", "inclusive_usec", "exclusive_usec", "calls", "samples", "self_samples", "children"]`)
	} else {
		bw.WriteString(`, "node": ["method", "inclusive_usec", "exclusive_usec", "calls", "children"]`)
	}
	bw.WriteString(`, "threads": [`)
	var all []*CallTree
	k := 0
	for i := range p.Threads {
		tp := &p.Threads[i]
		if tp.Records == 0 {
			continue
		}
		if tp.Tree == nil {
			return ErrNoCallTree
		}
		all = append(all, tp.Tree)
		if k > 0 {
			bw.WriteByte(',')
		}
		k++
		bw.WriteString("\n{\"tid\": ")
		bw.WriteString(strconv.FormatUint(uint64(tp.ID), 10))
		bw.WriteString(`, "name": `)
		bw.Write(appendJSONString(nil, tp.Name))
		tw.tree(", ", key, newTreeView([]*CallTree{tp.Tree}, opt.BottomUp, opt.Clock, nil), tp.Tree.FromStart, tp.Tree.Ignored)
		bw.WriteByte('}')
	}
	bw.WriteString("],\n\"merged\": {")
	merged := newTreeView(all, opt.BottomUp, opt.Clock, nil)
	var fromStart, ignored int64
	for _, t := range all {
		fromStart += t.FromStart
		ignored += t.Ignored
	}
	tw.tree("", key, merged, fromStart, ignored)
	bw.WriteString("}")
	if tw.minShare > 0 || tw.cut.Truncated > 0 {
		bw.WriteString(",\n\"cut\": {\"min_share\": ")
		bw.WriteString(strconv.FormatFloat(tw.minShare, 'g', -1, 64))
		bw.WriteString(`, "folded_nodes": `)
		bw.WriteString(strconv.FormatInt(tw.cut.Folded, 10))
		bw.WriteString(`, "max_depth": `)
		bw.WriteString(strconv.Itoa(max(maxDepth, 0)))
		bw.WriteString(`, "truncated_nodes": `)
		bw.WriteString(strconv.FormatInt(tw.cut.Truncated, 10))
		bw.WriteString("}")
	}
	bw.WriteString(",\n\"methods\": [")
	for i, m := range tw.methods {
		if i > 0 {
			bw.WriteString(", ")
		}
		name := OtherName
		if int(m) < len(p.Methods) {
			name = p.Methods[m].FullName()
			if sig := p.Methods[m].Signature; sig != "" {
				name += " " + sig
			}
		}
		bw.Write(appendJSONString(tw.buf[:0], name))
	}
	bw.WriteString("]}\n")
	if opt.Cut != nil {
		*opt.Cut = tw.cut
	}
	return bw.Flush()
}

type treeJSONWriter struct {
	bw *bufio.Writer
	// index is each method's index in "methods" plus one (0: not used
	// yet); its last entry is OtherName's. methods lists them in order.
	index    []int32
	methods  []int32
	c        Clock
	maxDepth int
	minShare float64
	topDown  bool
	sampled  bool // a sampled profile: nodes also carry their samples
	buf      []byte
	ends     []nodeEnd // what the nodes open on the walk's path say at their end
	// minIncl is the least inclusive time kept in the tree being written
	// (0: all).
	minIncl uint64
	cut     TreeCut
}

// tree writes `PREFIX"KEY": [NODE…]` and the unplaced counts.
func (tw *treeJSONWriter) tree(prefix, key string, v *TreeView, fromStart, ignored int64) {
	bw := tw.bw
	bw.WriteString(prefix)
	bw.WriteByte('"')
	bw.WriteString(key)
	bw.WriteString(`": [`)
	tw.writeNodes(v)
	bw.WriteByte(']')
	if fromStart > 0 {
		bw.WriteString(`, "exits_from_start": `)
		bw.WriteString(strconv.FormatInt(fromStart, 10))
	}
	if ignored > 0 {
		bw.WriteString(`, "exits_ignored": `)
		bw.WriteString(strconv.FormatInt(ignored, 10))
	}
}

// writeNodes writes the root's children and their subtrees, depth first
// without recursion; the subtree of each finished top-level node is let go.
// Children are in descending inclusive time, so the first one under the
// share kept starts the run that is folded into "(other)".
func (tw *treeJSONWriter) writeNodes(v *TreeView) {
	tw.minIncl = 0
	if tw.minShare > 0 {
		tw.minIncl = uint64(math.Ceil(tw.minShare * float64(v.Nodes[0].Inclusive[tw.c])))
	}
	v.Expand(0)
	keep := len(v.Nodes) // the root and its children
	n, depth := v.Nodes[0].FirstChild, 1
	if n >= 0 && tw.below(v, n) {
		tw.writeOther(v, n, true)
		return
	}
	first := true
	for n >= 0 {
		nd := &v.Nodes[n]
		b := tw.buf[:0]
		if !first {
			b = append(b, ',')
		}
		b = tw.appendNode(b, nd.Method, nd.Inclusive[tw.c], nd.Self[tw.c], nd.Calls)
		if tw.sampled {
			b = appendSampleCounts(b, nd)
		}
		var end nodeEnd
		descend := v.HasChildren(n)
		if descend && tw.maxDepth > 0 && depth >= tw.maxDepth {
			end.truncated = true
			tw.cut.Truncated++
			descend = false
		} else if tw.topDown {
			end.unplaced = tw.unplaced(v, n)
		}
		tw.ends = append(tw.ends, end)
		b = append(b, ",["...)
		tw.bw.Write(b)
		tw.buf = b
		if descend {
			c := v.firstChild(n)
			if !tw.below(v, c) {
				n, depth, first = c, depth+1, true
				continue
			}
			tw.writeOther(v, c, true)
		}
		// Close this node and every ancestor that has no next sibling; a
		// next sibling under the share is folded with the rest of its
		// level, which closes that level too.
		for {
			tw.closeNode()
			if depth == 1 {
				v.trimTo(keep, n)
			}
			if next := v.Nodes[n].NextSibling; next >= 0 {
				if !tw.below(v, next) {
					n = next
					break
				}
				tw.writeOther(v, next, false)
			}
			n = v.Nodes[n].Parent
			depth--
			if n <= 0 {
				n = -1
				break
			}
		}
		first = false
	}
}

// nodeEnd is what a node says after its children.
type nodeEnd struct {
	unplaced  int64
	truncated bool
}

// appendNode appends `[METHOD, INCLUSIVE, EXCLUSIVE, CALLS`, giving the
// method its index in "methods" when it is first used (method
// len(index)-1 is OtherName).
func (tw *treeJSONWriter) appendNode(b []byte, method int32, incl, excl uint64, calls int64) []byte {
	k := tw.index[method]
	if k == 0 {
		tw.methods = append(tw.methods, method)
		k = int32(len(tw.methods))
		tw.index[method] = k
	}
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(k-1), 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, incl, 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, excl, 10)
	b = append(b, ',')
	return strconv.AppendInt(b, calls, 10)
}

// closeNode ends the children of the innermost node open and the node.
func (tw *treeJSONWriter) closeNode() {
	end := tw.ends[len(tw.ends)-1]
	tw.ends = tw.ends[:len(tw.ends)-1]
	switch {
	case end.truncated:
		tw.bw.WriteString(`],{"truncated": true}]`)
	case end.unplaced != 0:
		b := append(tw.buf[:0], `],{"unplaced_usec": `...)
		b = strconv.AppendInt(b, end.unplaced, 10)
		tw.buf = append(b, "}]"...)
		tw.bw.Write(tw.buf)
	default:
		tw.bw.WriteString("]]")
	}
}

// below reports whether node n is under the share kept.
func (tw *treeJSONWriter) below(v *TreeView, n int32) bool {
	return v.Nodes[n].Inclusive[tw.c] < tw.minIncl
}

// unplaced is node n's inclusive time less its exclusive time and its
// children's inclusive times (top down: 0 but for a call that began before
// the trace).
func (tw *treeJSONWriter) unplaced(v *TreeView, n int32) int64 {
	nd := &v.Nodes[n]
	d := int64(nd.Inclusive[tw.c]) - int64(nd.Self[tw.c])
	for c := v.firstChild(n); c >= 0; c = v.Nodes[c].NextSibling {
		d -= int64(v.Nodes[c].Inclusive[tw.c])
	}
	return d
}

// writeOther writes one "(other)" node for n and its later siblings:
// their sums, as a leaf.
func (tw *treeJSONWriter) writeOther(v *TreeView, n int32, first bool) {
	var incl, samples uint64
	var calls, folded int64
	for ; n >= 0; n = v.Nodes[n].NextSibling {
		incl += v.Nodes[n].Inclusive[tw.c]
		samples += v.Nodes[n].Inclusive[ClockCPU]
		calls += v.Nodes[n].Calls
		folded++
	}
	tw.cut.Folded += folded
	tw.cut.Others++
	b := tw.buf[:0]
	if !first {
		b = append(b, ',')
	}
	b = tw.appendNode(b, int32(len(tw.index)-1), incl, incl, calls)
	if tw.sampled {
		// A sampled profile's counts are summed as its times are.
		b = appendSampleCounts(b, &ViewNode{Inclusive: [2]uint64{ClockCPU: samples}, Self: [2]uint64{ClockCPU: samples}})
	}
	b = append(b, `,[],{"folded_nodes": `...)
	b = strconv.AppendInt(b, folded, 10)
	b = append(b, "}]"...)
	tw.bw.Write(b)
	tw.buf = b
}
