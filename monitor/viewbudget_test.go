package monitor

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/viewtree"
)

// idle is a discovery that finds nothing until ctx ends.
type idle struct{}

func (idle) Run(ctx context.Context, _ scan.Handler) error { <-ctx.Done(); return nil }

func textTree(t *testing.T, views int) *viewtree.Tree {
	t.Helper()
	var b strings.Builder
	b.WriteString("a.Root@1 mID=5,NO_ID \n")
	for i := range views {
		fmt.Fprintf(&b, " a.V@%x mID=5,NO_ID layout:mLeft=2,%02d \n", i+2, i%100)
	}
	tr, err := viewtree.DecodeText([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// The view trees kept in the model are charged to the store's share of
// the process-wide budget: a new dump of a window gives its old tree's
// bytes back, a tree that cannot fit is left out with a reason, the
// engine lets go of the trees of windows not dumped last when the budget
// must make room, and a VM that goes gives back the rest.
func TestViewTreesChargedAndReclaimed(t *testing.T) {
	process := budget.New(0)
	store := NewStore(NewBus())
	store.viewBudget = process.Child(1 << 20)
	store.UpdateVM("vm", func(vm *VM) {})
	trees := []*viewtree.Tree{textTree(t, 500), textTree(t, 500), textTree(t, 500)}
	per := trees[0].Bytes()
	for i, tr := range trees {
		store.setViewDump("vm", WindowDump{Window: fmt.Sprint("w", i), Tree: tr})
	}
	if got := store.viewBudget.Used(); got != 3*per || per < 500*144 {
		t.Fatalf("3 trees of %d bytes: %d charged", per, got)
	}
	store.setViewDump("vm", WindowDump{Window: "w0", Tree: textTree(t, 500)})
	if got := store.viewBudget.Used(); got != 3*per {
		t.Fatalf("a window dumped again: %d charged, want %d", got, 3*per)
	}
	store.setViewDump("vm", WindowDump{Window: "huge", Tree: textTree(t, 10_000)})
	vm, _ := store.VM("vm")
	last := vm.Views[len(vm.Views)-1]
	if last.Tree != nil || !strings.Contains(last.Err, "more than the memory budget has left") || store.viewBudget.Used() != 3*per {
		t.Fatalf("a tree past the share: kept %v, %q, %d charged", last.Tree != nil, last.Err, store.viewBudget.Used())
	}

	e := NewEngine(store, SessionOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); e.Run(ctx, Discovery{ADB: []Runner{idle{}}}) }()
	defer func() { cancel(); wg.Wait() }()
	waitForReclaimers(t, process, 1)
	process.SetLimit(process.Used())
	if !process.Take(per) {
		t.Fatal("no room made although view trees could go")
	}
	vm, _ = store.VM("vm")
	var kept []string
	for _, d := range vm.Views {
		if d.Tree != nil {
			kept = append(kept, d.Window)
		}
	}
	// w1 is the oldest window now (w0 was dumped again after it).
	if strings.Join(kept, " ") != "w2 w0" || vm.Views[0].Window != "w1" || !strings.Contains(vm.Views[0].Err, "let go to make room") {
		t.Fatalf("trees kept %v; views %+v", kept, vm.Views)
	}
	if d := process.LastDrop(); d.What != "a view tree of a window not dumped last" || d.Bytes != per {
		t.Fatalf("last drop %+v", d)
	}
	process.Give(per)
	store.Remove("vm", "gone")
	if store.viewBudget.Used() != 0 {
		t.Fatalf("%d bytes charged after the VM went", store.viewBudget.Used())
	}
}

func waitForReclaimers(t *testing.T, b *budget.Budget, n int) {
	t.Helper()
	waitFor(t, fmt.Sprint(n, " reclaimers"), 5*time.Second, func() bool { return b.Reclaimers() >= n })
}
