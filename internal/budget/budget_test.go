package budget

import (
	"bytes"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestTakeGiveLimitEdges(t *testing.T) {
	b := New(100)
	if !b.Take(60) || !b.Take(40) {
		t.Fatal("takes up to the limit exactly were refused")
	}
	if b.Take(1) || b.Fits(1) || !b.Fits(0) {
		t.Fatal("a take past the limit was allowed")
	}
	b.Give(100)
	if b.Used() != 0 || b.Peak() != 100 {
		t.Fatalf("used %d peak %d", b.Used(), b.Peak())
	}
	free := New(0)
	if !free.Take(1<<40) || free.Used() != 1<<40 {
		t.Fatal("an unlimited budget refused or did not count")
	}
	var none *Budget
	if !none.Take(5) || !none.Fits(1<<60) || none.Used() != 0 {
		t.Fatal("a nil budget bounds or counts")
	}
	none.Give(5)
}

// A child's take must fit its parent too; a refusal by the parent holds
// nothing in the child; two children together stay within the parent.
func TestChildDrawsFromParent(t *testing.T) {
	p := New(100)
	a, b := p.Child(80), p.Child(80)
	if a.Parent() != p || p.Parent() != nil {
		t.Fatal("Parent does not name the budget a child draws from")
	}
	if !a.Take(70) {
		t.Fatal("refused within both")
	}
	if b.Take(40) || b.Used() != 0 || p.Used() != 70 {
		t.Fatalf("the parent's limit was passed: child %d parent %d", b.Used(), p.Used())
	}
	if b.Fits(40) || !b.Fits(30) {
		t.Fatal("Fits ignores the parent")
	}
	if !b.Take(30) || p.Used() != 100 {
		t.Fatal(p.Used())
	}
	a.Give(70)
	b.Give(30)
	if p.Used() != 0 || a.Used() != 0 || b.Used() != 0 || p.Peak() != 100 {
		t.Fatalf("parent %d peak %d", p.Used(), p.Peak())
	}
}

func TestConcurrentTakesNeverPassTheLimit(t *testing.T) {
	p := New(1000)
	c := p.Child(0)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 10000 {
				if c.Take(7) {
					if p.Used() > 1000 {
						t.Error("passed the limit")
					}
					c.Give(7)
				}
			}
		}()
	}
	wg.Wait()
	if p.Used() != 0 || c.Used() != 0 || p.Peak() > 1000 {
		t.Fatalf("used %d %d peak %d", p.Used(), c.Used(), p.Peak())
	}
}

// holder is a reclaimer's holder for the tests: it keeps pieces of a
// budget and lets go of the oldest ones, as a log ring does.
type holder struct {
	mu     sync.Mutex
	b      *Budget
	what   string
	pieces []int64
	asked  *[]string
}

func (h *holder) add(n int64) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.b.TakeBefore(n, RankLog) {
		return false
	}
	h.pieces = append(h.pieces, n)
	return true
}

func (h *holder) reclaim(need int64) (int64, string) {
	if !h.mu.TryLock() {
		return 0, ""
	}
	defer h.mu.Unlock()
	if h.asked != nil {
		*h.asked = append(*h.asked, h.what)
	}
	var freed int64
	for freed < need && len(h.pieces) > 0 {
		freed += h.pieces[0]
		h.pieces = h.pieces[1:]
	}
	h.b.Give(freed)
	return freed, h.what
}

// A take that does not fit asks the reclaimers that hold bytes of the full
// budget, cheapest rank first, and stops asking once there is room; each
// drop is counted, noted and logged once.
func TestTakeReclaimsCheapestFirst(t *testing.T) {
	p := New(100)
	var logged bytes.Buffer
	p.SetLog(slog.New(slog.NewTextHandler(&logged, nil)))
	var asked []string
	pics := &holder{b: p.Child(0), what: "pictures", asked: &asked}
	logs := &holder{b: p.Child(0), what: "logs", asked: &asked}
	maps := &holder{b: p.Child(0), what: "maps", asked: &asked}
	defer logs.b.Reclaimer(RankLog, logs.reclaim)()
	defer maps.b.Reclaimer(RankHeapMap, maps.reclaim)()
	defer pics.b.Reclaimer(RankPicture, pics.reclaim)()
	if p.Reclaimers() != 3 {
		t.Fatalf("%d reclaimers", p.Reclaimers())
	}
	for _, h := range []*holder{logs, maps, pics} {
		for range 3 {
			if !h.add(10) {
				t.Fatal("refused within the limit")
			}
		}
	}
	packets := p.Child(50)
	if !packets.Take(25) { // 90 held: 15 must go, pictures first
		t.Fatal("a live take was refused although room could be made")
	}
	if len(pics.pieces) != 1 || len(maps.pieces) != 3 || len(logs.pieces) != 3 || p.Used() != 95 {
		t.Fatalf("pictures %d maps %d logs %d, used %d", len(pics.pieces), len(maps.pieces), len(logs.pieces), p.Used())
	}
	if !slices.Equal(asked, []string{"pictures"}) {
		t.Fatalf("asked %v", asked)
	}
	if !packets.Take(20) { // 115: the last picture, then maps
		t.Fatal("refused")
	}
	if !slices.Equal(asked, []string{"pictures", "pictures", "maps"}) || len(maps.pieces) != 2 || len(logs.pieces) != 3 {
		t.Fatalf("asked %v, maps %d logs %d", asked, len(maps.pieces), len(logs.pieces))
	}
	st := p.Stats()
	if st.Drops != 3 || st.DroppedBytes != 40 || st.LastDrop != "dropped 1 KiB: maps" || st.Used != 95 || st.Limit != 100 || st.Peak != 95 {
		t.Fatalf("stats %+v", st)
	}
	if n := strings.Count(logged.String(), "dropped to make room"); n != 3 {
		t.Fatalf("%d log lines for 3 drops:\n%s", n, logged.String())
	}
	// The packet's own share is what is full now: nothing any reclaimer
	// holds is within it, so nothing is dropped for it.
	if packets.Take(10) || p.Stats().Drops != 3 {
		t.Fatalf("a take past its own share dropped others' bytes: %+v", p.Stats())
	}
}

// A holder's TakeBefore asks only cheaper ranks: a log that floods does not
// take another log's entries, and a refused take holds nothing.
func TestTakeBeforeAsksOnlyCheaperRanks(t *testing.T) {
	p := New(50)
	a := &holder{b: p.Child(0), what: "a"}
	b := &holder{b: p.Child(0), what: "b"}
	pic := &holder{b: p.Child(0), what: "picture"}
	defer a.b.Reclaimer(RankLog, a.reclaim)()
	defer b.b.Reclaimer(RankLog, b.reclaim)()
	defer pic.b.Reclaimer(RankPicture, pic.reclaim)()
	pic.add(10)
	for range 2 {
		a.add(10)
		b.add(10)
	}
	if !a.add(10) || len(pic.pieces) != 0 || len(b.pieces) != 2 {
		t.Fatalf("pictures %d, b %d", len(pic.pieces), len(b.pieces))
	}
	if a.add(10) || len(b.pieces) != 2 || p.Used() != 50 || a.b.Used() != 30 {
		t.Fatalf("a log took another log's room: b %d used %d", len(b.pieces), p.Used())
	}
	// A live take (a packet) may ask every reclaimer, and Fits makes
	// room as Take does.
	if !p.Fits(15) || len(a.pieces) != 1 || p.Used() != 30 {
		t.Fatalf("Fits made no room: a %d used %d", len(a.pieces), p.Used())
	}
}

// Unregistered reclaimers are not asked; a reclaimer that is busy (its
// lock held by the taker itself) gives nothing and the take is refused,
// without a deadlock.
func TestReclaimerStopAndBusy(t *testing.T) {
	p := New(20)
	h := &holder{b: p.Child(0), what: "h"}
	stop := h.b.Reclaimer(RankLog, h.reclaim)
	h.add(20)
	h.mu.Lock()
	if p.Take(5) {
		t.Fatal("a busy holder's bytes were taken")
	}
	h.mu.Unlock()
	stop()
	stop()
	if p.Reclaimers() != 0 || p.Take(5) || p.Stats().Drops != 0 {
		t.Fatalf("a stopped reclaimer was asked: %+v", p.Stats())
	}
	var none *Budget
	none.Reclaimer(RankLog, h.reclaim)()
	if none.Reclaimers() != 0 || none.Stats() != (Stats{}) {
		t.Fatal("a nil budget keeps reclaimers")
	}
}

// Holders taking and reclaiming from each other at once stay within the
// limit and count exactly (run with -race).
func TestConcurrentReclaimStaysWithinLimit(t *testing.T) {
	p := New(1000)
	hs := make([]*holder, 4)
	for i := range hs {
		hs[i] = &holder{b: p.Child(0), what: "h"}
		defer hs[i].b.Reclaimer(Rank(1+i%2), hs[i].reclaim)()
	}
	var wg sync.WaitGroup
	for i, h := range hs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 5000 {
				if i%2 == 0 {
					h.add(7)
				} else if p.Take(13) {
					p.Give(13)
				}
				if p.Used() > 1000 {
					t.Error("passed the limit")
					return
				}
			}
		}()
	}
	wg.Wait()
	var held int64
	for _, h := range hs {
		for _, n := range h.pieces {
			held += n
		}
	}
	if p.Used() != held || p.Peak() > 1000 {
		t.Fatalf("used %d, holders %d, peak %d", p.Used(), held, p.Peak())
	}
}
