package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestDashboardMappings: the config file's [mappings] (paths relative to
// the file) and --mapping PKG=FILE, the flag winning for a package both name.
func TestDashboardMappings(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "build"), 0o755)
	os.WriteFile(filepath.Join(dir, "build", "a.txt"), []byte("com.a.Main -> a.a:\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.txt"), []byte("com.b.Main -> a.a:\n"), 0o644)
	cfg := filepath.Join(dir, "config.toml")
	os.WriteFile(cfg, []byte("[mappings]\n\"com.a\" = \"build/a.txt\"\n\"com.b\" = \"nowhere.txt\"\n"), 0o644)
	run := func(args ...string) error {
		app := NewApp()
		var got error
		app.Action = func(c *cli.Context) error {
			ms, err := dashboardMappings(c)
			if err == nil {
				if ms.Note("com.a") != " · mapping" || ms.Note("com.b") != " · mapping" || ms.Note("com.c") != "" {
					t.Errorf("mappings not loaded for every package")
				}
			}
			got = err
			return nil
		}
		app.Writer, app.ErrWriter = os.Stderr, os.Stderr
		if err := app.Run(append([]string{"ddmtui", "--config", cfg}, args...)); err != nil {
			return err
		}
		return got
	}
	// com.b's file in the config does not exist: the flag replaces it.
	if err := run("--mapping", "com.b="+filepath.Join(dir, "b.txt")); err != nil {
		t.Fatal(err)
	}
	if err := run(); err == nil || !strings.Contains(err.Error(), "mapping of com.b") {
		t.Errorf("a missing file: %v", err)
	}
	if err := run("--mapping", "com.b"); err == nil || !strings.Contains(err.Error(), "want PKG=FILE") {
		t.Errorf("no =: %v", err)
	}
}
