package cli

import (
	"fmt"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/proxy"
	"github.com/urfave/cli/v2"
)

// proxyFlags are the debugger-port flags of serve, the dashboard and demo.
func proxyFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "debug-base", Value: proxy.DefaultBasePort, Usage: "first per-VM debugger port"},
		&cli.IntFlag{Name: "selected-port", Value: proxy.DefaultSelectedPort, Usage: "port that leads to the selected VM (0: none)"},
		&cli.StringFlag{Name: "debug-bind", Value: "127.0.0.1", Usage: "address the debugger ports listen on; anything but loopback lets the network debug your VMs"},
		&cli.DurationFlag{Name: "debug-spin", Value: proxy.DefaultSpin, Usage: "longest busy poll for a debugger's next packet, taken only while it and its VM answer within it (0: never poll)"},
	}
}

// proxyOptions checks the debugger-port flags against discovery d and
// returns the proxy's options, warning on stderr when the ports leave
// loopback.
func proxyOptions(c *cli.Context, d monitor.Discovery) (proxy.Options, error) {
	base, sel := c.Int("debug-base"), c.Int("selected-port")
	if base < 1 || base > 65535 {
		return proxy.Options{}, fmt.Errorf("--debug-base %d: want a port in 1-65535", base)
	}
	if sel < 0 || sel > 65535 {
		return proxy.Options{}, fmt.Errorf("--selected-port %d: want a port in 1-65535, or 0 for none", sel)
	}
	if sel == 0 {
		sel = -1
	}
	if d.Local != nil {
		r := d.Local.Ports
		if r.First < base+serveOwnPorts && r.Last >= base {
			return proxy.Options{}, fmt.Errorf("--scan %s overlaps the debugger ports from --debug-base %d: ddmtui would attach to itself", r, base)
		}
		if sel > 0 && r.First <= sel && sel <= r.Last {
			return proxy.Options{}, fmt.Errorf("--scan %s contains the selected-VM port %d: ddmtui would attach to itself", r, sel)
		}
	}
	spin := c.Duration("debug-spin")
	switch {
	case spin < 0 || spin > maxSpin:
		return proxy.Options{}, fmt.Errorf("--debug-spin %s: want 0 (no busy polling) to %s", spin, maxSpin)
	case spin == 0:
		spin = -1 // proxy.Options: negative is off, 0 the default
	}
	bind := c.String("debug-bind")
	if !proxy.IsLoopback(bind) {
		fmt.Fprintf(c.App.ErrWriter, "ddmtui: warning: debugger ports listen on %s: anyone who can reach it can debug (and run code in) your VMs\n", bind)
	}
	opts := proxy.Options{BasePort: base, SelectedPort: sel, Bind: bind, Spin: spin}
	if d.Local != nil {
		opts.LocalFirst = d.Local.Ports.First // the scan's first port maps to --debug-base
	}
	return opts, nil
}
