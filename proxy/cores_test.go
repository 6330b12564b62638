package proxy

import (
	"testing"
	"time"
)

// freeCores counts what the rest of the machine leaves idle: the busy
// share of all CPUs less this process's own CPU time.
func TestFreeCores(t *testing.T) {
	a := cpuSample{busy: 1000, total: 4000, ok: true}
	for _, c := range []struct {
		name string
		b    cpuSample
		want float64
	}{
		// 2 CPUs, 1 s: 200 of 200 ticks busy, none ours: nothing free.
		{"others busy", cpuSample{busy: 1200, total: 4200}, 0},
		// Half busy, all of it ours (a poll): both cores free for others.
		{"our own polls", cpuSample{busy: 1100, total: 4200, self: time.Second}, 2},
		// Half busy, none ours: one core free.
		{"one burner", cpuSample{busy: 1100, total: 4200}, 1},
		// Idle.
		{"idle", cpuSample{busy: 1000, total: 4200}, 2},
		// A clock that did not move, or went back: no claim of use.
		{"no ticks", cpuSample{busy: 1000, total: 4000}, 2},
	} {
		if got := freeCores(a, c.b, time.Second, 2); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("%s: %.3f free cores, want %.3f", c.name, got, c.want)
		}
	}
}

// The gate closes when others leave pollFreeCores or less free (a busy job
// beside the VM's and the debugger's turns), stays open when they leave
// a core (the VM's and the debugger's turns alone), and opens again
// when they stop, one sample interval later; between samples it keeps its
// answer without reading; with nothing to read it stays open.
func TestCoreGate(t *testing.T) {
	now := time.Unix(1000, 0)
	var reads int
	s := cpuSample{ok: true}
	busyCores := 0.0 // cores others keep busy (a tick per core per 10 ms)
	g := &coreGate{cpus: 2, now: func() time.Time { return now }, read: func() cpuSample {
		reads++
		return s
	}}
	g.free.Store(true)
	step := func(d time.Duration) {
		now = now.Add(d)
		ticks := uint64(d / (10 * time.Millisecond) * 2)
		s.total += ticks
		s.busy += uint64(busyCores * float64(d/(10*time.Millisecond)))
	}
	if !g.ok() || reads != 1 {
		t.Fatalf("first sample: open %v after %d reads, want open after 1", g.ok(), reads)
	}
	busyCores = 2 // every CPU busy with others' work
	step(coreSampleEvery)
	if g.ok() {
		t.Fatal("others keep both cores busy: the gate is open")
	}
	step(coreSampleEvery / 2)
	if g.ok() || reads != 2 {
		t.Fatalf("between samples: open %v after %d reads, want the last answer (closed) and no read", g.ok(), reads)
	}
	busyCores = 1.6 // a job beside the VM and the debugger: 0.4 free
	step(coreSampleEvery)
	if g.ok() {
		t.Fatal("0.4 cores free: the gate is open")
	}
	busyCores = 1 // the VM's and the debugger's turns: one core free
	step(coreSampleEvery)
	if !g.ok() {
		t.Fatal("one core free: the gate is closed")
	}
	busyCores = 2
	step(coreSampleEvery)
	busyCores = 0
	step(coreSampleEvery)
	if !g.ok() {
		t.Fatal("the machine idle again: the gate stays closed")
	}
	s.ok = false
	busyCores = 2
	step(coreSampleEvery)
	if !g.ok() {
		t.Fatal("nothing to read: the gate is closed")
	}
	var nilGate *coreGate
	if !nilGate.ok() {
		t.Fatal("no gate: closed")
	}
}

// A proxy whose gate says no core is free polls for no reply, however
// quick the replies are, and counts them as waits not polled for.
func TestSpinGatedWithoutFreeCore(t *testing.T) {
	needPolling(t)
	// Every CPU busy, none of it ours.
	busy := &coreGate{cpus: 2, now: time.Now, read: func() cpuSample {
		return cpuSample{busy: uint64(time.Now().UnixNano()), total: uint64(time.Now().UnixNano()), ok: true}
	}}
	busy.free.Store(false)
	busy.sampled.Store(true)
	r, c := spinRigGate(t, 50*time.Millisecond, 0, busy)
	versions(t, c, 200, 0)
	r.proxy.mu.Lock()
	var decided int64 = -1
	for _, e := range r.proxy.entries {
		if e.dbg != nil {
			decided = e.dbg.spin.rule.n.Load()
		}
	}
	r.proxy.mu.Unlock()
	if decided != 0 {
		t.Fatalf("no core free: the rule decided %d round trips, want none (-1: no debugger found)", decided)
	}
	s := r.proxy.SpinStats()
	if s.ReplyPolls != 0 || s.CommandPolls != 0 || s.ReplyPlain < 150 || s.ReplyGated != s.ReplyPlain || s.CommandGated != s.CommandPlain {
		t.Fatalf("no core free: %+v, want no polls and the quick waits counted as not polled, by the gate", s)
	}
}

// readCPU reads this machine's counters.
func TestReadCPU(t *testing.T) {
	s := readCPU()
	if !s.ok {
		t.Skip("no /proc/stat here")
	}
	if s.total == 0 || s.busy > s.total {
		t.Fatalf("sample %+v", s)
	}
}
