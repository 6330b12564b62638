package devshell

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"time"

	"github.com/ddmtui/ddmtui/adb"
)

// Thread dumps through the device. How a non-root shell gets an app's Java
// stacks, by release (AOSP system/core debuggerd, art/runtime
// signal_catcher.cc, frameworks/base ActivityManagerService):
//
//   - Before Android 8: `kill -3 PID` makes ART/Dalvik's signal catcher
//     append the dump to /data/anr/traces.txt, which the shell may read.
//     The shell user may signal only processes of its own uid, so this
//     works on emulators and eng/userdebug builds (adbd as root), not for
//     an app on a retail phone.
//   - Android 8 and later: the runtime sends the dump to tombstoned, which
//     writes it under /data/anr (trace_NN, mode 0600 system) — readable
//     only by root. `debuggerd -j PID` asks for the same dump and prints
//     it on its own standard output; it must be allowed to signal the
//     process (root: `adb root` on an emulator or userdebug build).
//   - For a debuggable app, `run-as PKG` runs as the app's uid, which may
//     signal its own process; `run-as PKG debuggerd -j PID` is tried too.
//
// Each way is tried in turn; when none gives a dump, the error reports
// what each said.

// debuggerdTimeout bounds one debuggerd attempt: the tool itself waits
// without limit for a process that never answers the signal.
const debuggerdTimeout = 6 * time.Second

// tryDebuggerd runs one debuggerd command line, bounded by
// debuggerdTimeout, and returns the dump or a one-line account of why not.
func tryDebuggerd(ctx context.Context, sh Shell, cmd string, marker []byte) ([]byte, string) {
	dctx, cancel := context.WithTimeout(ctx, debuggerdTimeout)
	defer cancel()
	out, err := sh.Run(dctx, cmd)
	if err == nil && bytes.Contains(out, marker) {
		return out, ""
	}
	if dctx.Err() != nil && ctx.Err() == nil {
		return nil, cmd + ": no answer within " + debuggerdTimeout.String()
	}
	return nil, cmd + ": " + outcome(out, err)
}

// ThreadDump returns the Java stacks of process pid as its runtime prints
// them (SIGQUIT dump text): `debuggerd -j PID` (Android 8+), the same as
// the app (run-as, for a debuggable app; pkg and app name it), or kill -3
// and the ANR file (before Android 8), whose reads are bounded by limit.
// When nothing works the error says why for each way.
func ThreadDump(ctx context.Context, sh Shell, pid int, pkg, app string, limit int64) ([]byte, error) {
	if pid <= 0 {
		return nil, errors.New("the VM's pid is not known")
	}
	marker := []byte(fmt.Sprintf("----- pid %d ", pid))
	var why []string

	// 1. debuggerd -j (Android 8+); 2. the same as the app, when it is
	// debuggable (run-as refuses otherwise).
	spid := strconv.Itoa(pid)
	cmds := []string{adb.ShellCommand("debuggerd", "-j", spid)}
	if pkg := packageOf(pkg, app); pkg != "" {
		cmds = append(cmds, adb.ShellCommand("run-as", pkg, "debuggerd", "-j", spid))
	}
	for _, cmd := range cmds {
		out, reason := tryDebuggerd(ctx, sh, cmd, marker)
		if out != nil {
			return out, nil
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		why = append(why, reason)
	}

	// 3. SIGQUIT and the ANR file (before Android 8).
	data, err := sigquitDump(ctx, sh, pid, marker, limit)
	if err == nil {
		return data, nil
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	why = append(why, err.Error())
	return nil, fmt.Errorf("no thread dump for pid %d: %s. On Android 8 and later the runtime writes SIGQUIT dumps under /data/anr, which only root can read, and debuggerd -j must be allowed to signal the app: use `adb root` (emulator or userdebug build), or a debuggable app",
		pid, strings.Join(why, "; "))
}

// sigquitDump sends SIGQUIT and waits for the VM's new dump in ANRPath: the
// file may already hold older dumps of the same pid (the runtime appends one
// block per signal), so what counts is a block that was not there before the
// signal, and only once its "----- end PID -----" line is written.
func sigquitDump(ctx context.Context, sh Shell, pid int, marker []byte, limit int64) ([]byte, error) {
	before, _ := ReadFile(ctx, sh, ANRPath, limit) // unreadable or absent: nothing old to tell apart
	cmd := adb.ShellCommand("kill", "-3", strconv.Itoa(pid))
	out, err := sh.Shell(ctx, cmd)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cmd, err)
	}
	if msg := bytes.TrimSpace(out); len(msg) > 0 {
		return nil, fmt.Errorf("%s: %s", cmd, outcome(msg, nil))
	}
	// The VM's signal catcher writes the dump shortly after the signal.
	var lastErr error
	for i := 0; i < 20; i++ {
		data, err := ReadFile(ctx, sh, ANRPath, limit)
		switch {
		case err == nil && newDumpIn(data, before, marker, pid):
			return data, nil
		case err != nil && errors.Is(err, fs.ErrPermission):
			return nil, fmt.Errorf("%s sent, but %w", cmd, err)
		case ctx.Err() != nil:
			return nil, ctx.Err()
		}
		lastErr = err
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	if lastErr != nil {
		return nil, fmt.Errorf("%s sent, but %w", cmd, lastErr)
	}
	return nil, fmt.Errorf("%s sent, but no dump for pid %d appeared in %s", cmd, pid, ANRPath)
}

// newDumpIn reports whether data (the ANR file now) holds a complete dump
// of pid that before (the file when the signal was sent) did not: one more
// block of pid appended, or the file rewritten with one.
func newDumpIn(data, before, marker []byte, pid int) bool {
	n := bytes.Count(data, marker)
	if n == 0 {
		return false
	}
	if bytes.HasPrefix(data, before) && n <= bytes.Count(before, marker) {
		return false // the same file, or more of it, with no new block of pid
	}
	if bytes.Equal(data, before) {
		return false
	}
	last := data[bytes.LastIndex(data, marker):]
	return bytes.Contains(last, []byte(fmt.Sprintf("----- end %d -----", pid)))
}

// packageOf is the app's package for run-as: the package name HELO gave,
// else the process name up to ':'; empty when it does not look like one.
func packageOf(pkg, app string) string {
	if pkg == "" {
		pkg, _, _ = strings.Cut(app, ":")
	}
	if !strings.Contains(pkg, ".") {
		return ""
	}
	for _, r := range pkg {
		if !(r == '.' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return ""
		}
	}
	return pkg
}

// outcome sums up a command's outcome in one line: its error, else the
// first line it printed.
func outcome(out []byte, err error) string {
	if err != nil {
		return err.Error()
	}
	if l := FirstLine(out); l != "" {
		return l
	}
	return "no output"
}
