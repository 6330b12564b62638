package cli

import (
	"fmt"
	"strings"

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
func Run(app *cli.App, args []string) error {
	return app.Run(flagsFirst(app, args))
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
	out := append([]string{}, args[0])
	flags, commands := app.Flags, app.Commands
	var cmd *cli.Command
	// The path to the command: the application's flags, the command's
	// name, its subcommand's, … each level's flags in place.
	for len(rest) > 0 {
		a := rest[0]
		if a == "--" {
			break
		}
		if isFlagWord(a) {
			n := 1 + flagValueWords(flags, a, rest[1:])
			out, rest = append(out, rest[:n]...), rest[n:]
			continue
		}
		next := findCommand(commands, a)
		if next == nil {
			break
		}
		cmd, flags, commands = next, next.Flags, next.Subcommands
		out, rest = append(out, a), rest[1:]
	}
	if cmd == nil {
		return args
	}
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
