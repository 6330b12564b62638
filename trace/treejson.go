package trace

import (
	"bufio"
	"io"
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
}

// DefaultTreeJSONDepth is the default of TreeJSONOptions.MaxDepth.
const DefaultTreeJSONDepth = 256

// WriteTreeJSON writes the call trees of p (built with
// BuildOptions.CallTree) as one JSON document:
//
//	{"clock": "thread-cpu", "threads": [{"tid": 1, "name": "main", "top_down": [NODE…]}], "merged": {"top_down": [NODE…]}}
//
// with NODE = {"method": "CLASS.METHOD SIGNATURE", "inclusive_usec": …,
// "exclusive_usec": …, "calls": …, "children": [NODE…]}, children ordered
// by inclusive time, descending; "bottom_up" instead of "top_down" with
// BottomUp. A thread (and "merged") also has "exits_from_start" and
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
	tw := treeJSONWriter{bw: bw, names: names, c: opt.Clock, maxDepth: maxDepth, sampled: p.Sampling != nil}
	bw.WriteString(`{"clock": `)
	bw.Write(appendJSONString(nil, p.ClockName(opt.Clock)))
	if p.Sampling != nil {
		bw.Write(p.Sampling.appendJSON([]byte(`, "sampling": `)))
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
	bw.WriteString("}}\n")
	return bw.Flush()
}

type treeJSONWriter struct {
	bw       *bufio.Writer
	names    []string
	c        Clock
	maxDepth int
	sampled  bool // a sampled profile: nodes also carry their samples
	buf      []byte
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
func (tw *treeJSONWriter) writeNodes(v *TreeView) {
	bw := tw.bw
	b := tw.buf
	v.Expand(0)
	keep := len(v.Nodes) // the root and its children
	n, depth := v.Nodes[0].FirstChild, 1
	first := true
	for n >= 0 {
		nd := &v.Nodes[n]
		b = b[:0]
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
		if tw.sampled {
			b = appendSampleCounts(b, nd)
		}
		descend := v.HasChildren(n)
		if descend && tw.maxDepth > 0 && depth >= tw.maxDepth {
			b = append(b, `, "truncated": true`...)
			descend = false
		}
		b = append(b, `, "children": [`...)
		bw.Write(b)
		if descend {
			n = v.firstChild(n)
			depth++
			first = true
			continue
		}
		// Close this node and every ancestor that has no next sibling.
		for {
			bw.WriteString("]}")
			if depth == 1 {
				v.trimTo(keep, n)
			}
			if next := v.Nodes[n].NextSibling; next >= 0 {
				n = next
				break
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
	tw.buf = b
}
