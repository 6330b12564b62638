package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/internal/safetext"
)

// cmdError is an error labelled for the command line, with the error it
// wraps still reachable through errors.Is and errors.As.
type cmdError struct {
	msg string
	err error
}

func (e *cmdError) Error() string { return e.msg }
func (e *cmdError) Unwrap() error { return e.err }

// wrapFor labels err with the command and what it was working on ("trace:
// FILE: ..."). Errors of the package of the same name already start with
// "cmd: "; that label is dropped so that each name appears once.
func wrapFor(cmd, what string, err error) error {
	inner := strings.TrimPrefix(err.Error(), cmd+": ")
	return &cmdError{msg: cmd + ": " + what + ": " + inner, err: err}
}

// UsageError is a command line that could not be parsed (an unknown flag, a
// bad value): the program prints it as one line on stderr, with no usage
// text, and exits with status 2.
type UsageError struct {
	Command string // "ddmtui" or "ddmtui list"
	Err     error
}

func (e *UsageError) Error() string {
	return fmt.Sprintf("%v (see %s --help)", e.Err, e.Command)
}

func (e *UsageError) Unwrap() error { return e.Err }

// ExitStatus is the process exit status for err, as Run returned it: 0 for
// none, 2 for a command line that could not be parsed, 1 for any other
// failure.
func ExitStatus(err error) int {
	var u *UsageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &u):
		return 2
	}
	return 1
}

// badValue makes err, a flag value that cannot work (a port range
// backwards, a count below one, an address that is no address), a
// command-line error: exit status 2, as for a flag that does not parse.
// nil stays nil.
func badValue(c *cli.Context, err error) error {
	if err == nil {
		return nil
	}
	return onUsageError(c, err, true)
}

// onUsageError replaces urfave/cli's reaction to a bad command line (the
// error twice and the whole help text on stdout) with a UsageError.
func onUsageError(c *cli.Context, err error, _ bool) error {
	name := c.App.Name
	if c.Command != nil && c.Command.Name != "" && c.Command.Name != c.App.Name {
		name = c.Command.HelpName
		if name == "" {
			name = c.App.Name + " " + c.Command.Name
		}
	}
	return &UsageError{Command: name, Err: err}
}

// withUsageErrors installs onUsageError on cmds and their subcommands, and
// checks their required flags itself: urfave/cli would print the whole help
// text for a missing one. It must run after withConfig, so that a value the
// configuration file gives counts.
func withUsageErrors(cmds []*cli.Command) {
	for _, cmd := range cmds {
		if cmd.OnUsageError == nil {
			cmd.OnUsageError = onUsageError
		}
		if len(cmd.Subcommands) > 0 && cmd.Action == nil {
			// urfave/cli would print "No help topic for 'x'" and exit 3.
			cmd.Action = unknownSubcommand
		}
		if required := takeRequired(cmd.Flags); len(required) > 0 {
			prev := cmd.Before
			cmd.Before = func(c *cli.Context) error {
				if prev != nil {
					if err := prev(c); err != nil {
						return err
					}
				}
				return requireFlags(c, required...)
			}
		}
		withUsageErrors(cmd.Subcommands)
	}
}

// unknownSubcommand is the action of a command that only has subcommands:
// none named (or an unknown one) is a command-line error.
func unknownSubcommand(c *cli.Context) error {
	var names []string
	for _, s := range c.Command.Subcommands {
		if !s.Hidden && s.Name != "help" {
			names = append(names, s.Name)
		}
	}
	want := strings.Join(names, ", ")
	if c.Args().Present() {
		return onUsageError(c, fmt.Errorf("unknown subcommand %q (want one of %s)", c.Args().First(), want), false)
	}
	return onUsageError(c, fmt.Errorf("want a subcommand: one of %s", want), false)
}

// takeRequired clears the Required mark of flags and returns their names.
func takeRequired(flags []cli.Flag) []string {
	var names []string
	for _, fl := range flags {
		switch f := fl.(type) {
		case *cli.StringFlag:
			if f.Required {
				f.Required, f.Usage = false, f.Usage+" (required)"
				names = append(names, f.Name)
			}
		case *cli.IntFlag:
			if f.Required {
				f.Required, f.Usage = false, f.Usage+" (required)"
				names = append(names, f.Name)
			}
		}
	}
	return names
}

// PrintError writes err as ddmtui's last word on w (standard error):
// "ddmtui: " and the message, each line escaped for the terminal. Errors
// carry what peers said — a VM's FAIL message, a device's sync FAIL text,
// an app or file name — so an escape sequence in them (OSC 0 retitling the
// terminal, OSC 52 writing the clipboard, CSI 2J clearing the screen) is
// printed as visible text, never obeyed.
func PrintError(w io.Writer, err error) {
	lines := strings.Split(strings.TrimRight(err.Error(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = safetext.Terminal(strings.TrimSuffix(l, "\r"))
	}
	fmt.Fprintln(w, "ddmtui: "+strings.Join(lines, "\n"))
}
