package monitor

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/record"
	"github.com/ddmtui/ddmtui/scan"
)

// thstEntries encodes a THST reply listing threads in the given order and
// returns its checked entries, as the session reads them.
func thstEntries(t testing.TB, threads ...ddm.ThreadStatus) *ddm.ThreadStatusEntries {
	t.Helper()
	body := (&ddm.ThreadStatusTable{Threads: threads}).AppendBody(nil)
	e, err := ddm.ParseThreadStatusEntries(body)
	if err != nil {
		t.Fatal(err)
	}
	return &e
}

func ts(id uint32, status int8, utime uint32) ddm.ThreadStatus {
	return ddm.ThreadStatus{ID: id, Status: status, SysTID: 1000 + id, UTime: utime, STime: 1, Daemon: id%2 == 0}
}

func ids(rows []Thread) []uint64 {
	out := make([]uint64, len(rows))
	for i := range rows {
		out[i] = rows[i].ID
	}
	return out
}

func TestThreadTableTHST(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var tt threadTable
	tt.insert(Thread{ID: 9, Name: "from-thcr", Status: -1, State: "unknown", Source: SourceDDM, Created: t0, Changed: t0})

	// Threads appear: rows in id order, whatever order the reply has.
	t1 := t0.Add(time.Second)
	if tt.applyTHST(thstEntries(t, ts(3, 1, 10), ts(1, 2, 20), ts(9, 1, 5), ts(5, 4, 0)), ddm.FamilyART, t1, 100) {
		t.Fatal("refused below the cap")
	}
	if got, want := ids(tt.rows), []uint64{1, 3, 5, 9}; !slices.Equal(got, want) {
		t.Fatalf("ids %v, want %v", got, want)
	}
	rows := tt.snapshot()
	r9 := rows[3]
	if r9.Name != "from-thcr" || r9.Created != t0 || r9.Changed != t1 || r9.State != ddm.StatusName(ddm.FamilyART, 1) ||
		r9.SysTID != 1009 || r9.UTime != 5 || r9.STime != 1 || r9.Daemon || r9.Source != SourceDDM {
		t.Errorf("THCR row after THST: %+v", r9)
	}
	r1 := rows[0]
	if r1.Created != t1 || r1.Changed != t1 || r1.Status != 2 || r1.State != ddm.StatusName(ddm.FamilyART, 2) || r1.Daemon || r1.CPUKnown {
		t.Errorf("new row: %+v", r1)
	}

	// Threads vanish (3 and 9), one changes state (1), one is new (7), and
	// CPU%: 1 and 5 were listed by the last reply, 7 was not.
	t2 := t1.Add(2 * time.Second)
	tt.applyTHST(thstEntries(t, ts(1, 2, 120), ts(5, 1, 0), ts(7, 1, 50)), ddm.FamilyART, t2, 100)
	rows = tt.snapshot()
	if got, want := ids(rows), []uint64{1, 5, 7}; !slices.Equal(got, want) {
		t.Fatalf("ids %v, want %v", got, want)
	}
	if r := rows[0]; r.Changed != t1 || !r.CPUKnown || r.CPUPercent != 50 || r.UTime != 120 {
		t.Errorf("thread 1 (same state, 100 ticks in 2 s): %+v", r)
	}
	if r := rows[1]; r.Changed != t2 || r.State != ddm.StatusName(ddm.FamilyART, 1) || !r.CPUKnown || r.CPUPercent != 0 {
		t.Errorf("thread 5 (state changed, no ticks): %+v", r)
	}
	if r := rows[2]; r.Created != t2 || r.CPUKnown {
		t.Errorf("thread 7 (new): %+v", r)
	}
	if len(tt.rows) != len(tt.meta) {
		t.Fatalf("%d rows, %d meta", len(tt.rows), len(tt.meta))
	}

	// THDE and THCR on the sorted table.
	tt.remove(5)
	tt.insert(Thread{ID: 4})
	tt.insert(Thread{ID: 100})
	if got, want := ids(tt.rows), []uint64{1, 4, 7, 100}; !slices.Equal(got, want) {
		t.Fatalf("after THDE/THCR: ids %v, want %v", got, want)
	}
	// A thread THCR added is not CPU-known at its first listing, even if a
	// thread of the same id was listed before (5 died and came back).
	tt.applyTHST(thstEntries(t, ts(1, 2, 120), ts(4, 1, 0), ts(7, 1, 50), ts(100, 1, 0)), ddm.FamilyART, t2.Add(time.Second), 100)
	for _, r := range tt.snapshot() {
		if known := r.ID == 1 || r.ID == 7; r.CPUKnown != known {
			t.Errorf("thread %d: CPUKnown %v", r.ID, r.CPUKnown)
		}
	}
}

func TestThreadTableTHSTCapAndDuplicates(t *testing.T) {
	now := time.Unix(1000, 0)
	var tt threadTable
	tt.applyTHST(thstEntries(t, ts(10, 1, 0), ts(20, 1, 0)), ddm.FamilyDalvik, now, 4)
	// 20 is gone, which makes room: of the new ones, the lowest ids are
	// taken; of a duplicate id, the last entry counts.
	refused := tt.applyTHST(thstEntries(t, ts(50, 1, 0), ts(10, 1, 0), ts(30, 1, 0), ts(5, 1, 0), ts(30, 4, 7), ts(40, 1, 0)), ddm.FamilyDalvik, now, 4)
	if !refused {
		t.Error("the cap refused nothing")
	}
	if got, want := ids(tt.rows), []uint64{5, 10, 30, 40}; !slices.Equal(got, want) {
		t.Fatalf("ids %v, want %v", got, want)
	}
	if r := tt.rows[2]; r.Status != 4 || r.UTime != 7 {
		t.Errorf("duplicate id: %+v, want the last entry", r)
	}
	if tt.applyTHST(thstEntries(t, ts(5, 1, 0), ts(10, 1, 0), ts(30, 4, 7), ts(40, 1, 0)), ddm.FamilyDalvik, now, 4) {
		t.Error("refused at the cap with nothing new")
	}
}

// refTable is the thread table as a map, the way the session kept it before
// the sorted table: the reference the sorted table must agree with. Two
// rules differ from the old code, on purpose: the cap counts the table after
// the threads a reply no longer lists are gone, and a thread THDE removed or
// THCR added has no CPU% at its next listing (the old tracker, keyed by id,
// took the utime of a dead thread of the same id).
type refTable struct {
	rows   map[uint64]*Thread
	prev   map[uint64]int // utime+stime at the last THST, of the threads it listed
	last   time.Time
	family ddm.VMFamily
}

func (r *refTable) thst(entries []ddm.ThreadStatus, now time.Time, maxThreads int) bool {
	seen := map[uint64]bool{}
	var fresh []ddm.ThreadStatus
	for _, e := range entries {
		id := uint64(e.ID)
		seen[id] = true
		th, ok := r.rows[id]
		if !ok {
			fresh = append(fresh, e)
			continue
		}
		r.set(th, e, now)
	}
	for id := range r.rows {
		if !seen[id] {
			delete(r.rows, id)
		}
	}
	slices.SortStableFunc(fresh, cmpStatus)
	fresh = dedupLast(fresh, func(e *ddm.ThreadStatus) uint64 { return uint64(e.ID) })
	refused := false
	for _, e := range fresh {
		if len(r.rows) >= maxThreads {
			refused = true
			break
		}
		th := &Thread{ID: uint64(e.ID), Created: now}
		r.rows[th.ID] = th
		r.set(th, e, now)
	}
	elapsed := now.Sub(r.last).Seconds()
	next := map[uint64]int{}
	for id, th := range r.rows {
		total := th.UTime + th.STime
		next[id] = total
		prev, ok := r.prev[id]
		th.CPUKnown = ok && !r.last.IsZero() && elapsed > 0 && total >= prev
		th.CPUPercent = 0
		if th.CPUKnown {
			th.CPUPercent = float64(total-prev) * (100 / ticksPerSecond / elapsed)
		}
	}
	r.prev, r.last = next, now
	return refused
}

func (r *refTable) set(th *Thread, e ddm.ThreadStatus, now time.Time) {
	state := ddm.StatusName(r.family, int(e.Status))
	if th.State != state {
		th.Changed = now
	}
	th.Status, th.State, th.Source = int(e.Status), state, SourceDDM
	th.SysTID, th.UTime, th.STime, th.Daemon = int(e.SysTID), int(e.UTime), int(e.STime), e.Daemon
}

func (r *refTable) sorted() []Thread {
	out := []Thread{}
	for _, th := range r.rows {
		out = append(out, *th)
	}
	slices.SortFunc(out, func(a, b Thread) int { return cmpID(a.ID, b.ID) })
	return out
}

// The sorted table against the map it replaced, over random replies:
// threads appearing and vanishing, ids listed in order and out of order,
// duplicates, THCR and THDE between replies, and a cap that is reached.
func TestThreadTableAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var tt threadTable
		ref := &refTable{rows: map[uint64]*Thread{}, family: ddm.FamilyART}
		maxThreads := 5 + rng.IntN(40)
		now := time.Unix(5000, 0)
		utime := map[uint32]uint32{}
		for step := range 30 {
			now = now.Add(time.Duration(rng.IntN(3)) * 250 * time.Millisecond) // sometimes no time passes
			switch rng.IntN(6) {
			case 0: // THCR
				id := uint64(rng.IntN(60))
				if tt.get(id) == nil && tt.len() < maxThreads {
					th := Thread{ID: id, Name: "t", Status: -1, State: "unknown", Created: now, Changed: now, Source: SourceDDM}
					tt.insert(th)
					ref.rows[id] = &th
					delete(ref.prev, id) // a new thread: its first listing has no CPU%
				}
				continue
			case 1: // THDE
				id := uint64(rng.IntN(60))
				tt.remove(id)
				delete(ref.rows, id)
				delete(ref.prev, id)
				continue
			}
			var entries []ddm.ThreadStatus
			for id := range uint32(60) {
				if rng.IntN(3) == 0 {
					utime[id] += uint32(rng.IntN(30))
					if rng.IntN(20) == 0 {
						utime[id] = 0 // a counter that went back
					}
					entries = append(entries, ddm.ThreadStatus{ID: id, Status: int8(rng.IntN(10) - 1), SysTID: id + 7, UTime: utime[id], STime: id, Daemon: id%3 == 0})
				}
			}
			switch rng.IntN(4) {
			case 0:
				rng.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
			case 1:
				if len(entries) > 0 {
					d := entries[rng.IntN(len(entries))]
					d.UTime++
					entries = append(entries, d)
				}
			}
			got := tt.applyTHST(thstEntries(t, entries...), ddm.FamilyART, now, maxThreads)
			want := ref.thst(entries, now, maxThreads)
			if got != want {
				t.Fatalf("round %d step %d: refused %v, reference %v", round, step, got, want)
			}
			if snap, exp := tt.snapshot(), ref.sorted(); !slices.EqualFunc(snap, exp, func(a, b Thread) bool { return a == b }) {
				t.Fatalf("round %d step %d: table\n%v\nreference\n%v", round, step, snap, exp)
			}
		}
	}
}

// Once the table has its threads, a THST reply allocates nothing.
func TestThreadTableTHSTAllocatesNothing(t *testing.T) {
	var entries []ddm.ThreadStatus
	for id := range uint32(200) {
		entries = append(entries, ts(id+1, int8(id%8), id))
	}
	e := thstEntries(t, entries...)
	var tt threadTable
	now := time.Unix(1, 0)
	tt.applyTHST(e, ddm.FamilyART, now, DefaultMaxThreads)
	allocs := testing.AllocsPerRun(100, func() {
		now = now.Add(time.Second)
		tt.applyTHST(e, ddm.FamilyART, now, DefaultMaxThreads)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per reply", allocs)
	}
}

// Through the session's reply path: the store gets the sorted table, the
// cap shows on the VM, and an empty or malformed reply is an error (a
// missed poll).
func TestTakeTHSTReplyIntoStore(t *testing.T) {
	store := NewStore(NewBus())
	s := NewSession(scan.Endpoint{Key: "local:1", Source: "local:1"}, store, SessionOptions{MaxThreads: 3})
	s.conn.family = ddm.FamilyART
	s.begin(time.Now())
	reply := func(m ddm.Message) error {
		var data []byte
		if m != nil {
			data = ddm.AppendMessage(nil, m)
		}
		return s.threads.takeTHSTReply(jdwp.NewReply(1, jdwp.ErrNone, data))
	}
	raw := func(data []byte) error { return s.threads.takeTHSTReply(jdwp.NewReply(2, jdwp.ErrNone, data)) }
	if err := reply(&ddm.ThreadStatusTable{Threads: []ddm.ThreadStatus{ts(4, 1, 0), ts(2, 1, 0), ts(8, 1, 0), ts(6, 1, 0)}}); err != nil {
		t.Fatal(err)
	}
	vm, _ := store.VM("local:1")
	if got, want := ids(vm.Threads), []uint64{2, 4, 6}; !slices.Equal(got, want) {
		t.Errorf("store ids %v, want %v", got, want)
	}
	if !vm.TooManyThreads || vm.Err == "" {
		t.Errorf("cap not shown: TooManyThreads %v, Err %q", vm.TooManyThreads, vm.Err)
	}
	if err := reply(nil); err == nil {
		t.Error("an empty reply is not a missed poll")
	}
	if err := raw([]byte{'T', 'H', 'S', 'T', 0, 0, 0, 4, 4, 18, 0, 9}); err == nil { // 9 threads, no entries
		t.Error("a malformed table is not a missed poll")
	}
	if vm2, _ := store.VM("local:1"); fmt.Sprint(ids(vm2.Threads)) != fmt.Sprint(ids(vm.Threads)) {
		t.Errorf("a failed reply changed the table: %v", ids(vm2.Threads))
	}
}

// Issue 18: an older table published after a newer one does not replace it.
func TestStoreKeepsNewerThreadTable(t *testing.T) {
	store := NewStore(NewBus())
	sub := store.Bus().Subscribe()
	defer sub.Close()
	store.UpdateVM("k", func(*VM) {})
	store.setThreads("k", 7, []Thread{{ID: 2}})
	store.setThreads("k", 5, []Thread{{ID: 1}}) // taken before, published after
	vm, _ := store.VM("k")
	if len(vm.Threads) != 1 || vm.Threads[0].ID != 2 {
		t.Errorf("store holds %v, want the table of seq 7", ids(vm.Threads))
	}
	var last []Thread
	for _, ev := range sub.Drain() {
		if tu, ok := ev.(ThreadsUpdated); ok {
			last = tu.Threads
		}
	}
	if len(last) != 1 || last[0].ID != 2 {
		t.Errorf("bus delivered %v last, want the table of seq 7", ids(last))
	}
	store.SetThreads("k", []Thread{{ID: 3}}) // unordered: always applied
	if vm, _ := store.VM("k"); vm.Threads[0].ID != 3 {
		t.Errorf("SetThreads did not apply: %v", ids(vm.Threads))
	}
}

// artSession is a session of an ART VM ("local:1") begun at t0, with no
// connection: the tests hand it chunks.
func artSession() (*Store, *Session, time.Time) {
	store := NewStore(NewBus())
	s := NewSession(scan.Endpoint{Key: "local:1", Source: "local:1"}, store, SessionOptions{})
	s.conn.family = ddm.FamilyART
	t0 := time.Unix(100, 0)
	s.begin(t0)
	return store, s, t0
}

// A table that changes while a flush is pending is published at once when
// the last publish is 100 ms old: a THST reply does not wait for the timer
// (a replay has none, only the flushes the live timer recorded).
func TestTHSTPublishedWhenDue(t *testing.T) {
	store, s, t0 := artSession()
	s.handle(&ddm.ThreadCreated{ID: 1, Name: "main"}, t0)                       // published
	s.handle(&ddm.ThreadCreated{ID: 2, Name: "w"}, t0.Add(10*time.Millisecond)) // pending
	if vm, _ := store.VM("local:1"); len(vm.Threads) != 1 {
		t.Fatalf("store holds %d threads, want the first publish's 1", len(vm.Threads))
	}
	s.threads.applyStatus(thstEntries(t, ts(1, 1, 5), ts(2, 1, 5), ts(3, 1, 5)), t0.Add(150*time.Millisecond))
	if vm, _ := store.VM("local:1"); len(vm.Threads) != 3 || vm.Threads[0].Name != "main" {
		t.Errorf("after a THST 150 ms on: store holds %v", ids(vm.Threads))
	}
	s.threads.applyStatus(thstEntries(t, ts(1, 1, 5)), t0.Add(200*time.Millisecond)) // 50 ms later: waits
	if vm, _ := store.VM("local:1"); len(vm.Threads) != 3 {
		t.Errorf("a THST 50 ms after a publish was published at once: %v", ids(vm.Threads))
	}
}

// A reply sets Status; the name (State) is looked up when the table is read
// (snapshot, get), and Changed is when the reply that changed Status came,
// not when the table was read. A change of VM family renames every row at
// the reply that brought it.
func TestThreadTableNamesStatusWhenRead(t *testing.T) {
	t0 := time.Unix(2000, 0)
	var tt threadTable
	tt.applyTHST(thstEntries(t, ts(1, 1, 0), ts(2, 2, 0)), ddm.FamilyDalvik, t0, 10)
	t1, t2, t3 := t0.Add(time.Second), t0.Add(2*time.Second), t0.Add(3*time.Second)
	tt.applyTHST(thstEntries(t, ts(1, 4, 0), ts(2, 2, 0)), ddm.FamilyDalvik, t1, 10) // 1 changes
	tt.applyTHST(thstEntries(t, ts(1, 4, 0), ts(2, 2, 0)), ddm.FamilyDalvik, t2, 10) // nothing changes
	if r := tt.rows[0]; r.State != "running" {
		t.Errorf("row before it is read: State %q, want the name it had (running)", r.State)
	}
	if r := tt.get(1); r == nil || r.State != "wait" || r.Changed != t1 {
		t.Fatalf("get(1): %+v, want wait since %v", r, t1)
	}
	rows := tt.snapshot()
	if r := rows[1]; r.State != "timed-wait" || r.Changed != t0 {
		t.Errorf("thread 2: %q since %v, want timed-wait since %v", r.State, r.Changed, t0)
	}
	// Status 2 is "sleeping" on ART: renamed at t3, though the number stays.
	tt.applyTHST(thstEntries(t, ts(1, 4, 0), ts(2, 2, 0)), ddm.FamilyART, t3, 10)
	rows = tt.snapshot()
	if r := rows[1]; r.State != "sleeping" || r.Changed != t3 {
		t.Errorf("thread 2 on ART: %q since %v, want sleeping since %v", r.State, r.Changed, t3)
	}
	if r := rows[0]; r.State != "wait" || r.Changed != t1 {
		t.Errorf("thread 1 on ART: %q since %v, want wait since %v (same name)", r.State, r.Changed, t1)
	}
	// A status that changes and changes back between two reads leaves the
	// row's State and Changed as they were.
	tt.applyTHST(thstEntries(t, ts(1, 1, 0), ts(2, 2, 0)), ddm.FamilyART, t3.Add(100*time.Millisecond), 10)
	tt.applyTHST(thstEntries(t, ts(1, 4, 0), ts(2, 2, 0)), ddm.FamilyART, t3.Add(200*time.Millisecond), 10)
	if r := tt.snapshot()[0]; r.State != "wait" || r.Changed != t1 {
		t.Errorf("thread 1 after wait, running, wait between reads: %q since %v, want wait since %v", r.State, r.Changed, t1)
	}
	// A row another source set (JDWP's status numbers) is renamed by the
	// first reply that lists it.
	tt.replace([]Thread{{ID: 1, Status: 4, State: "jdwp-wait", Source: SourceJDWP, Changed: t0}})
	t4 := t3.Add(time.Second)
	tt.applyTHST(thstEntries(t, ts(1, 4, 0)), ddm.FamilyART, t4, 10)
	if r := tt.snapshot()[0]; r.State != "wait" || r.Changed != t4 || r.Source != SourceDDM {
		t.Errorf("JDWP row after THST: %+v, want wait since %v from DDM", r, t4)
	}
}

// A thread's name from a VM is kept to MaxThreadName bytes, cut at a
// character boundary with "…", at creation and at a rename; a name that
// fits is kept as it came.
func TestThreadNamesBounded(t *testing.T) {
	store, s, t0 := artSession()
	long := "ä" + strings.Repeat("é", 300_000) // 2-byte characters, an odd start
	s.handle(&ddm.ThreadCreated{ID: 1, Name: long}, t0)
	s.handle(&ddm.ThreadCreated{ID: 2, Name: "main"}, t0.Add(200*time.Millisecond))
	vm, _ := store.VM("local:1")
	if len(vm.Threads) != 2 {
		t.Fatalf("threads %v", ids(vm.Threads))
	}
	got := vm.Threads[0].Name
	if len(got) > MaxThreadName || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
		t.Errorf("created: %d bytes, valid %v, ends %q", len(got), utf8.ValidString(got), got[max(0, len(got)-8):])
	}
	if vm.Threads[1].Name != "main" {
		t.Errorf("a short name: %q", vm.Threads[1].Name)
	}
	s.handle(&ddm.ThreadRenamed{ID: 2, Name: strings.Repeat("x", 5000)}, t0.Add(400*time.Millisecond))
	if vm, _ = store.VM("local:1"); len(vm.Threads[1].Name) != MaxThreadName || !strings.HasSuffix(vm.Threads[1].Name, "…") {
		t.Errorf("renamed: %d bytes", len(vm.Threads[1].Name))
	}
	if n := threadName(strings.Repeat("y", MaxThreadName)); len(n) != MaxThreadName || strings.HasSuffix(n, "…") {
		t.Errorf("exactly the bound: cut to %d bytes", len(n))
	}
}

// TestThreadTablesCharged: a VM's thread table is charged to the store's
// share of the process-wide budget at each publish (rows and names); a
// VM that floods THCR past that share keeps what it has, takes no new
// thread (THCR or THST) and says why, the charge stays within a publish's
// growth of the limit, and the session's end gives every byte back.
func TestThreadTablesCharged(t *testing.T) {
	store, s, t0 := artSession()
	if store.threadBudget.Parent() != budget.Process {
		t.Fatal("the thread tables are not a share of the process's budget")
	}
	s.handle(&ddm.ThreadCreated{ID: 1, Name: "main"}, t0)
	want := threadRowCost + int64(len("main"))
	if got := store.threadBudget.Used(); got != want {
		t.Fatalf("one thread charged %d, want %d", got, want)
	}
	name := strings.Repeat("n", 1000)
	perThread := threadRowCost + int64(len(name))
	limit := 50 * perThread
	store.threadBudget.SetLimit(limit)
	now := t0
	for id := uint32(2); id < 200; id++ {
		now = now.Add(150 * time.Millisecond) // each one published
		s.handle(&ddm.ThreadCreated{ID: id, Name: name}, now)
	}
	vm, _ := store.VM("local:1")
	if n := len(vm.Threads); n < 45 || n > 52 {
		t.Errorf("%d threads kept under a share of 50", n)
	}
	// What is held is charged, exactly, even past the share.
	var held int64
	for _, th := range vm.Threads {
		held += threadRowCost + int64(len(th.Name))
	}
	if used := store.threadBudget.Used(); used != held || used > limit+perThread {
		t.Errorf("the thread tables hold %d bytes, charged %d (share %d)", held, used, limit)
	}
	if !vm.TooManyThreads || !strings.Contains(vm.Err, "the thread tables hold") {
		t.Errorf("the VM does not say why its threads stop: %v %q", vm.TooManyThreads, vm.Err)
	}
	// A THST reply listing every thread and new ones adds none while over
	// the budget.
	var listed []ddm.ThreadStatus
	for _, th := range vm.Threads {
		listed = append(listed, ts(uint32(th.ID), 1, 5))
	}
	before := len(vm.Threads)
	s.threads.applyStatus(thstEntries(t, append(listed, ts(500, 1, 5), ts(501, 1, 5))...), now.Add(200*time.Millisecond))
	if vm, _ = store.VM("local:1"); len(vm.Threads) != before {
		t.Errorf("a THST reply took the table from %d threads to %d past the budget", before, len(vm.Threads))
	}
	// An unchanged table publishing again stays over budget until the
	// budget has room (here: a larger share; live, another VM's table
	// shrinking), then takes threads again.
	s.threads.applyStatus(thstEntries(t, listed...), now.Add(300*time.Millisecond))
	if !s.threads.overBudget {
		t.Error("the table took threads again without room")
	}
	store.threadBudget.SetLimit(4 * limit)
	s.threads.applyStatus(thstEntries(t, listed...), now.Add(450*time.Millisecond))
	if s.threads.overBudget {
		t.Error("still over budget with room in the budget")
	}
	store.threadBudget.SetLimit(limit)
	// Threads gone give their bytes back; a new one is taken.
	s.threads.applyStatus(thstEntries(t, ts(1, 1, 5)), now.Add(600*time.Millisecond))
	if used := store.threadBudget.Used(); used != threadRowCost+4 {
		t.Errorf("one thread left charges %d, want %d", used, threadRowCost+4)
	}
	s.handle(&ddm.ThreadCreated{ID: 900, Name: "back"}, now.Add(800*time.Millisecond))
	s.handle(&ddm.ThreadCreated{ID: 901, Name: "again"}, now.Add(time.Second))
	if vm, _ = store.VM("local:1"); len(vm.Threads) != 3 {
		t.Errorf("with room again: threads %v", ids(vm.Threads))
	}
	s.end(now.Add(2*time.Second), "test", false)
	if used := store.threadBudget.Used(); used != 0 {
		t.Errorf("after the session's end the thread tables still hold %d bytes", used)
	}
	// A stray input after the end charges nothing.
	s.threads.change(now.Add(3*time.Second), func(t *threadTable) {
		t.insert(Thread{ID: 7, Name: "late"})
	})
	if used := store.threadBudget.Used(); used != 0 {
		t.Errorf("a change after the end charged %d bytes", used)
	}
}

// TestReplayThreadTablesGiveBack: a replay's VMs charge their thread
// tables as live ones do, and a seek back or Close gives the bytes back
// (the replay drops its sessions without ending them).
func TestReplayThreadTablesGiveBack(t *testing.T) {
	key := "local:8000"
	tab := &ddm.ThreadStatusTable{Threads: []ddm.ThreadStatus{{ID: 1, Status: 1}, {ID: 2, Status: 4}}}
	rec := recordingOf(
		record.Record{Time: 0, Kind: record.KindEndpoint, Key: key, Data: []byte(`{"source":"local:8000","pid":0}`)},
		record.Record{Time: 10 * time.Millisecond, Kind: record.KindChunk, Key: key, Data: chunkData(&ddm.Hello{ClientVersion: 1, PID: 777, VMIdent: "Dalvik v2.1.0", AppName: "com.example"})},
		record.Record{Time: time.Second, Kind: record.KindChunk, Key: key, Data: chunkData(tab)},
	)
	store := NewStore(NewBus())
	p := NewReplay(rec, store)
	p.Seek(2 * time.Second)
	if used := store.threadBudget.Used(); used != 2*threadRowCost {
		t.Fatalf("two replayed threads charge %d, want %d", used, 2*threadRowCost)
	}
	p.Seek(0)
	if used := store.threadBudget.Used(); used != 0 {
		t.Errorf("after a seek back the thread tables hold %d bytes", used)
	}
	p.Seek(2 * time.Second)
	p.Close()
	if used := store.threadBudget.Used(); used != 0 {
		t.Errorf("after Close the thread tables hold %d bytes", used)
	}
}

// TestJDWPThreadsCapped: a non-DDM VM's polled table takes at most
// MaxThreads threads (the poller asks about no more; a recording may hold
// more) and says so, and none while the thread budget is spent.
func TestJDWPThreadsCapped(t *testing.T) {
	store := NewStore(NewBus())
	s := NewSession(scan.Endpoint{Key: "local:1", Source: "local:1"}, store, SessionOptions{MaxThreads: 5})
	t0 := time.Unix(100, 0)
	s.begin(t0)
	var rows []jdwpThread
	for id := range uint64(8) {
		rows = append(rows, jdwpThread{ID: id + 1, Name: fmt.Sprint("t", id+1), Status: 1})
	}
	s.threads.applyJDWP(rows, t0)
	vm, _ := store.VM("local:1")
	if len(vm.Threads) != 5 || vm.Threads[4].ID != 5 || !vm.TooManyThreads || !strings.Contains(vm.Err, "more than 5") {
		t.Fatalf("8 polled threads under a cap of 5: %v, too many %v %q", ids(vm.Threads), vm.TooManyThreads, vm.Err)
	}
	// Past the budget (a share of three threads) the poll that passed it
	// is kept, charged in full; a table that shrank then does not grow
	// again without room.
	store.threadBudget.SetLimit(3 * (threadRowCost + 2))
	s.threads.applyJDWP(rows[:2], t0.Add(time.Second))
	s.threads.applyJDWP(rows, t0.Add(2*time.Second))
	if vm, _ = store.VM("local:1"); len(vm.Threads) != 5 || !s.threads.overBudget || store.threadBudget.Used() != 5*(threadRowCost+2) {
		t.Fatalf("past a share of 3 threads: %v, over budget %v, %d bytes charged", ids(vm.Threads), s.threads.overBudget, store.threadBudget.Used())
	}
	s.threads.applyJDWP(rows[:1], t0.Add(3*time.Second))
	s.threads.applyJDWP(rows, t0.Add(4*time.Second))
	if vm, _ = store.VM("local:1"); len(vm.Threads) != 1 {
		t.Errorf("over the budget a poll grew the table to %v", ids(vm.Threads))
	}
}

// TestProcThreadsCappedAndCharged: a device VM's /proc table keeps at most
// MaxThreads threads and says so, is charged to the thread budget as the
// other sources' tables are, and grows no more while that budget is spent.
func TestProcThreadsCappedAndCharged(t *testing.T) {
	store := NewStore(NewBus())
	s := NewSession(scan.Endpoint{Key: "adb:x:4242", Source: "adb:x", PID: 4242}, store, SessionOptions{MaxThreads: 5})
	t0 := time.Unix(100, 0)
	s.begin(t0)
	stat := func(n int) []byte {
		var b []byte
		for tid := 4242; tid < 4242+n; tid++ {
			b = fmt.Appendf(b, "%d (w%d) S 1 2 0 0 -1 4194560 616 0 0 0 7 3 0 0 20 0 1 0 24 0 0\n", tid, tid)
		}
		return b
	}
	s.src.applyProcStat(stat(8), t0)
	vm, _ := store.VM("adb:x:4242")
	if len(vm.Threads) != 5 || !vm.TooManyThreads {
		t.Fatalf("8 tasks under a cap of 5: %v, too many %v", ids(vm.Threads), vm.TooManyThreads)
	}
	var held int64
	for _, th := range vm.Threads {
		held += threadRowCost + int64(len(th.Name))
	}
	if used := store.threadBudget.Used(); used != held {
		t.Errorf("the /proc table charges %d, holds %d", used, held)
	}
	store.threadBudget.SetLimit(held / 2)
	s.src.applyProcStat(stat(2), t0.Add(time.Second))
	s.src.applyProcStat(stat(8), t0.Add(2*time.Second)) // passes the share: over budget
	if !s.threads.overBudget {
		t.Fatal("a /proc table past the share is not over budget")
	}
	s.src.applyProcStat(stat(2), t0.Add(3*time.Second))
	s.src.applyProcStat(stat(8), t0.Add(4*time.Second))
	if vm, _ = store.VM("adb:x:4242"); len(vm.Threads) != 2 {
		t.Errorf("over the budget the /proc table grew to %v", ids(vm.Threads))
	}
	s.end(t0.Add(5*time.Second), "test", false)
	if used := store.threadBudget.Used(); used != 0 {
		t.Errorf("after the end %d bytes are charged", used)
	}
}
