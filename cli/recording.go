package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/record"
	"github.com/urfave/cli/v2"
)

// recordFlags are the flags of `--record` on serve and the dashboard.
func recordFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "record", Usage: "record what the monitor receives into FILE (replay it with ddmtui replay FILE)"},
		&cli.StringFlag{Name: "max-size", Usage: "stop recording when the file reaches SIZE (e.g. 500M, 2G; 0: no limit)"},
		logcatFlag(),
	}
}

// recordingFromFlags starts the --record recording, if asked.
func recordingFromFlags(c *cli.Context) (*recording, error) {
	path := c.String("record")
	if path == "" {
		if c.IsSet("max-size") {
			return nil, errors.New("--max-size needs --record FILE")
		}
		return nil, nil
	}
	r, err := startRecording(path, c.String("max-size"))
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	return r, nil
}

// recordLogs starts recording the device logs of the VMs in store into rec
// when on (--logcat), through logs (the dashboard's, which its log pane
// reads too) or, when nil, logs of its own; stop ends the following (and
// its own logs): call it before the recording stops.
func recordLogs(on bool, store *monitor.Store, d monitor.Discovery, rec *recording, logs *devicelog.Logs) (stop func()) {
	if rec == nil || !on {
		return func() {}
	}
	own := logs == nil
	if own {
		logs = devicelog.NewLogs(0)
	}
	logs.Recorder = rec.rec
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		followDeviceLogs(ctx, store, logs, d)
	}()
	return func() {
		cancel()
		<-done
		if own {
			logs.Close()
		}
	}
}

// fullMessage is the line printed when the size limit stops a recording.
func (r *recording) fullMessage() string {
	if errors.Is(r.rec.Err(), record.ErrFull) {
		return fmt.Sprintf("recording stopped: %s reached its size limit (%d bytes)", r.path, r.rec.Written())
	}
	return fmt.Sprintf("recording stopped: %s: %v", r.path, r.rec.Err())
}
