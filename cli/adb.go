package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/scan"
)

// adbFromFlags returns one adb discovery per --adb server. Without --adb the
// default server (ANDROID_ADB_SERVER_PORT or 127.0.0.1:5037) is followed if
// it answers or can be started; with --adb HOST:PORT each named server must
// answer, or the command fails; --adb off disables adb.
func adbFromFlags(c *cli.Context) ([]monitor.Runner, error) {
	addrs := c.StringSlice("adb")
	path := c.String("adb-path")
	if len(addrs) == 1 && addrs[0] == "off" {
		return nil, nil
	}
	maxDev := c.Int("adb-max-devices")
	if c.IsSet("adb-max-devices") && maxDev < 1 {
		return nil, badValue(c, fmt.Errorf("--adb-max-devices %d: must be at least 1", maxDev))
	}
	maxProcs := c.Int("adb-max-processes")
	if c.IsSet("adb-max-processes") && maxProcs < 1 {
		return nil, fmt.Errorf("--adb-max-processes %d: must be at least 1", maxProcs)
	}
	if len(addrs) == 0 {
		return []monitor.Runner{&scan.ADB{Client: &adb.Client{ADBPath: path}, StartServer: true, MaxDevices: maxDev, MaxProcesses: maxProcs}}, nil
	}
	var out []monitor.Runner
	for _, a := range addrs {
		if a == "off" {
			return nil, badValue(c, fmt.Errorf("--adb off cannot be combined with servers"))
		}
		if !strings.Contains(a, ":") {
			return nil, badValue(c, fmt.Errorf("--adb %q: want HOST:PORT or off", a))
		}
		d := &scan.ADB{Client: &adb.Client{Addr: a, ADBPath: path}, Required: true, MaxDevices: maxDev, MaxProcesses: maxProcs}
		ctx, cancel := context.WithTimeout(c.Context, 5*time.Second)
		_, err := d.Check(ctx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("--adb %s: %w", a, err)
		}
		out = append(out, d)
	}
	return out, nil
}
