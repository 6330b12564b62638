package trace

// CallTree is one thread's calling-context tree: a node per distinct call
// path from the top level, with the calls made on that path and the time
// spent there. Node 0 is the top level (the thread itself).
type CallTree struct {
	Nodes   []CallNode
	childOf indexTable // parent<<32 | method → node
}

// CallNode is one call path: its method, its parent node, how many calls
// ended on this path, their total time, and the time spent on top of the
// stack in this exact path (what a flame graph draws).
type CallNode struct {
	Parent    int32 // -1 for the root
	Method    int32 // profile index; TopLevel for the root
	Calls     int64
	Inclusive [2]uint64 // every call on this path, recursive paths included
	Self      [2]uint64
}

func newCallTree() *CallTree {
	return &CallTree{Nodes: []CallNode{{Parent: -1, Method: TopLevel}}}
}

func (t *CallTree) child(parent, method int32) int32 {
	k, added := t.childOf.getOrPut(uint64(uint32(parent))<<32|uint64(uint32(method)), int32(len(t.Nodes)))
	if added {
		t.Nodes = append(t.Nodes, CallNode{Parent: parent, Method: method})
	}
	return k
}

func (t *CallTree) addSelf(node int32, d [2]uint64) {
	n := &t.Nodes[node]
	n.Self[0] += d[0]
	n.Self[1] += d[1]
}

func (t *CallTree) addCall(node int32, el [2]uint64) {
	n := &t.Nodes[node]
	n.Calls++
	n.Inclusive[0] += el[0]
	n.Inclusive[1] += el[1]
}

func (t *CallTree) swapClocks() {
	for i := range t.Nodes {
		n := &t.Nodes[i]
		n.Inclusive[0], n.Inclusive[1] = n.Inclusive[1], n.Inclusive[0]
		n.Self[0], n.Self[1] = n.Self[1], n.Self[0]
	}
}

// Path returns the methods from the root's first child down to node.
func (t *CallTree) Path(node int32) []int32 {
	var rev []int32
	for n := node; n > 0; n = t.Nodes[n].Parent {
		rev = append(rev, t.Nodes[n].Method)
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
