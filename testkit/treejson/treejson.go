// Package treejson reads the call-tree JSON that trace.WriteTreeJSON writes
// (`ddmtui trace FILE --tree --json`) back into nodes with named fields,
// for the tests of the writer and of the commands that print it. It
// checks the layout as it reads: a node of another length than the
// document's "node" header says, a method index outside "methods" or an
// unknown trailing field is an error.
package treejson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Node is one node of a tree.
type Node struct {
	Method      string // the name "methods" gives the node's index
	Inclusive   uint64
	Exclusive   uint64
	Calls       int64
	Samples     uint64 // sampled profiles only
	SelfSamples uint64 // sampled profiles only
	Unplaced    int64  // "unplaced_usec"
	Truncated   bool
	Folded      int64 // "folded_nodes" of an "(other)" node
	Children    []Node
}

// Tree is one thread's (or the merged) trees.
type Tree struct {
	TopDown, BottomUp  []Node
	FromStart, Ignored int64
}

// Thread is one thread of the document.
type Thread struct {
	TID  uint32
	Name string
	Tree
}

// Cut is the document's "cut" section.
type Cut struct {
	MinShare  float64 `json:"min_share"`
	Folded    int64   `json:"folded_nodes"`
	MaxDepth  int     `json:"max_depth"`
	Truncated int64   `json:"truncated_nodes"`
}

// Doc is a whole document.
type Doc struct {
	Clock    string
	Sampling json.RawMessage // nil for method traces
	Fields   []string        // the "node" header
	Threads  []Thread
	Merged   Tree
	Cut      *Cut
	Methods  []string
}

type rawTree struct {
	TopDown   []json.RawMessage `json:"top_down"`
	BottomUp  []json.RawMessage `json:"bottom_up"`
	FromStart int64             `json:"exits_from_start"`
	Ignored   int64             `json:"exits_ignored"`
}

type rawDoc struct {
	Clock    string          `json:"clock"`
	Sampling json.RawMessage `json:"sampling"`
	Node     []string        `json:"node"`
	Threads  []struct {
		TID  uint32 `json:"tid"`
		Name string `json:"name"`
		rawTree
	} `json:"threads"`
	Merged  rawTree  `json:"merged"`
	Cut     *Cut     `json:"cut"`
	Methods []string `json:"methods"`
}

var (
	traced  = []string{"method", "inclusive_usec", "exclusive_usec", "calls", "children"}
	sampled = []string{"method", "inclusive_usec", "exclusive_usec", "calls", "samples", "self_samples", "children"}
)

// Decode reads one document.
func Decode(data []byte) (*Doc, error) {
	var raw rawDoc
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	if !slices.Equal(raw.Node, traced) && !slices.Equal(raw.Node, sampled) {
		return nil, fmt.Errorf("treejson: node fields %q", raw.Node)
	}
	d := &Doc{Clock: raw.Clock, Sampling: raw.Sampling, Fields: raw.Node, Cut: raw.Cut, Methods: raw.Methods}
	var err error
	for _, t := range raw.Threads {
		th := Thread{TID: t.TID, Name: t.Name}
		if th.Tree, err = d.tree(t.rawTree); err != nil {
			return nil, fmt.Errorf("thread %d: %w", t.TID, err)
		}
		d.Threads = append(d.Threads, th)
	}
	if d.Merged, err = d.tree(raw.Merged); err != nil {
		return nil, fmt.Errorf("merged: %w", err)
	}
	return d, nil
}

func (d *Doc) tree(r rawTree) (t Tree, err error) {
	t.FromStart, t.Ignored = r.FromStart, r.Ignored
	if t.TopDown, err = d.nodes(r.TopDown); err != nil {
		return t, err
	}
	t.BottomUp, err = d.nodes(r.BottomUp)
	return t, err
}

func (d *Doc) nodes(raw []json.RawMessage) ([]Node, error) {
	if raw == nil {
		return nil, nil
	}
	out := make([]Node, 0, len(raw))
	for _, r := range raw {
		n, err := d.node(r)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

func (d *Doc) node(r json.RawMessage) (Node, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(r, &elems); err != nil {
		return Node{}, fmt.Errorf("node %.60s: %w", r, err)
	}
	k := len(d.Fields)
	if len(elems) != k && len(elems) != k+1 {
		return Node{}, fmt.Errorf("node %.60s: %d fields, want %d or %d", r, len(elems), k, k+1)
	}
	var n Node
	var idx int
	targets := []any{&idx, &n.Inclusive, &n.Exclusive, &n.Calls}
	if k == len(sampled) {
		targets = append(targets, &n.Samples, &n.SelfSamples)
	}
	for i, p := range targets {
		if err := json.Unmarshal(elems[i], p); err != nil {
			return Node{}, fmt.Errorf("node %.60s: field %q: %w", r, d.Fields[i], err)
		}
	}
	if idx < 0 || idx >= len(d.Methods) {
		return Node{}, fmt.Errorf("node %.60s: method %d of %d", r, idx, len(d.Methods))
	}
	n.Method = d.Methods[idx]
	var children []json.RawMessage
	if err := json.Unmarshal(elems[k-1], &children); err != nil || children == nil {
		return Node{}, fmt.Errorf("node %.60s: children: %v", r, err)
	}
	var err error
	if n.Children, err = d.nodes(children); err != nil {
		return Node{}, err
	}
	if len(elems) == k+1 {
		var extra struct {
			Unplaced  *int64 `json:"unplaced_usec"`
			Truncated *bool  `json:"truncated"`
			Folded    *int64 `json:"folded_nodes"`
		}
		dec := json.NewDecoder(bytes.NewReader(elems[k]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&extra); err != nil {
			return Node{}, fmt.Errorf("node %.60s: trailing object: %w", r, err)
		}
		if extra.Unplaced == nil && extra.Truncated == nil && extra.Folded == nil {
			return Node{}, fmt.Errorf("node %.60s: an empty trailing object", r)
		}
		if extra.Unplaced != nil {
			n.Unplaced = *extra.Unplaced
		}
		if extra.Truncated != nil {
			n.Truncated = *extra.Truncated
		}
		if extra.Folded != nil {
			n.Folded = *extra.Folded
		}
	}
	return n, nil
}
