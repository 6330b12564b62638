package cli

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/internal/budget"
)

// logFlag is --log, accepted by the application and by every command.
func logFlag() cli.Flag {
	return &cli.StringFlag{Name: "log", Usage: "log `FILE` (the dashboard's default: ddmtui.log in the user cache directory; other commands log only when it is given; - for none)"}
}

// withLogFlag gives every command in cmds the --log flag.
func withLogFlag(cmds []*cli.Command) {
	for _, cmd := range cmds {
		if !hasFlag(cmd.Flags, "log") {
			cmd.Flags = append(cmd.Flags, logFlag())
		}
	}
}

func hasFlag(flags []cli.Flag, name string) bool {
	for _, fl := range flags {
		for _, n := range fl.Names() {
			if n == name {
				return true
			}
		}
	}
	return false
}

const logMetadataKey = "log"

// openLog returns the logger writing to the --log file (by default, for the
// dashboard, ddmtui.log in the user cache directory). The file is opened
// once per run and closed by the application's After hook (closeRunLog), so
// the returned closer does nothing; it stays for callers' defer.
func openLog(c *cli.Context) (*slog.Logger, func(), error) {
	l, err := runLog(c, true)
	return l, func() {}, err
}

// commandLog returns the --log file's logger for a headless command, or nil
// when --log was not given (headless commands write no log by default).
func commandLog(c *cli.Context) (*slog.Logger, error) {
	if !c.IsSet("log") {
		return nil, nil
	}
	return runLog(c, false)
}

type runLogFile struct {
	log *slog.Logger
	f   *os.File
}

func runLog(c *cli.Context, useDefault bool) (*slog.Logger, error) {
	if r, ok := c.App.Metadata[logMetadataKey].(*runLogFile); ok {
		return r.log, nil
	}
	discard := slog.New(slog.NewTextHandler(io.Discard, nil))
	path := c.String("log")
	if path == "-" || path == "" && !useDefault {
		return discard, nil
	}
	if path == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return discard, nil
		}
		dir = filepath.Join(dir, "ddmtui")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		path = filepath.Join(dir, "ddmtui.log")
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--log: %w", err)
	}
	r := &runLogFile{log: slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelInfo})), f: f}
	if c.App.Metadata == nil {
		c.App.Metadata = map[string]any{}
	}
	c.App.Metadata[logMetadataKey] = r
	budget.Process.SetLog(r.log) // what the memory budget drops to make room: one line each
	return r.log, nil
}

// closeRunLog closes the run's log file, if one was opened. It is the
// application's After hook.
func closeRunLog(c *cli.Context) error {
	if r, ok := c.App.Metadata[logMetadataKey].(*runLogFile); ok {
		delete(c.App.Metadata, logMetadataKey)
		budget.Process.SetLog(nil)
		return r.f.Close()
	}
	return nil
}
