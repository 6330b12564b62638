package cli

import (
	"fmt"
	"reflect"

	"github.com/urfave/cli/v2"
)

// Flags given before a command's name (`ddmtui --adb off list`) are parsed
// by the application, not by the command, and urfave/cli lets the command
// read its own defaults instead. inheritGlobalFlags makes such a flag count:
// a flag the command also takes gets the value given before it (unless the
// command's own arguments set it again), and a flag the command does not
// take is an error naming it. A flag is never silently ignored.

// appWide are the application's flags that every command reads through its
// parent context rather than defining them itself.
var appWide = map[string]bool{"config": true, "help": true, "version": true, "generate-bash-completion": true}

// isCommandRun reports whether the application context c is about to hand
// over to a command (its first argument names one), so that the
// application's own hooks leave the flags to that command.
func isCommandRun(c *cli.Context) bool {
	first := c.Args().First()
	return first != "" && c.App.Command(first) != nil
}

// inheritGlobalFlags copies the flags set on c's parent context into c (see
// above). It runs in every command's Before hook, ahead of the
// configuration, so values given on the command line win over the file.
func inheritGlobalFlags(c *cli.Context) error {
	lineage := c.Lineage()
	if c.Command == nil || len(lineage) < 2 {
		return nil
	}
	parent := lineage[1]
	if parent.Command == nil || parent.Command.Name != c.App.Name || c.Command.Name == c.App.Name {
		return nil // the application itself, or a command's subcommand
	}
	defined := map[string]cli.Flag{}
	for _, fl := range c.Command.Flags {
		for _, n := range fl.Names() {
			defined[n] = fl
		}
	}
	for _, fl := range c.App.Flags {
		name := fl.Names()[0]
		if !parent.IsSet(name) {
			continue
		}
		own := defined[name]
		if own == nil && !appWide[name] {
			return onUsageError(c, fmt.Errorf("flag --%s given before %q, which does not take it", name, c.Command.Name), true)
		}
		if own != nil && reflect.TypeOf(own) != reflect.TypeOf(fl) {
			// One name, two meanings (the dashboard's --mapping PKG=FILE,
			// a command's --mapping FILE): the value is not the command's.
			return onUsageError(c, fmt.Errorf("flag --%s given before %q is the dashboard's, not %q's: give %q's own after its name",
				name, c.Command.Name, c.Command.Name, c.Command.Name), true)
		}
		if own == nil || c.IsSet(name) {
			continue // the command's own position wins
		}
		if err := copyFlag(parent, c, fl, name); err != nil {
			return fmt.Errorf("--%s: %w", name, err)
		}
	}
	return nil
}

// copyFlag sets flag name on to from from's value, as its text.
func copyFlag(from, to *cli.Context, fl cli.Flag, name string) error {
	switch fl.(type) {
	case *cli.StringSliceFlag:
		for _, v := range from.StringSlice(name) {
			if err := to.Set(name, v); err != nil {
				return err
			}
		}
		return nil
	case *cli.IntSliceFlag:
		for _, v := range from.IntSlice(name) {
			if err := to.Set(name, fmt.Sprint(v)); err != nil {
				return err
			}
		}
		return nil
	}
	return to.Set(name, fmt.Sprint(from.Value(name)))
}
