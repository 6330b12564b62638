package cli

import (
	"flag"
	"fmt"
	"io"
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

// parseTrailingFlags lets flags follow FILE (`ddmtui trace FILE --json`):
// urfave/cli v2 stops parsing flags at the first argument, so the arguments
// are parsed again with the command's flags, and what is found is set on c.
// It returns the positional arguments.
func parseTrailingFlags(c *cli.Context) ([]string, error) {
	args := c.Args().Slice()
	if len(args) <= 1 {
		return args, nil
	}
	fs := flag.NewFlagSet(c.Command.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	for _, f := range c.Command.Flags {
		if err := f.Apply(fs); err != nil {
			return nil, err
		}
	}
	var positional []string
	for rest := args; len(rest) > 0; {
		if err := fs.Parse(rest); err != nil {
			return nil, err
		}
		rest = fs.Args()
		if len(rest) > 0 {
			positional = append(positional, rest[0])
			rest = rest[1:]
		}
	}
	var setErr error
	fs.Visit(func(f *flag.Flag) {
		if err := c.Set(f.Name, f.Value.String()); err != nil && setErr == nil {
			setErr = err
		}
	})
	return positional, setErr
}
