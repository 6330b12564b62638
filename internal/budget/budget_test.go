package budget

import (
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
