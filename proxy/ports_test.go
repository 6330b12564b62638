package proxy

import (
	"fmt"
	"testing"
	"time"
)

// Issue 29 #17: a VM's debugger port follows what it is, not the order in
// which VMs were found.
func TestPreferredPortIsStable(t *testing.T) {
	o := Options{}
	o.fill()
	for _, c := range []struct {
		key, src, app string
		waited        time.Duration
		want          int
		ready         bool
	}{
		{"local:8000", "local:8000", "com.a", 0, 8600, true},
		{"local:8013", "local:8013", "", 0, 8613, true},
		{"local:8099", "local:8099", "", 0, 8699, true},
		{"local:8100", "local:8100", "", 0, 0, true}, // past the span: lowest free
		{"local:7999", "local:7999", "", 0, 0, true},
		{"local:127.0.0.1:8005", "local:127.0.0.1:8005", "", 0, 8605, true},
		{"adb:emulator-5554:4000", "adb:emulator-5554", "", time.Second, 0, false}, // waits for its name
		{"adb:emulator-5554:4000", "adb:emulator-5554", "<pre-initialized>", time.Second, 0, false},
		{"adb:emulator-5554:4000", "adb:emulator-5554", "", 3 * time.Second, 8600 + int(fnv32("adb:emulator-5554:4000")%100), true},
		{"adb:emulator-5554:4000", "adb:emulator-5554", "com.example.mail", 0, 8600 + int(fnv32("emulator-5554/com.example.mail")%100), true},
		{"adb:emulator-5554:9999", "adb:emulator-5554", "com.example.mail", 0, 8600 + int(fnv32("emulator-5554/com.example.mail")%100), true}, // another pid, the same port
	} {
		got, ready := o.preferredPort(c.key, c.src, c.app, c.waited)
		if got != c.want || ready != c.ready {
			t.Errorf("%s %s %q after %s: %d %v, want %d %v", c.key, c.src, c.app, c.waited, got, ready, c.want, c.ready)
		}
	}
	// FNV-1a of a known string (its published test vector), so the hash
	// cannot change unnoticed.
	if fnv32("a") != 0xe40c292c {
		t.Fatalf("fnv32(a) = %#x", fnv32("a"))
	}
}

// fnv32 is FNV-1a, written out (offset basis 2166136261, prime 16777619).
func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}

// Collisions move to the next free port in the span, wrapping, skipping
// the selected port; past a full span, the lowest free port above it.
func TestAllocPortCollisions(t *testing.T) {
	p := &Proxy{opts: Options{BasePort: 8600, PortSpan: 4, SelectedPort: 8602}, entries: map[string]*entry{}}
	take := func(pref int) int {
		port := p.allocPortLocked(pref)
		p.entries[fmt.Sprint(len(p.entries))] = &entry{port: port}
		return port
	}
	for i, c := range []struct{ pref, want int }{
		{8601, 8601},
		{8601, 8603}, // 8602 is the selected port
		{8603, 8600}, // wraps
		{0, 8604},    // the span is full: above it
		{8600, 8605},
	} {
		if got := take(c.pref); got != c.want {
			t.Errorf("%d: pref %d got %d, want %d", i, c.pref, got, c.want)
		}
	}
}
