package threaddump

import "strings"

// maxInterned bounds the parser's table of shared strings; past it, strings
// are copied alone (a dump of all-different names gains nothing from it).
const maxInterned = 1 << 20

// intern returns s as a string of its own, shared with every equal string
// of the dump seen before: the class, method, source, library and lock type
// of a frame repeat across threads (Looper.loop, libc's syscall, …).
func (p *parser) intern(s string) string {
	if s == "" {
		return ""
	}
	if v, ok := p.strs[s]; ok {
		return v
	}
	c := strings.Clone(s)
	if len(p.strs) < maxInterned {
		if p.strs == nil {
			p.strs = map[string]string{}
		}
		p.strs[c] = c
	}
	return c
}

// compact makes a finished thread hold its own text instead of slices of
// its lines (each field used to keep its whole line alive), shares the
// strings that repeat, and trims its lists to their length. A dump's model
// then costs about its frames' structures plus its distinct text, which
// keeps `anr --json` on a large dump within a few times the file.
func (p *parser) compact(t *Thread) {
	in := p.intern
	t.Name = strings.Clone(t.Name)
	t.State, t.Group, t.Cgroup, t.Sched = in(t.State), in(t.Group), in(t.Cgroup), in(t.Sched)
	t.KernelState, t.StackSize = in(t.KernelState), in(t.StackSize)
	t.Obj, t.Self, t.Handle = strings.Clone(t.Obj), strings.Clone(t.Self), strings.Clone(t.Handle)
	t.SchedStat, t.Stack = strings.Clone(t.SchedStat), strings.Clone(t.Stack)
	for i := range t.HeaderFlags {
		t.HeaderFlags[i] = in(t.HeaderFlags[i])
	}
	for i := range t.HeldMutexes {
		t.HeldMutexes[i] = in(t.HeldMutexes[i])
	}
	for i := range t.ExtraDetails {
		d := &t.ExtraDetails[i]
		d.Key, d.Value = in(d.Key), strings.Clone(d.Value)
	}
	if len(t.Frames) < cap(t.Frames) {
		t.Frames = append([]Frame(nil), t.Frames...)
	}
	for i := range t.Frames {
		f := &t.Frames[i]
		f.Class, f.Method, f.Source = in(f.Class), in(f.Method), in(f.Source)
		f.PC, f.Location, f.Text = in(f.PC), in(f.Location), in(f.Text)
	}
	if len(t.Locks) < cap(t.Locks) {
		t.Locks = append([]Lock(nil), t.Locks...)
	}
	for i := range t.Locks {
		l := &t.Locks[i]
		l.Object, l.Type, l.HeldByName = strings.Clone(l.Object), in(l.Type), in(l.HeldByName)
	}
}
