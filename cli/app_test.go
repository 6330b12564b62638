package cli

import (
	"bytes"
	"os"
	"regexp"
	"testing"
)

func runApp(t *testing.T, args ...string) (string, error) {
	t.Helper()
	app := NewApp()
	var out bytes.Buffer
	app.Writer = &out
	app.ErrWriter = &out
	err := Run(app, append([]string{"ddmtui"}, args...))
	return out.String(), err
}

func TestHelpListsCommands(t *testing.T) {
	out, err := runApp(t, "--help")
	if err != nil {
		t.Fatal(err)
	}
	cmds := NewApp().Commands
	if len(cmds) < 13 {
		t.Fatalf("only %d commands defined", len(cmds))
	}
	for _, c := range cmds {
		if c.Hidden {
			continue
		}
		// urfave/cli prints "   name   usage" (aliases after a comma).
		line := regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(c.Name) + `(,[^\n]*)?\s{2,}` + regexp.QuoteMeta(c.Usage) + `$`)
		if c.Usage == "" || !line.MatchString(out) {
			t.Errorf("help lacks a line for %q with its usage %q:\n%s", c.Name, c.Usage, out)
		}
	}
}

// TestMain keeps the tests from reading the developer's own configuration
// file: the default path is moved into an empty directory.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "ddmtui-cli-test-config")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CONFIG_HOME", dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
