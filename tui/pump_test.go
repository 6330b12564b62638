package tui

import (
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui/style"
)

// TestPumpDrawsLoneEventAtOnce: frames are throttled with a leading edge,
// so an event arriving when no frame was drawn for an interval is drawn
// without waiting for the interval (here an hour: a ticker-driven pump
// would never draw it within the test).
func TestPumpDrawsLoneEventAtOnce(t *testing.T) {
	hs := startCfg(t, 120, 40, style.Palette{}, twoVMs, func(c *Config) { c.FrameInterval = time.Hour })
	hs.waitText("Binder:1234_1")
	hs.store.SetThreads("local:8000", []monitor.Thread{{ID: 7, Name: "lone-thread", Status: 1, State: "running"}})
	hs.waitText("lone-thread")
}
