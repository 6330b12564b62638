package cli

import (
	"bytes"
	"strings"
	"testing"
)

func runApp(t *testing.T, args ...string) (string, error) {
	t.Helper()
	app := NewApp()
	var out bytes.Buffer
	app.Writer = &out
	app.ErrWriter = &out
	err := app.Run(append([]string{"ddmtui"}, args...))
	return out.String(), err
}

func TestVersionCommand(t *testing.T) {
	out, err := runApp(t, "version")
	if err != nil {
		t.Fatal(err)
	}
	if out != "ddmtui "+Version+"\n" {
		t.Fatalf("version printed %q", out)
	}
}

func TestHelpListsCommands(t *testing.T) {
	out, err := runApp(t, "--help")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ddmtui", "version"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q:\n%s", want, out)
		}
	}
}
