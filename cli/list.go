package cli

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/headless"
)

func listCommand() *cli.Command {
	return &cli.Command{
		Name:  "list",
		Usage: "list the VMs found on local ports and through adb",
		Flags: append(discoveryFlags(),
			&cli.BoolFlag{Name: "json", Usage: "print a JSON array"},
			&cli.DurationFlag{Name: "wait", Value: 2 * time.Second, Usage: "how long to look before printing"},
		),
		Action: func(c *cli.Context) error {
			opts := sessionOptions(c)
			opts.MeminfoInterval = -1 // list prints no memory: spare the devices dumpsys
			found, err := collect(c, opts)
			if err != nil {
				return err
			}
			entries := headless.ListFound(found)
			if c.Bool("json") {
				return headless.WriteJSON(c.App.Writer, entries)
			}
			return headless.WriteListText(c.App.Writer, entries)
		},
	}
}
