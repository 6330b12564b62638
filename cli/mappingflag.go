package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/mapping/apply"
	"github.com/ddmtui/ddmtui/trace"
)

// mappingFlag is --mapping M, one definition for every command that shows
// class, method or field names of a release build.
func mappingFlag() cli.Flag {
	return &cli.StringFlag{
		Name:      "mapping",
		Usage:     "the build's ProGuard/R8 mapping file (mapping.txt): show the source's names",
		TakesFile: true,
	}
}

// loadMapping opens --mapping when it is set (nil, nil when not) and tells
// on standard error about lines it had to skip.
func loadMapping(c *cli.Context, cmd string) (*mapping.Mapping, error) {
	path := c.String("mapping")
	if path == "" {
		return nil, nil
	}
	m, err := mapping.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: --mapping: %s", cmd, safetext.Terminal(err.Error()))
	}
	if m.Skipped > 0 {
		fmt.Fprintf(c.App.ErrWriter, "%s: %s\n", cmd, safetext.Terminal(m.Summary()))
	}
	return m, nil
}

// reportCoverage prints the mapping's coverage of the class names seen on
// standard error when it looks like a mapping for another build.
func reportCoverage(c *cli.Context, cmd string, m *mapping.Mapping, classes []string) {
	if m == nil {
		return
	}
	if cov := m.Coverage(classes); cov.Suspicious() {
		fmt.Fprintf(c.App.ErrWriter, "%s: %s\n", cmd, cov)
	}
}

// deobfuscateProfile renames a trace profile's methods through --mapping,
// once, before any view or export reads them.
func deobfuscateProfile(c *cli.Context, cmd string, p *trace.Profile) error {
	m, err := loadMapping(c, cmd)
	if m == nil {
		return err
	}
	reportCoverage(c, cmd, m, apply.Profile(m, p))
	return nil
}
