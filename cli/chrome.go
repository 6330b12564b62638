package cli

import (
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/ddmtui/ddmtui/chrometrace"
	"github.com/ddmtui/ddmtui/monitor"
)

// Chrome trace-event JSON of a recording, written through chrometrace (the
// one writer of the format, which trace's method-call export uses too): one
// process track per VM, one thread track per thread holding its states as
// complete ("X") slices, and per VM counters ("C") for each heap (max,
// size, allocated bytes) and for the process memory (PSS, Java, native
// KiB). Times are microseconds since the recording started.

type chromeThread struct {
	state string
	since time.Duration
}

type chromeVM struct {
	pid     int
	threads map[uint64]*chromeThread
	named   map[uint64]string
	heaps   map[int][3]uint64
	memAt   time.Time
	label   string
}

type chromeWriter struct {
	doc    *chrometrace.Writer
	vms    map[string]*chromeVM
	nextID int
}

func (cw *chromeWriter) emit(e chrometrace.Event) { cw.doc.Event(e) }

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// writeChrome replays rec instant by instant and writes what changed.
func writeChrome(w io.Writer, rec *monitor.Recording) error {
	cw := &chromeWriter{doc: chrometrace.NewWriter(w, nil), vms: map[string]*chromeVM{}}
	store := monitor.NewStore(monitor.NewBus())
	p := monitor.NewReplay(rec, store)
	recs := rec.Records
	for i := 0; i < len(recs); {
		t := recs[i].Time
		keys := map[string]bool{}
		for ; i < len(recs) && recs[i].Time == t; i++ {
			if recs[i].Key != "" {
				keys[recs[i].Key] = true
			}
		}
		p.Seek(t)
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			vm, ok := store.VM(k)
			if !ok {
				cw.gone(k, t)
				continue
			}
			cw.update(vm, t)
		}
	}
	end := rec.Duration()
	keys := make([]string, 0, len(cw.vms))
	for k := range cw.vms {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		cw.gone(k, end)
	}
	_, err := cw.doc.Close()
	return err
}

// update emits what changed in vm at t.
func (cw *chromeWriter) update(vm monitor.VM, t time.Duration) {
	v := cw.vms[vm.Key]
	label := fmt.Sprintf("%s (pid %d, %s)", orDash(vm.App), vm.PID, vm.Key)
	if v == nil {
		cw.nextID++
		v = &chromeVM{pid: cw.nextID, threads: map[uint64]*chromeThread{}, named: map[uint64]string{}, heaps: map[int][3]uint64{}}
		cw.vms[vm.Key] = v
	}
	if v.label != label {
		v.label = label
		cw.emit(chrometrace.Event{Name: "process_name", Ph: "M", Pid: v.pid, Args: map[string]any{"name": label}})
	}
	seen := make(map[uint64]bool, len(vm.Threads))
	for _, th := range vm.Threads {
		seen[th.ID] = true
		if v.named[th.ID] != th.Name {
			v.named[th.ID] = th.Name
			cw.emit(chrometrace.Event{Name: "thread_name", Ph: "M", Pid: v.pid, Tid: th.ID, Args: map[string]any{"name": th.Name}})
		}
		cur := v.threads[th.ID]
		switch {
		case cur == nil:
			v.threads[th.ID] = &chromeThread{state: th.State, since: t}
		case cur.state != th.State:
			cw.slice(v, th.ID, cur, t)
			cur.state, cur.since = th.State, t
		}
	}
	for id, cur := range v.threads {
		if !seen[id] {
			cw.slice(v, id, cur, t)
			delete(v.threads, id)
		}
	}
	for _, h := range vm.Heaps {
		vals := [3]uint64{h.MaxBytes, h.SizeBytes, h.AllocatedBytes}
		if old, ok := v.heaps[h.ID]; ok && old == vals {
			continue
		}
		v.heaps[h.ID] = vals
		cw.emit(chrometrace.Event{Name: fmt.Sprintf("heap %d (bytes)", h.ID), Ph: "C", Ts: us(t), Pid: v.pid,
			Args: map[string]any{"max": h.MaxBytes, "size": h.SizeBytes, "allocated": h.AllocatedBytes}})
	}
	if m := vm.Memory; m != nil && !m.Updated.Equal(v.memAt) {
		v.memAt = m.Updated
		args := map[string]any{}
		for name, p := range map[string]*int64{"pss": m.Info.TotalPSS, "java": m.Info.JavaHeap, "native": m.Info.NativeHeap} {
			if p != nil {
				args[name] = *p
			}
		}
		cw.emit(chrometrace.Event{Name: "memory (KiB)", Ph: "C", Ts: us(t), Pid: v.pid, Args: args})
	}
}

// gone closes the slices of a VM that went away at t.
func (cw *chromeWriter) gone(key string, t time.Duration) {
	v := cw.vms[key]
	if v == nil {
		return
	}
	ids := make([]uint64, 0, len(v.threads))
	for id := range v.threads {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		cw.slice(v, id, v.threads[id], t)
	}
	delete(cw.vms, key)
}

func (cw *chromeWriter) slice(v *chromeVM, tid uint64, th *chromeThread, end time.Duration) {
	d := us(end - th.since)
	cw.emit(chrometrace.Event{Name: th.state, Cat: "thread_state", Ph: "X", Ts: us(th.since), Dur: &d, Pid: v.pid, Tid: tid})
}
