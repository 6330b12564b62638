package proxy

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// A debugger port that was busy when its VM appeared is tried again: once
// whatever held it lets go, the VM gets its port without any change of
// session.
func TestBusyPortRetried(t *testing.T) {
	leakcheck.Check(t)
	_, rng := startFakeVMs(t, 1)
	base := freeRange(t, 2)
	blocker, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", base))
	if err != nil {
		t.Fatal(err)
	}
	r := startRig(t, rng, Options{BasePort: base, SelectedPort: -1})
	waitFor(t, "the busy port's error", 10*time.Second, func() bool {
		for _, ps := range r.proxy.Ports() {
			if !ps.Selected && ps.Port == base && ps.Err != "" {
				return true
			}
		}
		return false
	})
	blocker.Close()
	waitFor(t, "the port taken once free", 10*time.Second, func() bool {
		for _, ps := range r.proxy.Ports() {
			if !ps.Selected && ps.Port == base && ps.Listening && ps.Err == "" {
				return r.vm(ps.VM).DebugPort == base
			}
		}
		return false
	})
}

// The selected-VM port busy when ddmtui starts is reported and tried again,
// like the per-VM ports, and taken once free.
func TestBusySelectedPortRetried(t *testing.T) {
	leakcheck.Check(t)
	_, rng := startFakeVMs(t, 1)
	base := freeRange(t, 3)
	sel := base + 2
	blocker, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", sel))
	if err != nil {
		t.Fatal(err)
	}
	r := startRig(t, rng, Options{BasePort: base, SelectedPort: sel})
	selected := func() PortStatus {
		for _, ps := range r.proxy.Ports() {
			if ps.Selected {
				return ps
			}
		}
		return PortStatus{}
	}
	waitFor(t, "the busy selected port's error", 10*time.Second, func() bool {
		ps := selected()
		return ps.Port == sel && !ps.Listening && strings.Contains(ps.Err, "selected-VM port")
	})
	blocker.Close()
	waitFor(t, "the selected port taken once free", 10*time.Second, func() bool {
		ps := selected()
		return ps.Listening && ps.Err == ""
	})
}
