package sim

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// record turns tracking on and records n allocations.
func record(vm *VM, n int) {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	vm.setAllocTrackingLocked(true)
	vm.recordAllocationsLocked(n)
}

func table(vm *VM) *ddm.Allocations {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.allocationsLocked()
}

// wire encodes and decodes a table, as a monitor receives it.
func wire(t *testing.T, a *ddm.Allocations) *ddm.Allocations {
	t.Helper()
	got, err := ddm.DecodeAllocations(a.AppendBody(nil))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func TestAllocationsOffRecordNothing(t *testing.T) {
	vm := NewVM(VMSpec{PID: 70, App: "a", Family: ART, Threads: 2, Seed: 1})
	vm.mu.Lock()
	vm.recordAllocationsLocked(100)
	vm.mu.Unlock()
	for range 5 {
		vm.Step()
	}
	got := wire(t, table(vm))
	if vm.AllocTracking() || len(got.Entries) != 0 || got.HeaderLen != 15 || got.EntryHeaderLen != 9 || got.FrameLen != 8 {
		t.Fatalf("tracking %v, table %+v", vm.AllocTracking(), got)
	}
}

func TestAllocationsContent(t *testing.T) {
	for _, fam := range []Family{ART, Dalvik} {
		t.Run(fam.String(), func(t *testing.T) {
			vm := NewVM(VMSpec{PID: 71000 + int(fam), App: "a", Package: "org.demo.shop", Family: fam, Threads: 4, Seed: 3})
			record(vm, 3000)
			a := table(vm)
			if got := wire(t, a); !reflect.DeepEqual(got, a) {
				t.Fatal("the table does not survive encoding")
			}
			tids := map[uint16]bool{}
			for _, th := range vm.Threads() {
				if fam == Dalvik {
					tids[uint16(th.ID)] = true
				} else {
					tids[uint16(th.SysTID)] = true
				}
			}
			classes := map[string]int{}
			depths := map[int]int{}
			for _, e := range a.Entries {
				classes[e.Class]++
				depths[len(e.Frames)]++
				if !tids[e.ThreadID] {
					t.Fatalf("thread id %d is none of the VM's %v", e.ThreadID, tids)
				}
				if e.Size == 0 || e.Size%8 != 0 {
					t.Fatalf("size %d", e.Size)
				}
				for _, f := range e.Frames {
					if !(strings.HasPrefix(f.Class, "L") && strings.HasSuffix(f.Class, ";")) || f.Method == "" {
						t.Fatalf("frame %+v is not a descriptor and method", f)
					}
				}
				last := e.Frames[len(e.Frames)-1]
				if len(e.Frames) > 3 && len(e.Frames) < 16 && last.Class != "Ljava/lang/Thread;" && last.Class != "Landroid/os/MessageQueue;" &&
					last.Class != "Ljava/lang/Object;" && last.Class != "Landroid/os/Binder;" {
					t.Fatalf("an uncut stack does not end in a thread's frames: %+v", e.Frames)
				}
			}
			if len(a.Entries) != 3000 {
				t.Fatalf("%d entries", len(a.Entries))
			}
			for _, c := range []string{"Ljava/lang/String;", "[B", "[C", "[I", "Lorg/demo/shop/data/Item;"} {
				if classes[c] == 0 {
					t.Errorf("no %s among %v", c, classes)
				}
			}
			for d := range depths {
				if d < 1 || d > 16 {
					t.Fatalf("stack depth %d", d)
				}
			}
			if depths[1] == 0 || depths[16] == 0 {
				t.Errorf("depths %v: want both 1 and 16", depths)
			}
		})
	}
}

// ART sends the newest record first, Dalvik the oldest first: a table taken
// after more allocations extends the earlier one at its start (ART) or its
// end (Dalvik).
func TestAllocationsOrderByFamily(t *testing.T) {
	for _, fam := range []Family{ART, Dalvik} {
		vm := NewVM(VMSpec{PID: 72, App: "a", Family: fam, Threads: 3, Seed: 4})
		record(vm, 50)
		before := table(vm).Entries
		record(vm, 7)
		after := table(vm).Entries
		var old []ddm.Allocation
		if fam == ART {
			old = after[7:]
		} else {
			old = after[:50]
		}
		if len(after) != 57 || !reflect.DeepEqual(old, before) {
			t.Errorf("%v: the later table does not extend the earlier one in the family's order", fam)
		}
	}
}

// Like ART, at most 65535 records are kept and sent; the oldest go first.
func TestAllocationsCap(t *testing.T) {
	for _, fam := range []Family{ART, Dalvik} {
		vm := NewVM(VMSpec{PID: 73, App: "a", Family: fam, Threads: 2, Seed: 5})
		record(vm, 65535+10)
		full := table(vm).Entries
		record(vm, 100)
		later := table(vm).Entries
		if len(full) != 65535 || len(later) != 65535 {
			t.Fatalf("%v: %d then %d entries", fam, len(full), len(later))
		}
		kept, dropped := later[100:], full[:65535-100] // ART: newest first
		if fam == Dalvik {
			kept, dropped = later[:65535-100], full[100:]
		}
		if !reflect.DeepEqual(kept, dropped) {
			t.Errorf("%v: the 100 oldest records were not the ones replaced", fam)
		}
		if got := wire(t, table(vm)); len(got.Entries) != 65535 {
			t.Errorf("%v: %d entries on the wire", fam, len(got.Entries))
		}
	}
}

func TestAllocationsDeterministic(t *testing.T) {
	run := func(seed uint64) *ddm.Allocations {
		vm := NewVM(VMSpec{PID: 74, App: "a", Family: ART, Threads: 3, Seed: seed})
		record(vm, 500)
		return table(vm)
	}
	if !reflect.DeepEqual(run(8), run(8)) {
		t.Fatal("same seed, different tables")
	}
	if reflect.DeepEqual(run(8), run(9)) {
		t.Fatal("different seeds, same table")
	}
	// Tracking does not change what the rest of the VM does.
	plain := NewVM(VMSpec{PID: 75, App: "a", Family: ART, Threads: 3, Seed: 8})
	tracked := NewVM(VMSpec{PID: 75, App: "a", Family: ART, Threads: 3, Seed: 8})
	record(tracked, 0)
	for range 12 {
		plain.Step()
		tracked.Step()
	}
	if !reflect.DeepEqual(plain.Threads(), tracked.Threads()) || plain.Heap() != tracked.Heap() {
		t.Fatal("tracking changed the simulation")
	}
	if n := len(table(tracked).Entries); n != 12*allocsPerStep {
		t.Fatalf("%d entries after 12 steps, want %d", n, 12*allocsPerStep)
	}
}

// Over JDWP: REAQ, REAE and REAL; tracking belongs to the VM and outlives
// the connection; turning it off drops the records.
func TestAllocationTrackerOverJDWP(t *testing.T) {
	leakcheck.Check(t)
	for _, modern := range []bool{false, true} {
		_, vm, addr := serveOne(t, VMSpec{PID: 76, App: "a", Family: ART, Modern: modern, Threads: 2, Seed: 6})
		var err error
		c := dialVM(t, addr)
		reaq := func() bool {
			t.Helper()
			m, err := ddmRequest(t, c, &ddm.AllocTrackerStatusRequest{}, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			return m.(*ddm.AllocTrackerStatus).Enabled
		}
		reae := func(on bool) {
			t.Helper()
			m, err := ddmRequest(t, c, &ddm.AllocTrackerEnableRequest{Enable: on}, 200*time.Millisecond)
			if modern {
				if err == nil {
					t.Fatalf("modern ART answered REAE with %v", m)
				}
			} else if err != nil || m != nil {
				t.Fatalf("REAE: %v %v", m, err)
			}
		}
		real := func() []ddm.Allocation {
			t.Helper()
			m, err := ddmRequest(t, c, &ddm.AllocationsRequest{}, time.Second)
			if err != nil {
				t.Fatal(err)
			}
			return m.(*ddm.Allocations).Entries
		}
		if reaq() || len(real()) != 0 {
			t.Fatal("tracking on from the start")
		}
		reae(true)
		if !reaq() || !vm.AllocTracking() {
			t.Fatal("REAE 1 did not turn tracking on")
		}
		vm.Step()
		vm.Step()
		if n := len(real()); n != 2*allocsPerStep {
			t.Fatalf("%d entries after two steps", n)
		}
		c.Close()
		// The VM takes one connection at a time: wait until it saw the
		// first one end.
		for deadline := time.Now().Add(2 * time.Second); ; {
			ctx, cancel := context.WithTimeout(context.Background(), time.Second)
			c, err = jdwp.Dial(ctx, addr, jdwp.Options{})
			cancel()
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal(err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		if !reaq() {
			t.Fatal("tracking ended with the connection")
		}
		reae(false)
		if reaq() || len(real()) != 0 {
			t.Fatal("REAE 0 kept tracking or records")
		}
		c.Close()
	}
}

// A tracker running for long drops the stacks its records no longer use,
// and the records keep their stacks.
func TestAllocationStacksCompacted(t *testing.T) {
	vm := NewVM(VMSpec{PID: 77, App: "a", Family: ART, Threads: 2, Seed: 7})
	record(vm, 1000)
	before := table(vm)
	vm.mu.Lock()
	tr := &vm.allocs
	n := len(tr.stacks)
	// Stacks of threads long gone: no record uses them.
	for i := range maxAllocStacks - n {
		tr.stacks = append(tr.stacks, []ddm.AllocFrame{{Class: "LGone;", Method: "m"}})
		tr.keys = append(tr.keys, stackKey{thread: uint32(1000000 + i)})
		tr.stackOf[tr.keys[len(tr.keys)-1]] = uint32(len(tr.stacks) - 1)
	}
	tr.compactStacks()
	kept := len(tr.stacks)
	for k, id := range tr.stackOf {
		if tr.keys[id] != k {
			t.Fatalf("stack %d has key %+v, the index says %+v", id, tr.keys[id], k)
		}
	}
	vm.mu.Unlock()
	if kept != n || len(tr.stackOf) != n {
		t.Fatalf("%d stacks kept (%d indexed), %d in use", kept, len(tr.stackOf), n)
	}
	if after := table(vm); !reflect.DeepEqual(after, before) {
		t.Fatal("compaction changed the table")
	}
	record(vm, 200) // lookups still work after renumbering
	if got := table(vm); len(got.Entries) != 1200 || !reflect.DeepEqual(got.Entries[200:], before.Entries) {
		t.Fatal("records after compaction do not extend the table")
	}
}
