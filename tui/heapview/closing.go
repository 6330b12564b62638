package heapview

// isClosed reports whether Close was called.
func (v *View) isClosed() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.closed
}

// release ends a background search: the last one after Close closes the
// dump Close left open. It reports whether the view is closed.
func (v *View) release() bool {
	v.mu.Lock()
	v.busy--
	var m *Model
	if v.closed && v.busy == 0 {
		m, v.loaded = v.loaded, nil
	}
	closed := v.closed
	v.mu.Unlock()
	if m != nil {
		m.Close()
	}
	return closed
}
