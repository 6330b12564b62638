package devshell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/ddmtui/ddmtui/adb"
)

// CPU samples through simpleperf (spec/simpleperf.md): `simpleperf record
// --app PKG` runs as the app (run-as for a debuggable app,
// simpleperf_app_runner for a profileable one) from Android 10, and
// `simpleperf report-sample --protobuf --show-callchain` turns its
// perf.data into the stream simpleperf.Load reads, on the device, so that
// ddmtui stays one binary.

// SampleAPI is the first API level on which a shell user may sample an
// app as the app (`simpleperf record --app`): Android 10.
const SampleAPI = 29

// Errors of RecordSamples a caller may branch on; the message of the
// error returned says more (simpleperf's own words, where it gave some).
var (
	ErrSampleAPI      = errors.New("sampling an app needs Android 10 (API 29) or later")
	ErrNoSimpleperf   = errors.New("simpleperf is not on the device")
	ErrNotProfileable = errors.New("simpleperf could not record the app")
)

// SampleRecording is one recording: the process, how to sample it and the
// bounds.
type SampleRecording struct {
	PID, API  int
	Package   string        // the app's package (--app)
	Duration  time.Duration // --duration (simpleperf takes fractions of a second)
	Frequency int           // samples per second (-f); 0: 1000
	CallGraph string        // "fp" or "dwarf"; "": fp
	OffCPU    bool          // --trace-offcpu
	Limit     int64         // bounds the file pulled (≤ 0: none)
	// Stage, when set, is told what is under way ("recording",
	// "converting", "pulling").
	Stage func(string)
	Log   *slog.Logger // nil: none
}

// recordCommand is the `simpleperf record` command line: -f after -e, as
// the option applies to the events named before it.
func (r SampleRecording) recordCommand(data string) string {
	freq := r.Frequency
	if freq <= 0 {
		freq = 1000
	}
	cg := r.CallGraph
	if cg == "" {
		cg = "fp"
	}
	args := []string{"record", "--app", r.Package, "-p", strconv.Itoa(r.PID), "-e", "cpu-clock", "-f", strconv.Itoa(freq),
		"--call-graph", cg}
	if r.OffCPU {
		args = append(args, "--trace-offcpu")
	}
	secs := strconv.FormatFloat(max(r.Duration.Seconds(), 0.001), 'f', -1, 64)
	args = append(args, "--duration", secs, "-o", data)
	return adb.ShellCommand("simpleperf", args...) + " 2>&1"
}

// reportCommand is the conversion on the device.
func reportCommand(data, out string) string {
	return adb.ShellCommand("simpleperf", "report-sample", "--protobuf", "--show-callchain", "-i", data, "-o", out) + " 2>&1"
}

// ValidPackage reports whether a package name can be handed to simpleperf
// (Java package rules: letters, digits, '_' and '.').
func ValidPackage(p string) bool {
	if p == "" || len(p) > 255 {
		return false
	}
	for _, r := range p {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// RecordSamples records the app's CPU for r.Duration, converts the
// recording on the device, copies the stream to w (sync RECV, bounded by
// r.Limit and ctx) and removes both device files, whatever happened. The
// device's refusals come back as ErrSampleAPI, ErrNoSimpleperf or
// ErrNotProfileable, wrapped with simpleperf's own message (raw device
// text: escape it before showing it).
func RecordSamples(ctx context.Context, sh Shell, r SampleRecording, w io.Writer) (int64, error) {
	log := r.Log
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	stage := func(s string) {
		if r.Stage != nil {
			r.Stage(s)
		}
	}
	switch {
	case r.API > 0 && r.API < SampleAPI:
		return 0, fmt.Errorf("%w; the device is API %d", ErrSampleAPI, r.API)
	case r.PID <= 0:
		return 0, errors.New("the process's pid is not known")
	case !ValidPackage(r.Package):
		return 0, fmt.Errorf("the process's package %q is not known or not a package name", r.Package)
	}
	base := fmt.Sprintf("/data/local/tmp/ddmtui-%d-%d", r.PID, time.Now().UnixNano())
	data, out := base+".data", base+".trace"
	defer removeQuietly(sh, data, log)
	defer removeQuietly(sh, out, log)
	stage("recording")
	msg, err := sh.Run(ctx, r.recordCommand(data))
	if err != nil {
		if ctx.Err() != nil {
			stopRecording(sh, data, log)
		}
		return 0, err
	}
	if err := checkOutput(ctx, sh, data, msg); err != nil {
		return 0, err
	}
	stage("converting")
	msg, err = sh.Run(ctx, reportCommand(data, out))
	if err != nil {
		return 0, err
	}
	if err := checkOutput(ctx, sh, out, msg); err != nil {
		return 0, fmt.Errorf("report-sample: %w", err)
	}
	stage("pulling")
	return sh.PullTo(ctx, out, w, r.Limit)
}

// stopRecording ends a recording whose command was cancelled (closing the
// stream need not end simpleperf on a device): SIGINT to the simpleperf
// writing this recording's own file, found by its unique path, then a
// moment for it to close the file before it is removed.
func stopRecording(sh Shell, data string, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if out, err := sh.Run(ctx, adb.ShellCommand("pkill", "-INT", "-f", data)); err != nil {
		log.Warn("could not stop a cancelled recording", "path", data, "err", err, "output", FirstLine(out))
		return
	}
	select {
	case <-time.After(time.Second):
	case <-ctx.Done():
	}
}

// checkOutput makes sure simpleperf wrote path, else says why from what it
// printed.
func checkOutput(ctx context.Context, sh Shell, path string, printed []byte) error {
	fi, err := sh.Stat(ctx, path)
	if err == nil && fi.Size > 0 {
		return nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	text := strings.Join(strings.Fields(string(printed)), " ")
	if len(text) > 400 {
		text = text[:400] + "…"
	}
	lower := strings.ToLower(text)
	switch {
	case strings.Contains(lower, "simpleperf: not found") || strings.Contains(lower, "simpleperf: inaccessible or not found") ||
		strings.Contains(lower, "no such file or directory") && strings.Contains(lower, "simpleperf"):
		return fmt.Errorf("%w: %s", ErrNoSimpleperf, text)
	case text == "":
		return fmt.Errorf("%w: it wrote no %s and said nothing", ErrNotProfileable, path)
	}
	return fmt.Errorf("%w: %s", ErrNotProfileable, text)
}
