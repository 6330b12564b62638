// Package cli is ddmtui's command-line surface: the urfave/cli commands and
// their flags. Each command has its own file, named for it (list.go,
// snapshot.go, heap.go, hprof.go with hprof_analyze.go for its
// subcommands, …; dashboard.go is the default action, and its runner, which
// demo also uses). A command file parses its flags and calls the packages
// that do the work; some hold presentation logic of their own (logcat's
// device and app lookup, allocs' and serve's output lines, and chrome.go,
// replay's Chrome export of a recording). Helpers several commands share
// live in files named for them: discovery.go (discovery and session flags,
// collect, newEngine), vmlookup.go (withVM: one VM by pid) with pickvm.go,
// flags.go (requireFlags, and Run: flags after operands), globalflags.go, logfile.go,
// config.go, keys.go, output.go (writeOutput, vmLabel), terminal.go,
// ports.go, proxyflags.go, recording.go (--record), simflags.go,
// validate.go and errors.go.
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
		Flags:                append(append(discoveryFlags(), uiFlags()...), logFlag(), configFlag(), memoryBudgetFlag()),
		Before:               applyConfig,
		After:                afterRun,
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
			retraceCommand(),
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
	withMemoryBudgetFlag(app.Commands)
	withConfig(app.Commands)
	withUsageErrors(app.Commands)
	return app
}
