package cli

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/threaddump"
	"github.com/ddmtui/ddmtui/tui"
)

// The simulated VMs speak DDM and answer the JDWP a monitor uses, not a
// debugger's (no event requests, breakpoints or suspension): jdb fails
// at attach. Say so where a user looks, and point to a real JVM.
const (
	demoDebugNote = "Debugging: the simulated VMs cannot be debugged — they implement DDM and the few JDWP\n" +
		"commands a monitor uses, not event requests, so jdb or an IDE fails at attach. To try the\n" +
		"debugger ports, start a real JVM with\n" +
		"  java -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:8000 ...\n" +
		"run ddmtui, and attach with jdb -attach 127.0.0.1:8700."
	demoNotice = "demo: simulated VMs can't be debugged (jdb fails at attach); see ddmtui demo --help for a real JVM"
)

// demoSimFlags are the simulator's flags with the demo's own default of 7
// VMs (every kind the simulator has), so --help says what demo starts.
func demoSimFlags() []cli.Flag {
	flags := simFlags()
	for i, f := range flags {
		if n, ok := f.(*cli.IntFlag); ok && n.Name == "vms" {
			cp := *n
			cp.Value = 7
			flags[i] = &cp
		}
	}
	return flags
}

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "open the dashboard on the built-in simulated device",
		Description: "Starts simulated VMs on free loopback ports (from 8000 up) — apps with varied threads and\n" +
			"heaps, one waiting for a debugger, one with a large fragmented heap, a Dalvik VM and a\n" +
			"non-DDM JVM — plus a simulated Android 14 device (in-process, no adb needed) with two\n" +
			"debuggable apps and a profileable release build, whose VMs answer no thread or heap chunk\n" +
			"(threads from /proc, memory from dumpsys meminfo), and opens the dashboard on them all.\n" +
			"Nothing leaves this machine. With --api 30 or later the local VMs are a modern phone's VMs\n" +
			"too, reached in-process as device VMs, as on a real phone.\n\n" +
			demoDebugNote,
		Flags: append(append(demoSimFlags(), uiFlags()...),
			&cli.IntFlag{Name: "port", Value: 8000, Usage: "first loopback port to try for the simulated VMs"},
			&cli.DurationFlag{Name: "meminfo-interval", Value: 5 * time.Second, Usage: "how often the modern device's process memory (dumpsys meminfo) is read; 0 turns it off"},
		),
		Action: func(c *cli.Context) error {
			if err := checkSimFlags(c); err != nil {
				return badValue(c, err)
			}
			// Before any port is taken: without a terminal, fail cleanly.
			if err := tui.CheckTerminal(); err != nil {
				return fmt.Errorf("demo: the dashboard %w", err)
			}
			log, closeLog, err := openLog(c)
			if err != nil {
				return err
			}
			defer closeLog()
			n := c.Int("vms")
			if err := c.Set("vms", fmt.Sprint(n)); err != nil {
				return err
			}
			// Listen on every port first, so that the scan's first probe
			// finds each VM, then build the VMs (a few ms to tens of ms
			// each: their heaps) in the background while the dashboard
			// starts; a connection made meanwhile waits in its listener's
			// backlog until its VM serves it.
			//
			// At --api 30 and later the VMs are a modern phone's: device VMs
			// (in-process, as the Android 14 device's), whose threads and
			// memory come from /proc and dumpsys as a real phone's do; on
			// local ports they would have neither.
			modernAPI := c.Int("api") >= sim.ModernDDMAPI
			var lns []net.Listener
			if !modernAPI {
				if lns, err = listenLocalRange(c.Int("port"), n); err != nil {
					return err
				}
			}
			ctx, cancel := context.WithCancel(c.Context)
			defer cancel()
			dev := sim.NewDevice("emulator-sim")
			dev.SetAPI(c.Int("api"))
			defer dev.Close()
			// One modern device beside the old VMs, reached in-process as
			// if through adb (docs/ARCHITECTURE.md, "The demo's modern device").
			modern := sim.NewDevice(sim.ModernDemoSerial)
			modern.SetAPI(sim.ModernDemoAPI)
			modern.SetModel(sim.ModernDemoModel)
			defer modern.Close()
			var built sync.WaitGroup
			defer func() { cancel(); built.Wait() }() // before the devices close
			buildDemoVMs(ctx, &built, log, dev, simSpecs(c), lns, modern, sim.ModernDemoSpecs(c.Uint64("seed")))
			go dev.Run(ctx, c.Duration("interval"))
			go modern.Run(ctx, c.Duration("interval"))
			d, what := demoDiscovery(dev, modern, lns, c.Duration("interval"))
			cleanup, err := demoReleaseMapping(c)
			if err != nil {
				return err
			}
			defer cleanup()
			return runDashboard(c, d, what, log, demoNotice, func(cfg *tui.Config) { cfg.SimDump = simDump(dev) })
		},
	}
}

// demoDiscovery is where the demo's dashboard finds its VMs, and the
// status line's words for it: dev's VMs on the local ports lns, or, with
// no ports (a modern demo), as dev's device VMs in-process; then the
// Android 14 device's.
func demoDiscovery(dev, modern *sim.Device, lns []net.Listener, interval time.Duration) (monitor.Discovery, string) {
	var d monitor.Discovery
	what := fmt.Sprintf("demo: an API %d device (%s) + an Android 14 device", dev.API(), dev.Serial())
	if len(lns) == 0 {
		d.ADB = append(d.ADB, &sim.Endpoints{Device: dev, Source: "sim:" + dev.Serial()})
	} else {
		base := lns[0].Addr().(*net.TCPAddr).Port
		r := scan.PortRange{First: base, Last: base + len(lns) - 1}
		d.Local = &scan.Local{Ports: r, Interval: interval}
		what = fmt.Sprintf("demo: simulated VMs on %s + an Android 14 device", r)
	}
	// "sim:" (not "adb:": no adb is involved) also lists it after the local VMs.
	d.ADB = append(d.ADB, &sim.Endpoints{Device: modern, Source: "sim:" + modern.Serial()})
	return d, what
}

// buildDemoVMs builds the demo's VMs on as many goroutines as there are
// CPUs, in list order (the first local VM, selected first, is ready
// first): local VM i is served on lns[i] (the order ServeLocal uses: by
// pid), then the modern device's VMs are added to it. Each listener is
// closed if its VM is never served. wg counts the builders.
func buildDemoVMs(ctx context.Context, wg *sync.WaitGroup, log *slog.Logger, dev *sim.Device, specs []sim.VMSpec, lns []net.Listener, modern *sim.Device, modernSpecs []sim.VMSpec) {
	sort.SliceStable(specs, func(i, j int) bool { return specs[i].PID < specs[j].PID })
	type job struct {
		spec sim.VMSpec
		dev  *sim.Device
		ln   net.Listener // nil: a device VM, reached in-process
	}
	jobs := make(chan job, len(specs)+len(modernSpecs))
	for i, s := range specs {
		var ln net.Listener // none: a device VM (a modern demo's)
		if i < len(lns) {
			ln = lns[i]
		}
		jobs <- job{s, dev, ln}
	}
	for _, s := range modernSpecs {
		jobs <- job{s, modern, nil}
	}
	close(jobs)
	for range min(runtime.NumCPU(), cap(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if ctx.Err() != nil {
					if j.ln != nil {
						j.ln.Close()
					}
					continue
				}
				vm := sim.NewVM(j.spec)
				j.dev.Add(vm)
				if j.ln == nil {
					continue
				}
				if _, err := j.dev.ServeVMOn(vm, j.ln); err != nil && ctx.Err() == nil {
					log.Warn("demo: a simulated VM is not served", "pid", j.spec.PID, "error", err)
				}
			}
		}()
	}
}

// simDump gives the thread dump of dev's VMs served on local ports, which
// have no device shell to ask: what the simulated VM writes on SIGQUIT
// (the Dalvik VM's shows its deadlock).
func simDump(dev *sim.Device) func(ctx context.Context, vm monitor.VM) ([]byte, bool, error) {
	return func(_ context.Context, vm monitor.VM) ([]byte, bool, error) {
		v := dev.VM(vm.PID)
		if v == nil || !strings.HasPrefix(vm.Source, "local:") {
			return nil, false, nil
		}
		style := threaddump.StyleART14
		if v.Spec().Family == sim.Dalvik {
			style = threaddump.StyleDalvik
		}
		var b bytes.Buffer
		if err := threaddump.Format(&b, v.ThreadDump(time.Now()), style); err != nil {
			return nil, true, err
		}
		return b.Bytes(), true, nil
	}
}
