// Package cli is ddmtui's command-line surface: the urfave/cli commands and
// their flags, one file per command, each gluing its flags to the packages
// that do the work; helpers several commands share live in files named for
// them (globalflags.go, logfile.go, …).
package cli

import (
	"github.com/urfave/cli/v2"
)

// Version is set at build time with
// -ldflags "-X github.com/ddmtui/ddmtui/cli.Version=...".
var Version = "dev"

// NewApp returns the ddmtui command line: the dashboard as the default action
// and one subcommand per job.
func NewApp() *cli.App {
	version, _ := buildInfo()
	app := &cli.App{
		Name:                 "ddmtui",
		Usage:                "a terminal Dalvik/ART debug monitor",
		Version:              version,
		EnableBashCompletion: true,
		Flags:                append(append(discoveryFlags(), uiFlags()...), logFlag(), configFlag()),
		Before:               applyConfig,
		After:                closeRunLog,
		OnUsageError:         onUsageError,
		Action:               dashboardAction,
		Commands: []*cli.Command{
			versionCommand(),
			simCommand(),
			listCommand(),
			snapshotCommand(),
			demoCommand(),
			profileCommand(),
			dumpCommand(),
			viewsCommand(),
			heapCommand(),
			hprofCommand(),
			allocsCommand(),
			traceCommand(),
			anrCommand(),
			serveCommand(),
			recordCommand(),
			replayCommand(),
			completionCommand(),
			manCommand(),
			configCommand(),
			logcatCommand(),
		},
	}
	withLogFlag(app.Commands)
	withConfig(app.Commands)
	withUsageErrors(app.Commands)
	return app
}
