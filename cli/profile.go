package cli

import (
	"context"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/savefile"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/profileview"
)

// withVM runs discovery until the VM with pid is found (within wait) and
// calls fn with its session; discovery stops when fn returns.
func withVM(c *cli.Context, pid int, wait time.Duration, fn func(ctx context.Context, s *monitor.Session, vm monitor.VM) error) error {
	return withVMStore(c, pid, wait, func(ctx context.Context, s *monitor.Session, vm monitor.VM, _ *monitor.Store) error {
		return fn(ctx, s, vm)
	})
}

// withVMStore is withVM that also hands fn the model the session writes.
func withVMStore(c *cli.Context, pid int, wait time.Duration, fn func(ctx context.Context, s *monitor.Session, vm monitor.VM, store *monitor.Store) error) error {
	if pid <= 0 {
		return fmt.Errorf("--pid is required")
	}
	d, err := discoveryFromFlags(c)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	store := monitor.NewStore(monitor.NewBus())
	engine := monitor.NewEngine(store, monitor.SessionOptions{})
	runErr := make(chan error, 1)
	go func() { runErr <- engine.Run(ctx, d) }()
	defer func() { cancel(); <-runErr }()

	deadline := time.Now().Add(wait)
	serial, warned := c.String("serial"), map[string]bool{}
	for {
		if vm, ok := pickVM(store.VMs(), pid, serial, c.App.ErrWriter, warned); ok {
			if s := engine.Session(vm.Key); s != nil {
				if _, err := s.IsDDM(ctx); err != nil {
					return err
				}
				vm, _ = store.VM(vm.Key)
				return fn(ctx, s, vm, store)
			}
		}
		if time.Now().After(deadline) {
			if serial != "" {
				return fmt.Errorf("no VM with pid %d on device %s found within %v", pid, safetext.Terminal(serial), wait)
			}
			return fmt.Errorf("no VM with pid %d found within %v", pid, wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-runErr:
			runErr <- err
			if err != nil {
				return err
			}
			return fmt.Errorf("discovery ended before pid %d was found", pid)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

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
		),
		Action: func(c *cli.Context) error {
			if err := checkProfileFlags(c); err != nil {
				return err
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
