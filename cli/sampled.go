package cli

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/simpleperf"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui/profileview"
	"github.com/urfave/cli/v2"
)

// isSampledFile reports whether the file at path is a `simpleperf
// report-sample --protobuf` recording (by its magic, not its name).
func isSampledFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, simpleperf.HeaderSize)
	n, _ := io.ReadFull(f, head)
	return simpleperf.Sniff(head[:n])
}

// sampledTraceAction is `ddmtui trace FILE` on a sampled profile: the same
// viewer, trees, JSON shape and exports as a method trace, fed by
// simpleperf.Load (issue 36). Its clocks are samples ("thread-cpu",
// "samples") and event time ("wall", "time").
func sampledTraceAction(c *cli.Context, path string) error {
	if c.String("data") != "" {
		return fmt.Errorf("trace: --data is for split method traces, not sampled profiles")
	}
	exporting := c.Bool("json") || c.String("folded") != "" || c.String("chrome") != "" || c.String("dot") != "" || c.String("pprof") != ""
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	defer f.Close()
	sp, err := simpleperf.Load(f, simpleperf.LoadOptions{CallIndex: !exporting || c.String("chrome") != ""})
	if err != nil {
		return wrapFor("trace", safetext.Terminal(path), err)
	}
	p := sp.Trace
	if c.Bool("java-only") {
		p = p.Projected(javaMethod(p))
	}
	clock := trace.ClockWall
	switch name := c.String("clock"); name {
	case "":
	case "samples", "thread-cpu", "cpu":
		clock = trace.ClockCPU
	case "time", "wall":
		clock = trace.ClockWall
	default:
		return fmt.Errorf("trace: --clock %q: a sampled profile has samples and time", name)
	}
	if !exporting {
		title := filepath.Base(path)
		if sp.Meta.AppPackage != "" {
			title += " · " + sp.Meta.AppPackage
		}
		if err := profileview.Run(p, profileview.RunOptions{Title: title}); err != nil {
			return fmt.Errorf("trace: the viewer needs a terminal (or use --json, --folded, --chrome, --pprof): %w", err)
		}
		reportSampled(c.App.ErrWriter, sp)
		return nil
	}
	if c.Bool("json") {
		if err := writeTreeJSON(c, p, clock, "--json"); err != nil {
			return err
		}
	}
	if out := c.String("folded"); out != "" {
		fc := clock // flame-graph tools count samples unless --clock says otherwise
		if c.String("clock") == "" {
			fc = trace.ClockCPU
		}
		if err := writeOutput(c.App.Writer, out, func(w io.Writer) error { return trace.WriteFolded(w, p, fc) }); err != nil {
			return fmt.Errorf("trace: --folded: %w", err)
		}
	}
	if out := c.String("chrome"); out != "" {
		cw := trace.NewChromeWriter(p.Header)
		trace.CollectSampledCalls(p, cw.Collect)
		if err := writeOutput(c.App.Writer, out, func(w io.Writer) error { _, err := cw.WriteTo(w, p); return err }); err != nil {
			return fmt.Errorf("trace: --chrome: %w", err)
		}
	}
	if out := c.String("dot"); out != "" {
		dopt := trace.DOTOptions{Clock: clock, ThresholdPercent: c.Float64("dot-threshold")}
		if err := writeOutput(c.App.Writer, out, func(w io.Writer) error { return trace.WriteDOT(w, p, dopt) }); err != nil {
			return fmt.Errorf("trace: --dot: %w", err)
		}
	}
	if out := c.String("pprof"); out != "" {
		var buf bytes.Buffer
		if err := simpleperf.WritePprof(&buf, sp); err != nil {
			return fmt.Errorf("trace: --pprof: %w", err)
		}
		if err := writeOutput(c.App.Writer, out, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
			return fmt.Errorf("trace: --pprof: %w", err)
		}
	}
	reportSampled(c.App.ErrWriter, sp)
	return nil
}

// javaMethod is the "Java only" filter of a sampled profile.
func javaMethod(p *trace.Profile) func(int32) bool {
	return func(m int32) bool { return int(m) < len(p.Sampling.JavaMethods) && p.Sampling.JavaMethods[m] }
}

// reportSampled says on stderr what the recording lost or could not place.
func reportSampled(w io.Writer, sp *simpleperf.Profile) {
	s := sp.Trace.Sampling
	if s.Lost > 0 {
		fmt.Fprintf(w, "ddmtui: trace: the kernel lost %d of %d samples\n", sp.Lost.LostCount, sp.Lost.SampleCount)
	}
	if s.Backward > 0 {
		fmt.Fprintf(w, "ddmtui: trace: %d samples earlier than their thread's previous one, placed at its time\n", s.Backward)
	}
	if s.IndexDropped {
		fmt.Fprintf(w, "ddmtui: trace: the recording has more than %d calls by time: no call chart and no time ranges\n", trace.DefaultMaxIndexCalls)
	}
	if sp.UnknownFiles+sp.UnknownSymbols > 0 {
		fmt.Fprintf(w, "ddmtui: trace: %d frames of files and %d of symbols the recording does not describe (shown as unknown)\n", sp.UnknownFiles, sp.UnknownSymbols)
	}
}
