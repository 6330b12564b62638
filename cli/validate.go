package cli

import (
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/monitor"
)

// Checks of flag values that run before a command does any work, so that a
// value that cannot work is refused at once instead of after a recording's
// --duration (issue 29 #12).

// durationAtLeast refuses --name below min.
func durationAtLeast(c *cli.Context, name string, min time.Duration, what string) error {
	if d := c.Duration(name); d < min {
		return badValue(c, fmt.Errorf("--%s %v: %s", name, d, what))
	}
	return nil
}

// intIn refuses --name outside [lo, hi].
func intIn(c *cli.Context, name string, lo, hi int) error {
	if v := c.Int(name); v < lo || v > hi {
		return badValue(c, fmt.Errorf("--%s %d: want %d to %d", name, v, lo, hi))
	}
	return nil
}

// checkAll returns the first error of checks.
func checkAll(checks ...error) error {
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	return nil
}

// maxTraceBufferMB bounds profile --buffer-mb: the VM allocates the buffer
// whole (ddmlib's default is 8 MiB), and its size travels as a u4 of bytes.
const maxTraceBufferMB = 1024

func checkProfileFlags(c *cli.Context) error {
	return checkAll(
		durationAtLeast(c, "duration", time.Millisecond, "want a positive duration"),
		durationAtLeast(c, "sampling", 0, "want a positive interval, or 0 to trace every call"),
		intIn(c, "buffer-mb", 1, maxTraceBufferMB),
	)
}

// checkDiscoveryFinds refuses a headless command whose discovery looks
// nowhere (--scan off --adb off): it could only ever report nothing.
func checkDiscoveryFinds(d monitor.Discovery) error {
	if d.Local == nil && len(d.ADB) == 0 {
		return errors.New("--scan off and --adb off: there is nowhere to look for VMs")
	}
	return nil
}
