package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/config"
)

// configFlag names the configuration file (global: before the command).
func configFlag() cli.Flag {
	return &cli.StringFlag{Name: "config", Usage: "configuration file (default: $XDG_CONFIG_HOME/ddmtui/config.toml, or ~/.config/ddmtui/config.toml; see ddmtui config)"}
}

// configFile returns the configuration in force: --config's file (which must
// exist), else the default path's file if there is one. It is read once per
// run and kept in the App's metadata.
func configFile(c *cli.Context) (*config.File, error) {
	if f, ok := c.App.Metadata["config"].(*config.File); ok {
		return f, nil
	}
	path, explicit := c.String("config"), true
	if path == "" {
		explicit = false
		p, err := config.DefaultPath()
		if err != nil {
			return nil, err
		}
		path = p
	}
	f, err := config.Load(path)
	if errors.Is(err, fs.ErrNotExist) && !explicit {
		f, err = &config.File{Path: path}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if err := useKeys(f); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if err := useTheme(f); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if c.App.Metadata == nil {
		c.App.Metadata = map[string]any{}
	}
	c.App.Metadata["config"] = f
	return f, nil
}

// applyConfig gives the flags of c's command that the command line left
// unset the values the configuration file sets. It is every command's
// Before hook.
func applyConfig(c *cli.Context) error {
	if c.Command == nil || c.Command.Name == c.App.Name {
		if isCommandRun(c) {
			return nil // the command applies it to its own flags
		}
	} else if err := inheritGlobalFlags(c); err != nil {
		return err
	}
	f, err := configFile(c)
	if err != nil {
		return err
	}
	flags := c.App.Flags
	if c.Command != nil && c.Command.Name != "" {
		flags = c.Command.Flags
	}
	defined := map[string]bool{}
	for _, fl := range flags {
		for _, n := range fl.Names() {
			defined[n] = true
		}
	}
	for _, s := range f.Settings() {
		if !defined[s.Flag] || c.IsSet(s.Flag) {
			continue
		}
		for _, v := range s.Values {
			if err := c.Set(s.Flag, v); err != nil {
				return fmt.Errorf("config: %w", f.KeyError(s.Key, fmt.Sprintf("%q is not a valid value for --%s", v, s.Flag)))
			}
		}
	}
	if defined["memory-budget"] {
		return applyMemoryBudget(c)
	}
	return nil
}

// withConfig installs applyConfig as the Before hook of cmds and their
// subcommands (keeping any hook they had, which runs after it).
func withConfig(cmds []*cli.Command) {
	for _, cmd := range cmds {
		prev := cmd.Before
		cmd.Before = func(c *cli.Context) error {
			if err := applyConfig(c); err != nil {
				return err
			}
			if prev != nil {
				return prev(c)
			}
			return nil
		}
		withConfig(cmd.Subcommands)
	}
}

func configCommand() *cli.Command {
	return &cli.Command{
		Name:  "config",
		Usage: "where the configuration file is read from, and a commented default one",
		Subcommands: []*cli.Command{
			{
				Name:  "path",
				Usage: "print the path the configuration is read from (and whether it exists)",
				Action: func(c *cli.Context) error {
					f, err := configFile(c)
					if err != nil {
						return err
					}
					state := "exists"
					if !fileExists(f.Path) {
						state = "does not exist: built-in defaults are used"
					}
					_, err = fmt.Fprintf(c.App.Writer, "%s (%s)\n", f.Path, state)
					return err
				},
			},
			{
				Name:  "default",
				Usage: "print a configuration file with every key commented out at its built-in default",
				Action: func(c *cli.Context) error {
					_, err := fmt.Fprint(c.App.Writer, defaultConfig(c.App))
					return err
				},
			},
		},
	}
}

// defaultConfig writes the configuration file that sets nothing: every key
// commented out, with its flag's usage and built-in default, taken from the
// flag definitions themselves.
func defaultConfig(app *cli.App) string {
	flags := map[string]cli.Flag{}
	var walk func([]*cli.Command)
	add := func(fs []cli.Flag) {
		for _, fl := range fs {
			for _, n := range fl.Names() {
				if _, ok := flags[n]; !ok {
					flags[n] = fl
				}
			}
		}
	}
	walk = func(cmds []*cli.Command) {
		for _, cmd := range cmds {
			add(cmd.Flags)
			walk(cmd.Subcommands)
		}
	}
	add(app.Flags)
	walk(app.Commands)

	var b strings.Builder
	b.WriteString("# ddmtui configuration (TOML). Every key is optional; a flag on the command line wins.\n")
	b.WriteString("# Written by `ddmtui config default`: each key is shown commented out at its built-in default.\n")
	table := ""
	for _, k := range config.Keys {
		fl, ok := flags[k.Flag]
		if !ok {
			continue
		}
		if k.Table != table {
			table = k.Table
			fmt.Fprintf(&b, "\n[%s]\n", table)
		}
		doc, _ := fl.(cli.DocGenerationFlag)
		usage, def := "", ""
		if doc != nil {
			usage, def = doc.GetUsage(), doc.GetDefaultText()
			if def == "" {
				def = doc.GetValue()
			}
		}
		fmt.Fprintf(&b, "# --%s: %s\n", k.Flag, usage)
		fmt.Fprintf(&b, "# %s = %s\n", k.Name, tomlValue(fl, def))
	}
	b.WriteString(defaultKeysAndTheme())
	return b.String()
}

// tomlValue writes a flag's default as a TOML value of the key's type.
func tomlValue(fl cli.Flag, def string) string {
	switch fl.(type) {
	case *cli.IntFlag, *cli.BoolFlag:
		if def == "" {
			def = "false"
		}
		return def
	case *cli.StringSliceFlag:
		if def == "" {
			return "[]"
		}
		parts := strings.Split(def, ", ")
		for i, p := range parts {
			parts[i] = fmt.Sprintf("%q", strings.Trim(p, `"`))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	default:
		return fmt.Sprintf("%q", strings.Trim(def, `"`))
	}
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
