package tui

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/tui/style"
)

// keptPicture holds bytes of a budget and lets them all go when asked, as
// a viewer's decoded picture does; what it says it was comes from a VM.
type keptPicture struct {
	mu   sync.Mutex
	b    *budget.Budget
	held int64
}

func (k *keptPicture) reclaim(int64) (int64, string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := k.held
	k.b.Give(n)
	k.held = 0
	return n, "the capture of [red]Evil\x1b]2;pwned\x07Window"
}

// The status line shows the memory budget and, after a drop, what was
// dropped to make room (escaped: the name came from a VM), and the
// message history (M) keeps it.
func TestStatusLineShowsMemoryBudgetAndDrop(t *testing.T) {
	mem := budget.New(64 << 20)
	pic := &keptPicture{b: mem.Child(0), held: 40 << 20}
	pic.b.Take(pic.held)
	defer pic.b.Reclaimer(budget.RankPicture, pic.reclaim)()
	hs := startCfg(t, 260, 30, style.Palette{}, twoVMs, func(c *Config) { c.Memory = mem })
	hs.waitText("Binder:1234_1")
	redraw := func() {
		hs.dash.App().QueueUpdateDraw(func() { hs.dash.statusP.render() })
	}
	redraw()
	hs.waitLast("mem 40/64 MiB")
	if strings.Contains(hs.lastLine(), "dropped") {
		t.Fatalf("a drop shown before any: %q", hs.lastLine())
	}
	if !mem.Take(30 << 20) {
		t.Fatal("no room made")
	}
	redraw()
	hs.waitLast("mem 30/64 MiB")
	line := hs.lastLine()
	if !strings.Contains(line, "memory budget dropped 40.0 MiB: the capture of [red]Evil") || strings.Contains(line, "\x1b") {
		t.Fatalf("status line %q", line)
	}
	// Shown for dropNoteFor after it was seen, kept in the history.
	later := time.Now().Add(dropNoteFor)
	hs.dash.App().QueueUpdateDraw(func() {
		hs.dash.now = func() time.Time { return later }
		hs.dash.statusP.render()
	})
	hs.waitFor("the drop note gone", func(string) bool { return !strings.Contains(hs.lastLine(), "dropped") })
	hs.key(tcell.KeyRune, 'M')
	hs.waitText("memory budget dropped 40.0 MiB")
}

// On a narrow line the memory figure outlasts where VMs come from (cut
// first) and the adb status (left out first).
func TestMemoryFigureOutlastsDiscovery(t *testing.T) {
	parts := []statusPart{
		{text: "ddmtui", keep: keepBrand},
		{text: "10 VMs", keep: keepCount},
		{text: "demo: simulated VMs on 8000-8006 + an Android 14 device", keep: keepDiscovery, cut: true},
		{text: "adb 127.0.0.1:5037: 2 devices", keep: keepADB, cut: true},
		{text: "mem 12/256 MiB", keep: keepMemory},
	}
	line := fitStatus(parts, 60)
	if !strings.Contains(line, "mem 12/256 MiB") || strings.Contains(line, "adb") || !strings.Contains(line, "demo: simulated") {
		t.Fatalf("%q", line)
	}
}
