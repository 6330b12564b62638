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
// BuildOptions.CallTree) as one JSON document:
//
//	{"clock": "thread-cpu", "threads": [{"tid": 1, "name": "main", "top_down": [NODE…]}], "merged": {"top_down": [NODE…]}}
//
// with NODE = {"method": "CLASS.METHOD SIGNATURE", "inclusive_usec": …,
// "exclusive_usec": …, "calls": …, "children": [NODE…]}, children ordered
// by inclusive time, descending; "bottom_up" instead of "top_down" with
// BottomUp. Top down, inclusive = exclusive + the children's inclusive on
// every node, except below a node cut at MaxDepth ("truncated": true, no
// children) and for a call that began before the trace: its callees ran
// before it ended but were placed under the root, and the part of its
// inclusive time they took is "unplaced_usec" (inclusive = exclusive +
// unplaced + children). With MinShare the nodes under the share are folded
// into "(other)" children ("folded_nodes": how many) and the document ends
// with "cut": {"min_share": …, "folded_nodes": …, "truncated_nodes": …}. A thread (and "merged") also has "exits_from_start" and
// "exits_ignored" when some of its records had no place in the tree (see
// CallTree.FromStart). Threads without records are left out. The document
// is compact (one line per thread) and written as the trees are walked, so
// memory stays near one top-level node's subtree.
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
	names := make([]string, len(p.Methods))
	for i := range names {
		m := &p.Methods[i]
		names[i] = m.FullName()
		if m.Signature != "" {
			names[i] += " " + m.Signature
		}
	}
	tw := treeJSONWriter{bw: bw, names: names, c: opt.Clock, maxDepth: maxDepth, minShare: max(opt.MinShare, 0), topDown: !opt.BottomUp}
	bw.WriteString(`{"clock": `)
	bw.Write(appendJSONString(nil, opt.Clock.String()))
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
	bw.WriteString("}\n")
	if opt.Cut != nil {
		*opt.Cut = tw.cut
	}
	return bw.Flush()
}

type treeJSONWriter struct {
	bw       *bufio.Writer
	names    []string
	c        Clock
	maxDepth int
	minShare float64
	topDown  bool
	buf      []byte
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
		b = append(b, `{"method": `...)
		b = appendJSONString(b, tw.names[nd.Method])
		b = append(b, `, "inclusive_usec": `...)
		b = strconv.AppendUint(b, nd.Inclusive[tw.c], 10)
		b = append(b, `, "exclusive_usec": `...)
		b = strconv.AppendUint(b, nd.Self[tw.c], 10)
		b = append(b, `, "calls": `...)
		b = strconv.AppendInt(b, nd.Calls, 10)
		descend := v.HasChildren(n)
		if descend && tw.maxDepth > 0 && depth >= tw.maxDepth {
			b = append(b, `, "truncated": true`...)
			tw.cut.Truncated++
			descend = false
		} else if tw.topDown {
			if d := tw.unplaced(v, n); d != 0 {
				b = append(b, `, "unplaced_usec": `...)
				b = strconv.AppendInt(b, d, 10)
			}
		}
		b = append(b, `, "children": [`...)
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
			tw.bw.WriteString("]}")
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
	var incl uint64
	var calls, folded int64
	for ; n >= 0; n = v.Nodes[n].NextSibling {
		incl += v.Nodes[n].Inclusive[tw.c]
		calls += v.Nodes[n].Calls
		folded++
	}
	tw.cut.Folded += folded
	tw.cut.Others++
	b := tw.buf[:0]
	if !first {
		b = append(b, ',')
	}
	b = append(b, `{"method": `...)
	b = appendJSONString(b, OtherName)
	b = append(b, `, "inclusive_usec": `...)
	b = strconv.AppendUint(b, incl, 10)
	b = append(b, `, "exclusive_usec": `...)
	b = strconv.AppendUint(b, incl, 10)
	b = append(b, `, "calls": `...)
	b = strconv.AppendInt(b, calls, 10)
	b = append(b, `, "folded_nodes": `...)
	b = strconv.AppendInt(b, folded, 10)
	b = append(b, `, "children": []}`...)
	tw.bw.Write(b)
	tw.buf = b
}
