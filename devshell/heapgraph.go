package devshell

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ddmtui/ddmtui/internal/safetext"
)

// Java heap graphs through Perfetto (spec/perfetto-heapgraph.md): the heap
// of an app that is profileable or debuggable, from Android 11, taken by
// ART's perfetto_hprof in a fork of the app.

// HeapGraphAPI is the first API level whose runtime writes Java heap
// graphs (the android.java_hprof data source): Android 11.
const HeapGraphAPI = 30

// PerfettoTraceDir is where the shell user's perfetto writes its traces.
const PerfettoTraceDir = "/data/misc/perfetto-traces/"

// perfettoStopAPI is the first API level whose perfetto stops a session
// once its data sources are done (data_source_stop_timeout_ms): Android 12.
const perfettoStopAPI = 31

// heapGraphPoll is how often a background session is checked.
const heapGraphPoll = 250 * time.Millisecond

// PerfettoConfig is the text-format trace config that dumps the Java heap
// of pid once, on a device of the given API level.
func PerfettoConfig(pid, api int) string {
	var b strings.Builder
	b.WriteString("buffers { size_kb: 262144 fill_policy: DISCARD }\n")
	fmt.Fprintf(&b, "data_sources { config { name: \"android.java_hprof\" java_hprof_config { pid: %d } } }\n", pid)
	b.WriteString("data_sources { config { name: \"android.packages_list\" } }\n")
	if api >= perfettoStopAPI {
		b.WriteString("data_source_stop_timeout_ms: 100000\nduration_ms: 1000\n")
	} else {
		b.WriteString("duration_ms: 20000\n") // Android 11 does not stop when the dump is done
	}
	return b.String()
}

// perfettoCommand is the shell command that runs a background session of
// cfg (on stdin) writing path; stderr is merged so a refusal is read.
func perfettoCommand(cfg, path string) string {
	return "echo '" + cfg + "' | perfetto --txt -c - -o " + path + " -d 2>&1"
}

// perfettoPID finds the pid a background perfetto prints.
var perfettoPID = regexp.MustCompile(`(?m)^\s*(\d+)\s*$`)

// ErrHeapGraphAPI is wrapped by the error for a device older than
// HeapGraphAPI.
var ErrHeapGraphAPI = errors.New("heap graphs (the Java heap through perfetto) need Android 11 (API 30) or later")

// DumpHeapGraph takes the Java heap of h.PID as a Perfetto heap graph
// (h.API 0: read from the device):
// `echo CONFIG | perfetto --txt -c - -o /data/misc/perfetto-traces/… -d`,
// waits until the session's pid is gone (kill -0), copies the trace to w
// with sync RECV and deletes it; cancelled, it ends the session first.
// The app must be debuggable or profileable (on user builds perfetto
// skips others without a word: the trace then holds no heap graph, which
// the caller's validation reports). A perfetto that refuses has its
// output in the error, escaped for a terminal.
func DumpHeapGraph(ctx context.Context, sh Shell, h HeapDump, w io.Writer) (int64, error) {
	if h.PID <= 0 {
		return 0, errors.New("the process's pid is not known")
	}
	if h.API <= 0 {
		h.API = readAPI(ctx, sh)
	}
	if h.API > 0 && h.API < HeapGraphAPI {
		return 0, fmt.Errorf("%w; the device is API %d", ErrHeapGraphAPI, h.API)
	}
	path := fmt.Sprintf("%sddmtui-%d-%d.pftrace", PerfettoTraceDir, h.PID, time.Now().UnixNano())
	defer removeQuietly(sh, path, h.log())
	out, err := sh.Run(ctx, perfettoCommand(PerfettoConfig(h.PID, h.API), path))
	if err != nil {
		return 0, err
	}
	m := perfettoPID.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("perfetto refused: %s", perfettoOutput(out))
	}
	session, _ := strconv.Atoi(string(m[1]))
	if err := waitSession(ctx, sh, session, path, h); err != nil {
		if ctx.Err() != nil {
			stopSession(sh, session, h)
		}
		return 0, err
	}
	fi, err := sh.Stat(ctx, path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0, fmt.Errorf("perfetto wrote no trace at %s", path)
	case err != nil:
		return 0, err
	case fi.Size == 0:
		return 0, fmt.Errorf("perfetto wrote an empty trace at %s", path)
	}
	return sh.PullTo(ctx, path, ProgressWriter(w, h.Progress), h.Limit)
}

// readAPI reads the device's API level (0 when it cannot be read: the
// capture is then tried, and perfetto's answer decides).
func readAPI(ctx context.Context, sh Shell) int {
	out, err := sh.Run(ctx, "getprop ro.build.version.sdk")
	if err != nil {
		return 0
	}
	api, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || api < 1 || api > 1000 {
		return 0
	}
	return api
}

// perfettoOutput is perfetto's output as one escaped line.
func perfettoOutput(out []byte) string {
	msg := strings.Join(strings.Fields(string(out)), " ")
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	if msg == "" {
		return "(no output)"
	}
	return safetext.Terminal(msg)
}

// waitSession waits until the background session pid is gone (kill -0
// says "No such process"), telling progress the trace's size meanwhile.
// The wait is bounded by DumpheapTimeout and ctx.
func waitSession(ctx context.Context, sh Shell, pid int, path string, h HeapDump) error {
	wctx, cancel := context.WithTimeout(ctx, DumpheapTimeout)
	defer cancel()
	tick := time.NewTicker(heapGraphPoll)
	defer tick.Stop()
	for {
		out, err := sh.Run(wctx, "kill -0 "+strconv.Itoa(pid))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		}
		if strings.Contains(string(out), "No such process") {
			return nil
		}
		if len(strings.TrimSpace(string(out))) > 0 {
			return fmt.Errorf("waiting for perfetto (pid %d): %s", pid, perfettoOutput(out))
		}
		if h.Progress != nil {
			if fi, err := sh.Stat(wctx, path); err == nil {
				h.Progress(fi.Size)
			}
		}
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("perfetto (pid %d) was still running after %s", pid, DumpheapTimeout)
		case <-tick.C:
		}
	}
}

// stopSession ends a background session ddmtui started (its trace is
// then not written).
func stopSession(sh Shell, pid int, h HeapDump) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := sh.Run(ctx, "kill "+strconv.Itoa(pid)); err != nil {
		h.log().Warn("could not stop perfetto", "pid", pid, "err", err)
	}
}
