package simpleperf

import "fmt"

// chains turns the call chains of a stream read with rawChains into
// methods (frameMethod's), decoding only what a thread's previous sample
// did not have: a thread's consecutive samples share their outer frames,
// and the entries of a shared frame are the same bytes at the same
// distance from the chain's end (the root). The entries are compared from
// the root, byte for byte; those that differ are decoded (and checked)
// and interned.
type chains struct {
	fm      frameMethod
	byID    map[int32]*chainThread
	last    *chainThread
	scratch Frame
}

// chainThread is a thread's previous sample: its entries' bytes (as
// Reader.chainBytes), where each entry starts counted from their end
// (leaf first), and its methods, root first.
type chainThread struct {
	id      int32
	bytes   []byte
	ends    []int32
	methods []int32
}

func (c *chains) thread(id int32) *chainThread {
	if c.last != nil && c.last.id == id {
		return c.last
	}
	if c.byID == nil {
		c.byID = map[int32]*chainThread{}
	}
	t := c.byID[id]
	if t == nil {
		t = &chainThread{id: id}
		c.byID[id] = t
	}
	c.last = t
	return t
}

// methods appends the methods of rd's current sample, root first, to out,
// and keeps the sample as its thread's previous one.
func (c *chains) methods(rd *Reader, out []int32) ([]int32, error) {
	t := c.thread(rd.Sample.ThreadID)
	cur, ends := rd.chainBytes, rd.chainEnds
	n, pn := len(ends), len(t.ends)
	total, ptotal := int32(len(cur)), int32(len(t.bytes))
	// The entries whose bounds match, from the root; then their bytes,
	// at once (most often the same), else entry by entry.
	same, d := 0, int32(0)
	for same < n && same < pn {
		e := total - entryStart(ends, n-1-same)
		if e != ptotal-entryStart(t.ends, pn-1-same) {
			break
		}
		same, d = same+1, e
	}
	if string(cur[total-d:]) != string(t.bytes[ptotal-d:]) {
		k := 0
		for ; k < same; k++ {
			i, j := n-1-k, pn-1-k
			if string(cur[entryStart(ends, i):ends[i]]) != string(t.bytes[entryStart(t.ends, j):t.ends[j]]) {
				break
			}
		}
		same = k
	}
	base := len(out)
	out = append(out, t.methods[:same]...)
	for i := n - 1 - same; i >= 0; i-- {
		f := &c.scratch
		if err := decodeFrame(f, entryBody(cur[entryStart(ends, i):ends[i]])); err != nil {
			return out, fmt.Errorf("sample.callchain[%d]: %w", i, err)
		}
		out = append(out, c.fm.of(f))
	}
	t.methods = append(t.methods[:0], out[base:]...)
	t.ends = append(t.ends[:0], ends...)
	t.bytes = append(t.bytes[:0], cur...)
	return out, nil
}

func entryStart(ends []int32, i int) int32 {
	if i == 0 {
		return 0
	}
	return ends[i-1]
}
