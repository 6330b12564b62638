package cli

import (
	"fmt"
	"net"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/sim/adbd"
)

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
				return badValue(c, err)
			}
			if c.Int("local") == 0 && c.Int("adbd") == 0 {
				return fmt.Errorf("nothing to serve: give --local PORT and/or --adbd PORT")
			}
			if p, n := c.Int("local"), c.Int("vms"); p < 0 || p+n-1 > 65535 {
				return badValue(c, fmt.Errorf("--local %d: the %d VMs need ports %d..%d, within 1..65535", p, n, p, p+n-1))
			}
			if p := c.Int("adbd"); p < 0 || p > 65535 {
				return badValue(c, fmt.Errorf("--adbd %d: not a port (1..65535, or 0 for none)", p))
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
