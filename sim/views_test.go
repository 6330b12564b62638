package sim

import (
	"testing"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/viewtree"
)

// The simulated UI changes over steps: the clock's text, and a toast
// window that comes and goes (so a window can vanish between VULW and
// VURT); a VM waiting for a debugger has no window.
func TestSimulatedUIChanges(t *testing.T) {
	vm := NewVM(VMSpec{PID: 1, App: "com.example.a", Family: ART, API: 34, Seed: 9})
	vm.mu.Lock()
	vm.buildUILocked()
	dump := func() *viewtree.Tree {
		tr, err := viewtree.DecodeV2(vm.dumpLocked(vm.ui.windows[0], &ddm.ViewRootRequest{IncludeProperties: true, V2: true, HasV2: true}))
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	before := dump().String()
	vm.mu.Unlock()
	seen := map[int]bool{}
	for i := 0; i < 45; i++ {
		vm.Step()
		vm.mu.Lock()
		seen[len(vm.ui.windows)] = true
		vm.mu.Unlock()
	}
	vm.mu.Lock()
	after := dump().String()
	vm.mu.Unlock()
	if before == after {
		t.Error("the tree did not change over 45 steps")
	}
	if !seen[1] || !seen[2] {
		t.Errorf("window counts seen %v: the toast never came and went", seen)
	}
	w := NewVM(VMSpec{PID: 2, App: "x", Family: ART, WaitingForDebugger: true})
	w.mu.Lock()
	w.buildUILocked()
	if w.ui != nil {
		t.Error("a VM waiting for a debugger has windows")
	}
	w.mu.Unlock()
}

// Text dumps without properties, and with skipChildren, as ViewDebug
// writes them.
func TestSimulatedTextDumps(t *testing.T) {
	vm := NewVM(VMSpec{PID: 1, App: "com.example.a", Family: Dalvik, API: 19, Seed: 9})
	vm.mu.Lock()
	defer vm.mu.Unlock()
	vm.buildUILocked()
	w := vm.ui.windows[0]
	bare, err := viewtree.DecodeText(vm.dumpLocked(w, &ddm.ViewRootRequest{V2: true, HasV2: true}))
	if err != nil || len(bare.Props) != 0 || bare.Count() < 50 {
		t.Fatalf("no properties: %v, %d props", err, len(bare.Props))
	}
	root, err := viewtree.DecodeText(vm.dumpLocked(w, &ddm.ViewRootRequest{SkipChildren: true, IncludeProperties: true}))
	if err != nil || root.Count() != 1 || root.Nodes[0].Width != 1080 {
		t.Fatalf("skip children: %v %+v", err, root)
	}
}
