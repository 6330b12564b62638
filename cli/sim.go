package cli

import (
	"fmt"
	"net"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/sim/adbd"
)

func simFlags() []cli.Flag {
	return []cli.Flag{
		&cli.IntFlag{Name: "vms", Value: 5, Usage: "number of simulated VMs"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed: the same seed gives the same VMs and the same evolution"},
		&cli.IntFlag{Name: "threads", Usage: "application threads per VM (0: varied per VM)"},
		&cli.IntFlag{Name: "heap-mb", Usage: "initial heap per VM in MiB (0: varied per VM)"},
		&cli.DurationFlag{Name: "interval", Value: 500 * time.Millisecond, Usage: "simulation step: thread changes, allocation, a GC every 5 steps"},
		&cli.BoolFlag{Name: "modern", Usage: "every VM behaves like ART 9+ (no reply to DDM requests with nothing to say)"},
		&cli.IntFlag{Name: "api", Usage: fmt.Sprintf("the device's Android API level (getprop ro.build.version.sdk); from %d on, VMs answer only the DDM chunks recent frameworks register (threads and memory then come from /proc and dumpsys)", sim.ModernDDMAPI)},
	}
}

func simCommand() *cli.Command {
	return &cli.Command{
		Name:  "sim",
		Usage: "run simulated Android VMs that speak JDWP and DDM",
		Description: "Serves each VM on its own loopback port (like VMs reachable with adb forward).\n" +
			"Example: ddmtui sim --local 8000 --vms 3",
		Flags: append(simFlags(),
			&cli.IntFlag{Name: "local", Value: 8000, Usage: "first loopback port; VM n listens on PORT+n (0: none)"},
			&cli.IntFlag{Name: "adbd", Usage: "also serve the VMs as a simulated adb device on this loopback port (then: adb connect 127.0.0.1:PORT)"},
		),
		Action: func(c *cli.Context) error {
			if err := checkSimFlags(c); err != nil {
				return err
			}
			if c.Int("local") == 0 && c.Int("adbd") == 0 {
				return fmt.Errorf("nothing to serve: give --local PORT and/or --adbd PORT")
			}
			if p, n := c.Int("local"), c.Int("vms"); p < 0 || p+n-1 > 65535 {
				return fmt.Errorf("--local %d: the %d VMs need ports %d..%d, within 1..65535", p, n, p, p+n-1)
			}
			if p := c.Int("adbd"); p < 0 || p > 65535 {
				return fmt.Errorf("--adbd %d: not a port (1..65535, or 0 for none)", p)
			}
			ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
			defer stop()
			dev := newSimDevice(c)
			defer dev.Close()
			if c.Int("local") != 0 {
				addrs, err := dev.ServeLocal("127.0.0.1", c.Int("local"))
				if err != nil {
					return err
				}
				i := 0
				for _, vm := range dev.VMs() {
					s := vm.Spec()
					if s.Release { // no JDWP: no port (adb's track-app lists it)
						continue
					}
					fmt.Fprintf(c.App.Writer, "%-16s pid %-6d %-6s %s\n", addrs[i], s.PID, s.Family, s.App)
					i++
				}
			}
			if port := c.Int("adbd"); port != 0 {
				ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
				if err != nil {
					return fmt.Errorf("--adbd: %w", err)
				}
				srv := adbd.New(dev, adbd.Options{})
				go srv.Serve(ln)
				defer srv.Close()
				fmt.Fprintf(c.App.Writer, "simulated adb device on %s (adb connect %s); pids:", ln.Addr(), ln.Addr())
				for _, vm := range dev.VMs() {
					fmt.Fprintf(c.App.Writer, " %d", vm.PID())
				}
				fmt.Fprintln(c.App.Writer)
			}
			fmt.Fprintln(c.App.Writer, "simulating; Ctrl-C stops")
			dev.Run(ctx, c.Duration("interval"))
			return nil
		},
	}
}

// Bounds of the simulator's flags, checked before anything starts.
const (
	maxSimVMs = 1000
	// maxSimAPI is the newest Android API level the simulator models
	// (Android 16); 0 leaves the level unset (an old device).
	maxSimAPI    = 36
	maxSimThread = 10000 // ddmtui itself caps a VM's thread table there
	maxSimHeapMB = 64 << 10
)

// checkSimFlags refuses simulator flags that cannot describe a device, for
// sim and demo alike: a count of VMs outside 1..1000 (a negative one
// panicked, zero served nothing without a word), an API level no Android
// has, negative threads or heap, a step that is not positive.
func checkSimFlags(c *cli.Context) error {
	if n := c.Int("vms"); n < 1 || n > maxSimVMs {
		return fmt.Errorf("--vms %d: must be within 1..%d", n, maxSimVMs)
	}
	if api := c.Int("api"); api != 0 && (api < 1 || api > maxSimAPI) {
		return fmt.Errorf("--api %d: not an Android API level the simulator knows (1..%d, or 0 for an unset level)", api, maxSimAPI)
	}
	if n := c.Int("threads"); n < 0 || n > maxSimThread {
		return fmt.Errorf("--threads %d: must be within 0..%d (0: varied per VM)", n, maxSimThread)
	}
	if mb := c.Int("heap-mb"); mb < 0 || mb > maxSimHeapMB {
		return fmt.Errorf("--heap-mb %d: must be within 0..%d (0: varied per VM)", mb, maxSimHeapMB)
	}
	if d := c.Duration("interval"); d <= 0 {
		return fmt.Errorf("--interval %s: must be positive", d)
	}
	return nil
}

// newSimDevice builds the simulated device the sim flags describe.
func newSimDevice(c *cli.Context) *sim.Device {
	dev := sim.NewDevice("emulator-sim")
	dev.SetAPI(c.Int("api"))
	specs := simSpecs(c)
	for _, spec := range specs {
		dev.Add(sim.NewVM(spec))
	}
	if api := c.Int("api"); api >= sim.TrackAppAPI { // track-app lists it; track-jdwp would not
		dev.Add(sim.NewVM(sim.ReleaseApp(specs, api, c.Uint64("seed"))))
	}
	return dev
}

// simSpecs are the VMs the simulator's flags ask for.
func simSpecs(c *cli.Context) []sim.VMSpec {
	specs := sim.Scenario(c.Uint64("seed"), c.Int("vms"))
	for i := range specs {
		spec := &specs[i]
		if n := c.Int("threads"); n > 0 {
			spec.Threads = n
		}
		if mb := c.Int("heap-mb"); mb > 0 {
			spec.HeapBytes = uint64(mb) << 20
			if spec.HeapMax < 2*spec.HeapBytes {
				spec.HeapMax = 2 * spec.HeapBytes
			}
		}
		if c.Bool("modern") && spec.Family == sim.ART {
			spec.Modern = true
		}
		if api := c.Int("api"); api > 0 && spec.Family != sim.JVM {
			spec.API = api
		}
	}
	return specs
}
