package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/savefile"
	"github.com/ddmtui/ddmtui/simpleperf"
	"github.com/ddmtui/ddmtui/tui/profileview"
)

// profileSamples is `profile --sampler simpleperf` (issue 36): the app's
// CPU sampled on its device, saved through savefile as report-sample's
// stream, which `ddmtui trace` opens.
func profileSamples(c *cli.Context) error {
	if s := c.String("sampler"); s != "simpleperf" {
		return fmt.Errorf("profile: --sampler %q: the sampler is simpleperf", s)
	}
	if f := c.Int("frequency"); f < 1 || f > 100_000 {
		return fmt.Errorf("profile: --frequency %d: want 1 to 100000 samples per second", f)
	}
	cg := c.String("call-graph")
	if cg != "fp" && cg != "dwarf" {
		return fmt.Errorf("profile: --call-graph %q: want fp or dwarf", cg)
	}
	out := c.String("output")
	if err := savefile.Check(out); err != nil {
		return err
	}
	var (
		prof *simpleperf.Profile
		res  savefile.Result
	)
	err := withProcess(c, c.Int("pid"), c.Duration("wait"), true, func(ctx context.Context, s *monitor.Session, vm monitor.VM, _ *monitor.Store) error {
		progress, done := savefile.ProgressLine(c.App.ErrWriter, isTerminal(c.App.ErrWriter), fmt.Sprintf("samples of %s", vmLabel(vm)))
		defer done()
		fmt.Fprintf(c.App.ErrWriter, "sampling %s for %v with simpleperf…\n", vmLabel(vm), c.Duration("duration"))
		sopts := savefile.Samples(&prof)
		sopts.Timeout = c.Duration("duration") + 3*time.Minute
		sopts.Progress = progress
		var err error
		res, err = savefile.Save(ctx, out, sopts, func(ctx context.Context, w *savefile.Writer) error {
			_, err := s.RecordSamples(ctx, monitor.SampleOptions{Duration: c.Duration("duration"), Frequency: c.Int("frequency"),
				CallGraph: cg, OffCPU: c.Bool("off-cpu")}, w)
			return err
		})
		return err
	})
	if err != nil {
		return fmt.Errorf("profile: %s", safetext.Terminal(err.Error()))
	}
	sp := prof.Trace.Sampling
	fmt.Fprintf(c.App.Writer, "wrote %s: %d bytes, %d samples of %s, %d threads, %d frames\n", out, res.Size,
		sp.Samples, safetext.Terminal(sp.Event), len(prof.Trace.Threads), len(prof.Trace.Methods)-2)
	if c.Bool("view") {
		return profileview.Run(prof.Trace, profileview.RunOptions{Title: out})
	}
	return nil
}
