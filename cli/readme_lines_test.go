package cli

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// readmeCommandLines are the command lines README.md writes in backticks
// (`ddmtui hprof analyze FILE [--json] [--top N]`), as words: optional
// brackets dropped, the first of alternatives (`bash\|zsh\|fish`) kept.
func readmeCommandLines(t *testing.T) [][]string {
	t.Helper()
	doc, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var lines [][]string
	for _, m := range regexp.MustCompile("`(ddmtui [^`]+)`").FindAllStringSubmatch(string(doc), -1) {
		line := strings.NewReplacer("[", " ", "]", " ", `\|`, " | ").Replace(m[1])
		var words []string
		skip := false
		for _, w := range strings.Fields(line) {
			switch {
			case w == "|":
				skip = true // the alternative after | is left out
			case skip:
				skip = false
			default:
				words = append(words, w)
			}
		}
		lines = append(lines, words)
	}
	return lines
}

// placeholderValue fills in a README placeholder (FILE, PID, N, OUT.json,
// ID...) with a value the flag before it (nil for an operand) parses.
func placeholderValue(w string, fl cli.Flag) string {
	if !regexp.MustCompile(`^[A-Z][A-Z_]*(\.[a-z]+|\.\.\.)?$`).MatchString(w) {
		return w
	}
	switch fl.(type) {
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Float64Flag, *cli.IntSliceFlag:
		return "16"
	case *cli.DurationFlag:
		return "5s"
	}
	if strings.HasPrefix(w, "ID") {
		return "0x12c0a1b0"
	}
	return "x" + strings.ToLower(w)
}

// TestReadmeCommandLinesParse runs every command line README.md writes,
// with flags after operands where it puts them, through Run with each
// command's action replaced: every flag written must be parsed as that
// command's flag, and no flag may be left among the operands.
func TestReadmeCommandLinesParse(t *testing.T) {
	lines := readmeCommandLines(t)
	if len(lines) < 30 {
		t.Fatalf("only %d command lines found in README.md", len(lines))
	}
	leaves := 0
	for _, words := range lines {
		app := NewApp()
		app.Writer, app.ErrWriter = &strings.Builder{}, &strings.Builder{}
		var got *cli.Context
		record := func(c *cli.Context) error { got = c; return nil }
		var stub func([]*cli.Command)
		stub = func(cmds []*cli.Command) {
			for _, cmd := range cmds {
				cmd.Action = record
				stub(cmd.Subcommands)
			}
		}
		stub(app.Commands)
		app.Action = record

		args := []string{"ddmtui"}
		flags, commands := app.Flags, app.Commands
		var prev cli.Flag
		var written []string
		for _, w := range words[1:] {
			if c := findCommand(commands, w); c != nil && prev == nil {
				flags, commands = c.Flags, c.Subcommands
				args = append(args, w)
				continue
			}
			if isFlagWord(w) {
				name := strings.TrimLeft(w, "-")
				written = append(written, name)
				prev = nil
				for _, fl := range flags {
					if hasFlag([]cli.Flag{fl}, name) {
						if v, ok := fl.(cli.DocGenerationFlag); ok && v.TakesValue() {
							prev = fl
						}
					}
				}
				args = append(args, w)
				continue
			}
			args = append(args, placeholderValue(w, prev))
			prev = nil
		}
		if prev != nil {
			t.Logf("%q: a fragment (its last flag has no value)", words)
			continue
		}
		err := Run(app, args)
		if err != nil && strings.HasPrefix(err.Error(), "missing --") {
			t.Logf("%q: a fragment (%v)", words, err)
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", args, err)
			continue
		}
		if got == nil {
			t.Errorf("%q: no action ran", args)
			continue
		}
		leaves++
		for _, a := range got.Args().Slice() {
			if isFlagWord(a) {
				t.Errorf("%q: flag %s left among the operands %q", args, a, got.Args().Slice())
			}
		}
		for _, name := range written {
			if !got.IsSet(name) {
				t.Errorf("%q: --%s not set", args, name)
			}
		}
	}
	t.Logf("%d README command lines parsed", leaves)
}

// TestFlagsFirst pins the reordering: value flags keep their value, "--"
// and what follows stay last, the application's flags stay in place.
func TestFlagsFirst(t *testing.T) {
	app := NewApp()
	for _, tc := range []struct{ in, want string }{
		{"ddmtui hprof analyze f.hprof --json --top 5", "ddmtui hprof analyze --json --top 5 f.hprof"},
		{"ddmtui hprof convert in out --max-output-ratio 16", "ddmtui hprof convert --max-output-ratio 16 in out"},
		{"ddmtui hprof path f 0x1 0x2 --json", "ddmtui hprof path --json f 0x1 0x2"},
		{"ddmtui --adb off list --json", "ddmtui --adb off list --json"},
		{"ddmtui trace f -- --json", "ddmtui trace f -- --json"},
		{"ddmtui trace f --clock wall -- -odd", "ddmtui trace --clock wall f -- -odd"},
		{"ddmtui anr - --json", "ddmtui anr --json -"},
		{"ddmtui trace f --json --generate-bash-completion", "ddmtui trace --json f --generate-bash-completion"},
		{"ddmtui nosuch a --json", "ddmtui nosuch a --json"},
		{"ddmtui trace f --top=3", "ddmtui trace --top=3 f"},
	} {
		if got := strings.Join(flagsFirst(app, strings.Fields(tc.in)), " "); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}
