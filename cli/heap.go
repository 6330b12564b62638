package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/heap"
	"github.com/ddmtui/ddmtui/heappng"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/savefile"
)

func heapCommand() *cli.Command {
	return &cli.Command{
		Name:  "heap",
		Usage: "picture (PNG) or summary (JSON) of a VM's heap map",
		Description: "Asks the VM for its heap map at the next GC (and causes one), then writes the\n" +
			"allocation-unit map as a PNG with a legend (--png), the segment summary as JSON (--json), or\n" +
			"without either, the summary as text.",
		Flags: append(vmPickFlags(),
			&cli.IntFlag{Name: "pid", Usage: "the VM", Required: true},
			&cli.StringFlag{Name: "png", Usage: "write the heap picture to `OUT.png`"},
			&cli.BoolFlag{Name: "json", Usage: "print the segment summary as JSON"},
			&cli.BoolFlag{Name: "native", Usage: "the native heap (NHSG; Dalvik) instead of the managed heap"},
			&cli.BoolFlag{Name: "objects", Usage: "object boundaries (HPSO): adds an object-size histogram"},
			&cli.IntFlag{Name: "width", Value: 512, Usage: "picture width in pixels"},
			&cli.DurationFlag{Name: "wait", Value: 5 * time.Second, Usage: "how long to look for the VM"},
			&cli.DurationFlag{Name: "timeout", Value: 15 * time.Second, Usage: "how long to wait for the heap map"},
		),
		Action: func(c *cli.Context) error {
			if out := c.String("png"); out != "" && out != "-" {
				if err := savefile.Check(out); err != nil {
					return err
				}
			}
			native := c.Bool("native")
			var snap *heap.Snapshot
			var target monitor.VM
			err := withVMStore(c, c.Int("pid"), c.Duration("wait"), func(ctx context.Context, s *monitor.Session, vm monitor.VM, store *monitor.Store) error {
				if !vm.DDM {
					return fmt.Errorf("pid %d does not speak DDM: it has no heap map", vm.PID)
				}
				target = vm
				before := store.Segments(vm.Key)
				if native {
					before = store.NativeSegments(vm.Key)
				}
				opts := monitor.SegmentOptions{Managed: !native, Objects: c.Bool("objects"), Native: native}
				if err := s.SetSegmentOptions(ctx, opts); err != nil {
					return err
				}
				if err := s.GC(ctx); err != nil {
					return err
				}
				deadline := time.Now().Add(c.Duration("timeout"))
				for {
					got := store.Segments(vm.Key)
					if native {
						got = store.NativeSegments(vm.Key)
					}
					if got != nil && got != before {
						snap = got
						break
					}
					if time.Now().After(deadline) {
						return fmt.Errorf("no heap map from pid %d within %v (modern Android no longer sends heap maps)", vm.PID, c.Duration("timeout"))
					}
					select {
					case <-ctx.Done():
						return ctx.Err()
					case <-time.After(50 * time.Millisecond):
					}
				}
				_ = s.SetSegmentOptions(ctx, monitor.SegmentOptions{})
				return nil
			})
			if err != nil {
				return err
			}
			which := "managed"
			if native {
				which = "native"
			}
			if out := c.String("png"); out != "" {
				title := fmt.Sprintf("%s (pid %d), %s heap", target.App, target.PID, which)
				if err := writeOutput(c.App.Writer, out, func(w io.Writer) error {
					return heappng.Render(w, snap, heappng.Options{Title: title, Width: c.Int("width")})
				}); err != nil {
					return err
				}
			}
			switch {
			case c.Bool("json"):
				return headless.WriteJSON(c.App.Writer, headless.NewHeapMap(target, which, snap))
			case c.String("png") == "":
				return headless.WriteHeapMapText(c.App.Writer, headless.NewHeapMap(target, which, snap))
			}
			return nil
		},
	}
}
