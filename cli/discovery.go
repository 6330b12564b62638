package cli

import (
	"context"
	"fmt"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/urfave/cli/v2"
)

// discoveryFlags are shared by every command that finds VMs.
func discoveryFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "scan", Value: scan.DefaultLocalRange.String(), Usage: "local ports to probe for JDWP VMs: FIRST-LAST, or off"},
		&cli.StringSliceFlag{Name: "adb", Usage: "adb server HOST:PORT to follow (repeatable), or off (default: ANDROID_ADB_SERVER_PORT or 127.0.0.1:5037, if it answers or can be started)"},
		&cli.StringFlag{Name: "adb-path", Value: "adb", Usage: "adb binary used to start the server when none answers"},
		&cli.IntFlag{Name: "adb-max-devices", Value: scan.DefaultMaxDevices, Usage: "most devices followed at once per adb server (more online: the first by serial; the status line says so)"},
		&cli.IntFlag{Name: "adb-max-processes", Value: scan.DefaultMaxProcesses, Usage: "most processes followed at once per device (more listed: debuggable VMs first, then by pid; the status line says so)"},
		&cli.DurationFlag{Name: "scan-interval", Value: 2 * time.Second, Usage: "how often local ports are probed"},
		&cli.DurationFlag{Name: "thread-interval", Value: time.Second, Usage: "how often each VM's thread status (THST, or /proc where THST goes unanswered) is polled"},
		&cli.DurationFlag{Name: "meminfo-interval", Value: 5 * time.Second, Usage: "how often a device VM's process memory (dumpsys meminfo) is read; 0 turns it off"},
		&cli.StringFlag{Name: "processes", Value: "all", Usage: "which processes to show: all (debuggable VMs and, through track-app on Android 12+, profileable apps without JDWP) or debuggable"},
	}
}

// processesFromFlags reads --processes.
func processesFromFlags(c *cli.Context) (headless.Keep, error) {
	keep, err := headless.ParseProcesses(c.String("processes"))
	if err != nil {
		return nil, fmt.Errorf("--%w", err)
	}
	return keep, nil
}

// sessionOptions are the session settings the discovery flags ask for.
func sessionOptions(c *cli.Context) monitor.SessionOptions {
	o := monitor.SessionOptions{ThreadInterval: c.Duration("thread-interval"), MeminfoInterval: c.Duration("meminfo-interval")}
	if o.MeminfoInterval <= 0 {
		o.MeminfoInterval = -1 // off
	}
	return o
}

// discoveryFromFlags builds the discovery the flags ask for.
func discoveryFromFlags(c *cli.Context) (monitor.Discovery, error) {
	var d monitor.Discovery
	r, on, err := scan.ParseRange(c.String("scan"))
	if err != nil {
		return d, badValue(c, &cmdError{msg: "--scan: " + strings.TrimPrefix(err.Error(), "scan: "), err: err})
	}
	if on {
		d.Local = &scan.Local{Ports: r, Interval: c.Duration("scan-interval")}
	}
	adbs, err := adbFromFlags(c)
	if err != nil {
		return d, err
	}
	d.ADB = adbs
	log, err := commandLog(c)
	if err != nil {
		return d, err
	}
	if log != nil {
		for _, r := range d.ADB {
			if a, ok := r.(*scan.ADB); ok {
				a.Logger = log
			}
		}
	}
	return d, nil
}

// collect runs discovery for the --wait duration and returns what it found
// at the deadline: working VMs and endpoints that failed. The view is taken
// before the sessions are stopped, so a VM that answered HELO within the
// wait is always in it.
func collect(c *cli.Context, opts monitor.SessionOptions) ([]monitor.Found, error) {
	return collectThen(c, opts, nil)
}

// collectThen is collect that calls then while the sessions still run
// (monitor.Engine.CollectThen).
func collectThen(c *cli.Context, opts monitor.SessionOptions, then func(context.Context, *monitor.Engine, []monitor.Found)) ([]monitor.Found, error) {
	wait := c.Duration("wait")
	if wait <= 0 {
		return nil, fmt.Errorf("--wait must be positive")
	}
	d, err := discoveryFromFlags(c)
	if err != nil {
		return nil, err
	}
	keep, err := processesFromFlags(c)
	if err != nil {
		return nil, err
	}
	ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	engine := newEngine(c, monitor.NewStore(monitor.NewBus()), opts)
	var found []monitor.Found
	if then != nil {
		found, err = engine.CollectThen(ctx, d, wait, func(ctx context.Context, found []monitor.Found) {
			then(ctx, engine, found)
		})
	} else {
		found, err = engine.Collect(ctx, d, wait)
	}
	out := found[:0]
	for _, f := range found {
		if f.Failed != "" || keep(f.VM) {
			out = append(out, f)
		}
	}
	return out, err
}

// engineHook is the App.Metadata key under which a test hands newEngine a
// func(monitor.SessionOptions), called with the options of every engine a
// command makes: the seam that shows each session flag reaching the
// sessions.
const engineHook = "ddmtui.engineHook"

// newEngine makes a command's engine; every command makes its engine here.
func newEngine(c *cli.Context, store *monitor.Store, opts monitor.SessionOptions) *monitor.Engine {
	if c.App != nil {
		if hook, ok := c.App.Metadata[engineHook].(func(monitor.SessionOptions)); ok {
			hook(opts)
		}
	}
	return monitor.NewEngine(store, opts)
}
