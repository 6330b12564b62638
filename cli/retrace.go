package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/internal/safetext"
)

func retraceCommand() *cli.Command {
	return &cli.Command{
		Name:      "retrace",
		Usage:     "turn a release build's stack traces and class names back into the source's (ProGuard/R8 mapping)",
		ArgsUsage: "[FILE|-]",
		Description: "Copies FILE (or standard input) to standard output with every Java stack frame\n" +
			"(at a.b.c(SourceFile:12)), exception line (Caused by: a.b: …) and class name the mapping\n" +
			"knows (a.b cannot be cast to a.c) replaced by the source's, as R8's retrace does: inlined\n" +
			"frames expand into several, outlines and synthesized frames are removed, and a frame the\n" +
			"mapping cannot tell apart prints every candidate, the later ones marked <OR>. Everything\n" +
			"else is copied as it is. A mapping that knows few of the classes seen says so on\n" +
			"standard error.",
		Flags:  []cli.Flag{mappingFlag()},
		Action: retraceAction,
	}
}

func retraceAction(c *cli.Context) error {
	args := c.Args().Slice()
	if err := requireFlags(c, "mapping"); err != nil {
		return err
	}
	if len(args) > 1 {
		return fmt.Errorf("retrace: want at most one FILE (- for standard input), got %d arguments", len(args))
	}
	m, err := loadMapping(c, "retrace")
	if err != nil {
		return err
	}
	var r io.Reader = c.App.Reader
	if r == nil {
		r = os.Stdin
	}
	if len(args) == 1 && args[0] != "-" {
		f, err := os.Open(args[0])
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fmt.Errorf("retrace: %s: %w", safetext.Terminal(args[0]), err)
		}
		defer f.Close()
		r = f
	}
	stats, err := m.RetraceText(c.App.Writer, r)
	if err != nil {
		return fmt.Errorf("retrace: %w", err)
	}
	reportCoverage(c, "retrace", m, stats.Classes)
	return nil
}
