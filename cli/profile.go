package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/savefile"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/profileview"
)

func profileCommand() *cli.Command {
	return &cli.Command{
		Name:  "profile",
		Usage: "record a method trace of a VM and save it as a .trace file",
		Description: "Streams the trace through DDM (MPSS/MPSE, or SPSS/SPSE with --sampling) and writes it in the\n" +
			"standard format that Traceview, dmtracedump and `ddmtui trace` read. On Android 15+ (API 35)\n" +
			"devices it asks ART for its format V2 instead (a device file, read back through adb), which\n" +
			"`ddmtui trace` reads; a VM that refuses gets the V1 request.",
		Flags: append(vmPickFlags(),
			&cli.IntFlag{Name: "pid", Usage: "the VM to profile", Required: true},
			&cli.DurationFlag{Name: "duration", Value: 5 * time.Second, Usage: "how long to record"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "the `FILE.trace` to write", Required: true},
			&cli.DurationFlag{Name: "sampling", Usage: "sample every INTERVAL instead of tracing every call"},
			&cli.IntFlag{Name: "buffer-mb", Value: 8, Usage: "the VM's trace buffer in MiB"},
			&cli.DurationFlag{Name: "wait", Value: 5 * time.Second, Usage: "how long to look for the VM"},
			&cli.BoolFlag{Name: "view", Usage: "open the profile in the terminal afterwards"},
			&cli.StringFlag{Name: "sampler", Usage: "`simpleperf`: sample the CPU of any profileable or debuggable app (Android 10+) instead of tracing methods"},
			&cli.IntFlag{Name: "frequency", Value: 1000, Usage: "with --sampler simpleperf: samples per second"},
			&cli.StringFlag{Name: "call-graph", Value: "fp", Usage: "with --sampler simpleperf: how stacks are unwound, `fp` (frame pointers) or dwarf"},
			&cli.BoolFlag{Name: "off-cpu", Usage: "with --sampler simpleperf: record the time threads spend off the CPU too"},
		),
		Action: func(c *cli.Context) error {
			if err := checkProfileFlags(c); err != nil {
				return err
			}
			if c.IsSet("sampler") {
				return profileSamples(c)
			}
			out := c.String("output")
			if err := savefile.Check(out); err != nil {
				return err // before recording for --duration
			}
			var (
				prof *trace.Profile
				res  savefile.Result
			)
			err := withVM(c, c.Int("pid"), c.Duration("wait"), func(ctx context.Context, s *monitor.Session, vm monitor.VM) error {
				if !vm.DDM {
					return fmt.Errorf("pid %d does not speak DDM: it cannot be profiled through ddmtui", vm.PID)
				}
				opts := monitor.ProfileOptions{Sampling: c.Duration("sampling"), BufferSize: uint32(c.Int("buffer-mb")) << 20}
				if err := s.StartProfiling(ctx, opts); err != nil {
					return fmt.Errorf("start profiling: %w", err)
				}
				fmt.Fprintf(c.App.ErrWriter, "profiling %s for %v…\n", vmLabel(vm), c.Duration("duration"))
				select {
				case <-time.After(c.Duration("duration")):
				case <-ctx.Done():
				}
				// Stopped and saved even after an interrupt: what was
				// recorded is kept.
				sopts := savefile.Trace(&prof)
				sopts.Timeout = 2 * time.Minute
				var err error
				res, err = savefile.Save(context.WithoutCancel(ctx), out, sopts, func(ctx context.Context, w *savefile.Writer) error {
					if _, err := s.StopProfilingTo(ctx, opts.Sampling > 0, w); err != nil {
						return fmt.Errorf("stop profiling: %w", err)
					}
					return nil
				})
				return err
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "wrote %s: %d bytes, %d threads, %d methods, version %d\n", out, res.Size,
				len(prof.Header.Threads), len(prof.Header.Methods), prof.Header.Version)
			if c.Bool("view") {
				return profileview.Run(prof, profileview.RunOptions{Title: out})
			}
			return nil
		},
	}
}
