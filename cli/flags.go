package cli

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
)

// requireFlags fails, as a command line error, when flags are not set.
func requireFlags(c *cli.Context, names ...string) error {
	var missing []string
	for _, n := range names {
		if !c.IsSet(n) {
			missing = append(missing, "--"+n)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return onUsageError(c, fmt.Errorf("missing %s", strings.Join(missing, ", ")), true)
}

// Run runs app on the command line args (args[0] is the program's name)
// after moving each command's flags ahead of its operands, so that flags
// may follow them as the README writes them (`ddmtui hprof analyze FILE
// --json`, `ddmtui hprof convert IN OUT --max-output-ratio 16`): urfave/cli
// v2 stops parsing a command's flags at its first operand. main and the
// tests run the application through here.
// A shell asking for completions never runs a command's action: urfave/cli
// turns completion off when a "--" stands among the words (as it does when
// the word being completed is "--": `ddmtui sim --<Tab>` started a
// simulator), so those lines are answered here.
func Run(app *cli.App, args []string) error {
	if n := len(args); n > 1 && args[n-1] == completionFlag && slices.Contains(args[1:n-1], "--") {
		return completeAfterDashes(app, args[1:n-1])
	}
	return app.Run(flagsFirst(app, args))
}

// completeAfterDashes answers a completion request whose words hold "--":
// the long flags of the command they name when "--" is the word being
// completed, nothing when it stands before it (operands only follow).
func completeAfterDashes(app *cli.App, words []string) error {
	if words[len(words)-1] != "--" || slices.Index(words, "--") != len(words)-1 {
		return nil
	}
	flags, _, _ := commandPath(app, words)
	w := app.Writer
	if w == nil {
		w = os.Stdout
	}
	for _, fl := range flags {
		if v, ok := fl.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		for _, n := range fl.Names() {
			if utf8.RuneCountInString(n) > 1 {
				fmt.Fprintln(w, "--"+n)
			}
		}
	}
	return nil
}

// commandPath walks words (without the program's name) along the command
// tree: the application's flags, a command's name, its subcommand's, …
// It returns the flags of the last command named (the application's when
// none is), that command (nil for none), and how many words the path
// takes. It stops at "--" and at the first word that names no command.
func commandPath(app *cli.App, words []string) (flags []cli.Flag, cmd *cli.Command, n int) {
	flags, commands := app.Flags, app.Commands
	for n < len(words) {
		a := words[n]
		if a == "--" {
			break
		}
		if isFlagWord(a) {
			n += 1 + flagValueWords(flags, a, words[n+1:])
			continue
		}
		next := findCommand(commands, a)
		if next == nil {
			break
		}
		cmd, flags, commands = next, next.Flags, next.Subcommands
		n++
	}
	return flags, cmd, n
}

// completionFlag is the flag urfave/cli looks for as the last argument when
// a shell asks for completions; it stays last.
const completionFlag = "--generate-bash-completion"

// flagsFirst returns args with the operands of the command they name moved
// behind that command's flags. The application's and intermediate
// commands' flags stay where they stand; a flag that takes a value keeps
// the word after it; "--" and everything after it stay last, as written;
// an unknown flag is moved as a flag that takes no value (its parser then
// reports it). args are returned unchanged when they name no command.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	rest := args[1:]
	var tail []string
	if rest[len(rest)-1] == completionFlag {
		rest, tail = rest[:len(rest)-1], []string{completionFlag}
	}
	// The path to the command stays as written, each level's flags in
	// place.
	flags, cmd, n := commandPath(app, rest)
	if cmd == nil {
		return args
	}
	out := append([]string{args[0]}, rest[:n]...)
	rest = rest[n:]
	var operands []string
	for len(rest) > 0 {
		a := rest[0]
		if a == "--" {
			operands = append(operands, rest...)
			break
		}
		if !isFlagWord(a) {
			operands, rest = append(operands, a), rest[1:]
			continue
		}
		n := 1 + flagValueWords(flags, a, rest[1:])
		out, rest = append(out, rest[:n]...), rest[n:]
	}
	out = append(out, operands...)
	return append(out, tail...)
}

// isFlagWord reports whether a command-line word is a flag ("-o",
// "--json", "--top=5"); "-" alone (standard input) is an operand.
func isFlagWord(a string) bool { return len(a) > 1 && a[0] == '-' }

// flagValueWords is how many of the words after the flag word a (1 or 0)
// are its value: one for a flag of flags that takes a value and was not
// written --name=value.
func flagValueWords(flags []cli.Flag, a string, after []string) int {
	name := strings.TrimLeft(a, "-")
	if strings.Contains(name, "=") || len(after) == 0 {
		return 0
	}
	for _, fl := range flags {
		for _, n := range fl.Names() {
			if n != name {
				continue
			}
			if v, ok := fl.(cli.DocGenerationFlag); ok && v.TakesValue() {
				return 1
			}
			return 0
		}
	}
	return 0
}

// findCommand is the command among cmds named or aliased name.
func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}
