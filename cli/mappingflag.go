package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/mapping/apply"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/trace"
	"github.com/ddmtui/ddmtui/tui"
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

// mappingNote ends a viewer's title when --mapping renamed what it shows.
const mappingNote = " · mapping"

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

// dashboardMappingFlag is the dashboard's --mapping PKG=FILE: a mapping
// per app, as the dashboard shows several.
func dashboardMappingFlag() cli.Flag {
	return &cli.StringSliceFlag{
		Name:  "mapping",
		Usage: "`PKG=FILE`: app PKG is a release build minified with mapping file FILE (repeatable; also the config file's [mappings])",
	}
}

// dashboardMappings loads the mapping files the config file's [mappings]
// table and --mapping PKG=FILE name (the flag wins for a package both name).
func dashboardMappings(c *cli.Context) (*tui.Mappings, error) {
	paths := map[string]string{}
	if f, err := configFile(c); err == nil && f != nil {
		for pkg, p := range f.Mappings {
			if !filepath.IsAbs(p) && f.Path != "" {
				p = filepath.Join(filepath.Dir(f.Path), p)
			}
			paths[pkg] = p
		}
	}
	for _, v := range c.StringSlice("mapping") {
		pkg, p, ok := strings.Cut(v, "=")
		if !ok || pkg == "" || p == "" {
			return nil, fmt.Errorf("--mapping %s: want PKG=FILE", safetext.Terminal(v))
		}
		paths[pkg] = p
	}
	byApp := map[string]*mapping.Mapping{}
	for pkg, p := range paths {
		m, err := mapping.Open(p)
		if err != nil {
			return nil, fmt.Errorf("mapping of %s: %s", safetext.Terminal(pkg), safetext.Terminal(err.Error()))
		}
		byApp[pkg] = m
	}
	return tui.NewMappings(byApp), nil
}

// demoReleaseMapping writes the mapping file of the demo's minified release
// app (the simulator's ReleaseMapping) to a temporary directory and adds it
// to --mapping, unless the command line names one for that app. cleanup
// removes the file.
func demoReleaseMapping(c *cli.Context) (cleanup func(), err error) {
	const pkg = "com.example.release"
	for _, v := range c.StringSlice("mapping") {
		if strings.HasPrefix(v, pkg+"=") {
			return func() {}, nil
		}
	}
	dir, err := os.MkdirTemp("", "ddmtui-demo-mapping-")
	if err != nil {
		return nil, fmt.Errorf("demo: mapping file: %w", err)
	}
	cleanup = func() { os.RemoveAll(dir) }
	path := filepath.Join(dir, "mapping.txt")
	if err := os.WriteFile(path, []byte(sim.ReleaseMapping(pkg)), 0o600); err != nil {
		cleanup()
		return nil, fmt.Errorf("demo: mapping file: %w", err)
	}
	if err := c.Set("mapping", pkg+"="+path); err != nil {
		cleanup()
		return nil, fmt.Errorf("demo: mapping file: %w", err)
	}
	return cleanup, nil
}
