package cli

import (
	"fmt"
	"time"

	"github.com/ddmtui/ddmtui/sim"
	"github.com/urfave/cli/v2"
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
