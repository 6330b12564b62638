package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/record"
)

// logcatFlag says whether a recording follows the device logs.
func logcatFlag() cli.Flag {
	return &cli.BoolFlag{Name: "logcat", Value: true, Usage: "record the device log (logcat) of every device whose VMs are monitored; --logcat=false leaves it out"}
}

// parseSize reads a size: a number of bytes with an optional K, M, G or T
// suffix (powers of 1024; a trailing B or iB is allowed).
func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(strings.ToUpper(s))
	t = strings.TrimSuffix(strings.TrimSuffix(t, "B"), "I")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K':
			mult = 1 << 10
		case 'M':
			mult = 1 << 20
		case 'G':
			mult = 1 << 30
		case 'T':
			mult = 1 << 40
		}
		if mult > 1 {
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
	if err != nil || v < 0 || v*float64(mult) > 1<<62 {
		return 0, fmt.Errorf("size %q: want a number of bytes, optionally with K, M, G or T", s)
	}
	return int64(v * float64(mult)), nil
}

// recording is a recorder writing to a file, flushed every second.
type recording struct {
	rec    *monitor.Recorder
	path   string
	f      *os.File
	cancel context.CancelFunc
	done   chan error
}

// startRecording creates path and starts recording into it.
func startRecording(path, maxSize string) (*recording, error) {
	var limit int64
	if maxSize != "" {
		var err error
		if limit, err = parseSize(maxSize); err != nil {
			return nil, fmt.Errorf("--max-size: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	rec, err := monitor.NewRecorder(f, limit)
	if err != nil {
		f.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &recording{rec: rec, path: path, f: f, cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- rec.Run(ctx) }()
	return r, nil
}

// stop flushes the last block and closes the file.
func (r *recording) stop() error {
	r.cancel()
	err := <-r.done
	if errors.Is(err, record.ErrFull) {
		err = nil // said when it happened
	}
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func recordCommand() *cli.Command {
	return &cli.Command{
		Name:      "record",
		Usage:     "record what the monitor receives from the VMs into a file, without a dashboard",
		ArgsUsage: " ",
		Description: "Runs discovery and the VM sessions headless and records every input (DDM chunks, /proc and\n" +
			"dumpsys readings, VMs coming and going, the devices' log entries) with its time into FILE, flushed every second.\n" +
			"Replay it with ddmtui replay FILE. Stops at --duration, at the size limit, or on Ctrl-C.",
		Flags: append(discoveryFlags(),
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Usage: "the recording `FILE`"},
			&cli.DurationFlag{Name: "duration", Usage: "stop after this long (0: until interrupted)"},
			&cli.StringFlag{Name: "max-size", Usage: "stop when the file reaches SIZE (e.g. 500M, 2G; 0: no limit)"},
			logcatFlag(),
		),
		Action: func(c *cli.Context) error {
			if err := durationAtLeast(c, "duration", 0, "want a positive duration, or 0 to record until interrupted"); err != nil {
				return err
			}
			d, err := discoveryFromFlags(c)
			if err != nil {
				return err
			}
			if err := checkDiscoveryFinds(d); err != nil {
				return err
			}
			r, err := startRecording(c.String("output"), c.String("max-size"))
			if err != nil {
				return err
			}
			ctx, stop := commandContext(c)
			defer stop()
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			opts := sessionOptions(c)
			opts.Recorder = r.rec
			store := monitor.NewStore(monitor.NewBus())
			defer watchMemory()()
			engine := newEngine(c, store, opts)
			stopLogs := recordLogs(c.Bool("logcat"), store, d, r, nil)
			runErr := make(chan error, 1)
			go func() { runErr <- engine.Run(ctx, d) }()
			select {
			case <-ctx.Done():
			case <-r.rec.Full():
				fmt.Fprintln(c.App.ErrWriter, r.fullMessage())
				cancel()
			case err := <-runErr:
				runErr <- err
			}
			cancel()
			err = <-runErr
			stopLogs()
			if serr := r.stop(); err == nil {
				err = serr
			}
			if err == nil {
				fmt.Fprintf(c.App.ErrWriter, "recorded %s (%d bytes)\n", r.path, r.rec.Written())
			}
			return err
		},
	}
}
