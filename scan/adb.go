package scan

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"reflect"
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/devshell"
	"github.com/ddmtui/ddmtui/internal/budget"
)

// ADB discovers VMs the way ddmlib does (spec/adb.md §1.4): it follows the
// server's device list (host:track-devices), each online device's processes
// (track-app from Android 12, spec/adb-track-app.md, else track-jdwp), and
// opens jdwp:<pid> for every new debuggable pid; a profileable process
// without JDWP is handed over as an endpoint without a stream. A pid that leaves
// the list, a device that goes away, or the server dying cancels the
// sessions below it; after losing the server it reconnects (starting a new
// server when StartServer is set) and lists everything again.
type ADB struct {
	Client *adb.Client
	// StartServer starts `adb start-server` when nothing answers.
	StartServer bool
	// Required makes Run fail when the server cannot be reached at the
	// start, instead of retrying quietly (an --adb the user asked for).
	Required bool
	// NoTrackApp follows devices through track-jdwp only (debuggable VMs),
	// even where track-app is offered.
	NoTrackApp bool
	// Retry is the pause between reconnection attempts (default 1s).
	Retry  time.Duration
	Logger *slog.Logger
	// MaxDevices caps the devices followed at once (0: DefaultMaxDevices);
	// see adbcap.go.
	MaxDevices int
	// MaxProcesses caps the processes followed at once per device (0:
	// DefaultMaxProcesses); see adbcap.go.
	MaxProcesses int
	// PID, when set, follows that process only: a command after one VM
	// (views --pid) opens no other VM's JDWP connection, which a VM has
	// one of, and which another monitor or debugger may want.
	PID int

	mu           sync.Mutex
	state        string // "connecting", "connected", "unreachable: …"
	devices      int
	skipped      int            // online devices not followed: over MaxDevices
	skippedProcs map[string]int // per device, listed processes not followed: over MaxProcesses
	lists        *budget.Budget // the track-app lists kept (appListBudget)
}

func (a *ADB) setState(state string, devices int) {
	a.mu.Lock()
	a.state, a.devices = state, devices
	a.mu.Unlock()
}

// Status describes the connection to the server for a status line:
// "adb 127.0.0.1:5037: 2 devices", "adb …: unreachable (retrying)".
func (a *ADB) Status() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch a.state {
	case "":
		return "adb " + a.Name() + ": connecting"
	case "connected":
		procs := a.skippedProcsNote()
		if a.skipped > 0 {
			return fmt.Sprintf("adb %s: %d devices, following %d (--adb-max-devices)", a.Name(), a.devices, a.devices-a.skipped) + procs
		}
		if a.devices == 1 {
			return "adb " + a.Name() + ": 1 device" + procs
		}
		return fmt.Sprintf("adb %s: %d devices", a.Name(), a.devices) + procs
	}
	return "adb " + a.Name() + ": " + a.state
}

// Name is the server address, for messages.
func (a *ADB) Name() string {
	if a.Client.Addr != "" {
		return a.Client.Addr
	}
	addr, err := adb.DefaultServerAddr()
	if err != nil {
		return "adb"
	}
	return addr
}

func (a *ADB) logger() *slog.Logger {
	if a.Logger != nil {
		return a.Logger
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// Check reaches the server once (starting it if allowed) and returns its
// version; commands use it to fail fast on an unreachable --adb.
func (a *ADB) Check(ctx context.Context) (int, error) {
	if a.StartServer {
		return a.Client.EnsureServer(ctx)
	}
	return a.Client.Version(ctx)
}

// Run tracks devices until ctx ends and waits for every handler it started.
func (a *ADB) Run(ctx context.Context, h Handler) error {
	retry := a.Retry
	if retry <= 0 {
		retry = time.Second
	}
	log := a.logger().With("adb", a.Name())
	first := true
	for ctx.Err() == nil {
		if _, err := a.Check(ctx); err != nil {
			a.setState("unreachable (retrying)", 0)
			if first && a.Required {
				return fmt.Errorf("adb server %s: %w", a.Name(), err)
			}
			if first {
				log.Info("adb server not available; will keep trying", "error", err)
			}
			first = false
			if !sleepCtx(ctx, retry) {
				return nil
			}
			continue
		}
		first = false
		err := a.trackOnce(ctx, h)
		if ctx.Err() != nil {
			return nil
		}
		a.setState("server lost (reconnecting)", 0)
		log.Info("lost the adb server; reconnecting", "error", err)
		if !sleepCtx(ctx, retry) {
			return nil
		}
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// trackOnce follows one server connection until it ends.
func (a *ADB) trackOnce(ctx context.Context, h Handler) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tr, err := a.Client.TrackDevices(ctx)
	if err != nil {
		return err
	}
	defer tr.Close()
	var wg sync.WaitGroup
	defer wg.Wait()
	devices := map[string]context.CancelFunc{}
	defer func() {
		for _, c := range devices {
			c()
		}
	}()
	for list := range tr.Updates() {
		online := map[string]bool{}
		for _, d := range list {
			if d.Online() {
				online[d.Serial] = true
			}
		}
		a.setState("connected", len(online))
		for serial, stop := range devices {
			if !online[serial] {
				stop()
				delete(devices, serial)
			}
		}
		for _, serial := range a.admit(online, devices) {
			dctx, dcancel := context.WithCancel(ctx)
			devices[serial] = dcancel
			wg.Add(1)
			go func() {
				defer wg.Done()
				a.followDevice(dctx, serial, h)
			}()
		}
	}
	if err := tr.Err(); err != nil {
		return err
	}
	return errors.New("device tracking ended")
}

// followDevice follows one device's processes until ctx ends: through
// track-app where the device offers it (Android 12+: debuggable and
// profileable processes, with names from Android 15), else through
// track-jdwp (debuggable VMs only). A device that refuses track-app is
// asked for track-jdwp from then on, silently.
func (a *ADB) followDevice(ctx context.Context, serial string, h Handler) {
	log := a.logger().With("device", serial)
	trackApp := !a.NoTrackApp
	for ctx.Err() == nil {
		if trackApp {
			tr, err := a.Client.TrackApp(ctx, serial, func(err error) {
				log.Warn("track-app message left out; the last list stays", "error", err)
			})
			switch {
			case err == nil:
				log.Debug("following track-app")
				lists := appEntries(log, a.appListBudget())
				follow(a, ctx, serial, tr.Updates(), lists.convert, h)
				tr.Close()
				lists.release()
				if !sleepCtx(ctx, 500*time.Millisecond) {
					return
				}
				continue
			case adb.IsRefused(err) && ctx.Err() == nil:
				log.Debug("no track-app on the device (before Android 12); following track-jdwp", "error", err)
				trackApp = false
			default:
				log.Debug("track-app failed", "error", err)
				if !sleepCtx(ctx, time.Second) {
					return
				}
				continue
			}
		}
		tr, err := a.Client.TrackJDWP(ctx, serial)
		if err != nil {
			log.Debug("track-jdwp failed", "error", err)
			if !sleepCtx(ctx, time.Second) {
				return
			}
			continue
		}
		follow(a, ctx, serial, tr.Updates(), jdwpEntries, h)
		tr.Close()
		if !sleepCtx(ctx, 500*time.Millisecond) {
			return
		}
	}
}

// appListBudget is the budget the devices' track-app lists are charged
// to: DefaultAppListBytes of the process-wide budget.
func (a *ADB) appListBudget() *budget.Budget {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.lists == nil {
		a.lists = budget.Process.Child(DefaultAppListBytes)
	}
	return a.lists
}

// procEntry is one process a device lists: a debuggable VM (JDWP) or a
// profileable process without JDWP; app is its track-app entry, nil when
// it came from track-jdwp.
type procEntry struct {
	pid  int
	jdwp bool
	app  *adb.AppProcess
}

func jdwpEntries(pids []int) []procEntry {
	out := make([]procEntry, len(pids))
	for i, pid := range pids {
		out[i] = procEntry{pid: pid, jdwp: true}
	}
	return out
}

// repeatWarn is how many unchanged track-app lists in a row make the
// scanner say that the device repeats itself (a real adbd sends a list
// only after a change).
const repeatWarn = 100

// DefaultAppListBytes is the share of the process-wide budget that the
// track-app lists an adb discovery keeps (the last list of each device
// followed, and its entries) may hold together: a busy phone's list is a
// few KB, one hostile message of 30,000 entries (240 KB) decodes to a few
// MiB (issue 37 #9).
const DefaultAppListBytes = 16 << 20

// appProcessBytes is what an AppProcess holds beside its strings.
const appProcessBytes = 120

// appLists converts a device's track-app lists into entries, logging the
// entries each left out and, once, a device that sends the same list over
// and over. The list it keeps (the last one, to see repeats, and the
// entries made of it) is charged to b: a list that does not fit, even
// once cheaper things made room, is left out with a log line, and the last
// one stays. release gives the bytes back when the device's stream ends.
type appLists struct {
	log     *slog.Logger
	b       *budget.Budget
	last    []adb.AppProcess
	repeats int
	held    int64
}

func appEntries(log *slog.Logger, b *budget.Budget) *appLists { return &appLists{log: log, b: b} }

// listBytes is what keeping procs costs: each entry twice (the list and
// the entry made of it) with its strings.
func listBytes(procs []adb.AppProcess) int64 {
	var n int64
	for i := range procs {
		p := &procs[i]
		n += appProcessBytes + int64(len(p.ProcessName)+len(p.Architecture))
		for _, pkg := range p.PackageNames {
			n += 16 + int64(len(pkg))
		}
	}
	return 2 * n
}

func (c *appLists) convert(l adb.AppList) []procEntry {
	for _, why := range l.Dropped {
		c.log.Warn("track-app entry left out", "why", why)
	}
	procs := l.Processes
	if procs == nil {
		procs = []adb.AppProcess{}
	}
	if c.last != nil && reflect.DeepEqual(c.last, procs) {
		if c.repeats++; c.repeats == repeatWarn {
			c.log.Warn("track-app repeats an unchanged list; repeats are ignored", "times", c.repeats)
		}
		return nil
	}
	n := listBytes(procs)
	if !c.b.TakeBefore(n, budget.RankLog) {
		c.log.Warn("track-app list left out: more than the memory budget has left; the last list stays",
			"processes", len(procs), "bytes", n, "budget", c.b.String())
		return nil
	}
	c.b.Give(c.held)
	c.held = n
	c.last, c.repeats = procs, 0
	out := make([]procEntry, 0, len(l.Processes))
	for i := range l.Processes {
		p := l.Processes[i]
		if !p.Debuggable && !p.Profileable {
			continue
		}
		out = append(out, procEntry{pid: p.PID, jdwp: p.Debuggable, app: &p})
	}
	return out
}

// release gives the kept list's bytes back.
func (c *appLists) release() {
	c.b.Give(c.held)
	c.held, c.last = 0, nil
}

// follow runs a handler for every process of a device's lists: a JDWP
// stream for a debuggable VM, an endpoint without stream for a
// profileable-only process. convert returns nil for an update that changes
// nothing (a repeated list).
func follow[T any](a *ADB, ctx context.Context, serial string, updates <-chan T, convert func(T) []procEntry, h Handler) {
	var wg sync.WaitGroup
	defer wg.Wait()
	type running struct {
		jdwp    bool
		cancel  context.CancelFunc
		done    chan struct{}
		process *Process
	}
	pids := map[int]running{}
	defer func() {
		for _, r := range pids {
			r.cancel()
		}
		a.forgetProcs(serial)
	}()
	// ended wakes the loop when a session ends by itself (the VM closed the
	// stream, or the session re-opens after a debugger left): a pid still
	// listed gets a new session, as ddmlib re-opens dropped clients.
	ended := make(chan struct{}, 1)
	var current []procEntry
	for {
		select {
		case u, ok := <-updates:
			if !ok {
				return
			}
			entries := convert(u)
			if entries == nil {
				continue
			}
			current = entries
		case <-ended:
			if !sleepCtx(ctx, 200*time.Millisecond) {
				return
			}
		}
		present := map[int]procEntry{}
		for _, e := range current {
			present[e.pid] = e
		}
		for pid, r := range pids {
			select {
			case <-r.done:
				delete(pids, pid)
				continue
			default:
			}
			if e, ok := present[pid]; !ok || e.jdwp != r.jdwp {
				r.cancel()
				delete(pids, pid)
			} else if e.app != nil && r.process != nil {
				r.process.Set(*e.app)
			}
		}
		// A process already followed, or (with PID set) another one, is
		// not admitted.
		isRunning := func(pid int) bool { _, ok := pids[pid]; return ok || a.PID != 0 && pid != a.PID }
		for _, e := range a.admitProcs(serial, current, isRunning, len(pids)) {
			var nc net.Conn
			if e.jdwp {
				var err error
				nc, err = a.Client.OpenJDWP(ctx, serial, e.pid)
				if err != nil {
					a.logger().Debug("jdwp open failed", "device", serial, "pid", e.pid, "error", err)
					continue
				}
			}
			pctx, pcancel := context.WithCancel(ctx)
			r := running{jdwp: e.jdwp, cancel: pcancel, done: make(chan struct{})}
			if e.app != nil {
				r.process = NewProcess(*e.app)
			}
			pids[e.pid] = r
			ep := a.endpoint(serial, e.pid, nc)
			ep.Process = r.process
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(r.done)
				_ = h(pctx, ep)
				if pctx.Err() == nil {
					select {
					case ended <- struct{}{}:
					default:
					}
				}
			}()
		}
	}
}

// endpoint is the endpoint of process pid on a device; nc is nil for a
// process without JDWP.
func (a *ADB) endpoint(serial string, pid int, nc net.Conn) Endpoint {
	svc := devshell.ADBServices(a.Client, serial)
	return Endpoint{
		Key:    fmt.Sprintf("adb:%s/%s:%d", a.Name(), serial, pid),
		Source: "adb:" + serial,
		PID:    pid,
		Conn:   nc,
		Shell:  svc.Shell,
		Exec:   svc.Exec,
		Files:  svc.Files,
	}
}
