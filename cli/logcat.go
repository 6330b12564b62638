package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/scan"
)

func logcatCommand() *cli.Command {
	return &cli.Command{
		Name:  "logcat",
		Usage: "a device's log, filtered by process, app or query (like adb logcat -d, or -f to follow)",
		Description: "Reads the device's log (binary over exec: where the device has it, else threadtime text\n" +
			"over shell:), and prints the entries that pass --pid, --app and --query. --app follows the\n" +
			"app by name across restarts: pids come from the VMs found over adb (DDM names) and from the\n" +
			"ActivityManager's \"Start proc\" lines. Filtering happens here, so devices older than\n" +
			"Android 7 (no logcat --pid) work the same.\n" +
			"Query: tag:T -tag:T tag~:RE tag=:T message:M message~:RE package:P package:mine (= --app)\n" +
			"process:P level:W age:5m is:crash is:stacktrace, words ANDed, | for OR, ( ), - negates.",
		Flags: append(discoveryFlags(),
			&cli.StringFlag{Name: "serial", Aliases: []string{"s"}, Usage: "the device (default: the only one online)"},
			&cli.IntFlag{Name: "pid", Usage: "only this process's entries"},
			&cli.StringFlag{Name: "app", Usage: "only this app's entries (package or process name), across restarts"},
			&cli.StringFlag{Name: "query", Aliases: []string{"q"}, Usage: "an Android Studio Logcat query, e.g. 'level:W -tag:chatty'"},
			&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep printing new entries until interrupted"},
			&cli.IntFlag{Name: "tail", Aliases: []string{"T"}, Usage: "with -f, start with the device's last N entries (0: all buffered)"},
			&cli.BoolFlag{Name: "json", Usage: `JSON lines: {"time","pid","tid","level","tag","message","app"}`},
			&cli.BoolFlag{Name: "text-only", Usage: "read threadtime text over shell: even where exec: exists"},
			&cli.DurationFlag{Name: "wait", Value: 2 * time.Second, Usage: "how long to look for the device's VMs (app names for --app, JSON and the whole device's text; 0: none)"},
			mappingFlag(),
		),
		Action: runLogcatCommand,
	}
}

// logcatJSON is one line of --json output.
type logcatJSON struct {
	Time    string `json:"time"`
	PID     int32  `json:"pid"`
	TID     int32  `json:"tid"`
	Level   string `json:"level"`
	Tag     string `json:"tag"`
	Message string `json:"message"`
	App     string `json:"app"`
}

// jsonTime is RFC 3339 with nanoseconds and the UTC offset.
const jsonTime = "2006-01-02T15:04:05.000000000Z07:00"

func runLogcatCommand(c *cli.Context) error {
	pid, app := c.Int("pid"), c.String("app")
	if pid < 0 {
		return fmt.Errorf("--pid %d: want a positive pid", pid)
	}
	if pid != 0 && app != "" {
		return fmt.Errorf("give --pid or --app, not both")
	}
	if c.Int("tail") < 0 {
		return fmt.Errorf("--tail must not be negative")
	}
	m, err := loadMapping(c, "logcat")
	if err != nil {
		return err
	}
	var mine []string
	if app != "" {
		mine = []string{app}
	}
	query, err := logcat.Compile(c.String("query"), logcat.QueryOptions{Mine: mine, MineHint: "package:mine is the app --app names: give --app NAME"})
	if err != nil {
		return fmt.Errorf("--query: %w", err)
	}
	ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	client, serial, err := logcatDevice(ctx, c)
	if err != nil {
		return err
	}
	var procs logcat.Processes
	var vms []monitor.VM
	// On a terminal the whole device's text gives each line its pid's app
	// beside the pid; piped, it stays the threadtime adb prints.
	wholeDevice := pid == 0 && app == "" && !c.Bool("json") && isTerminal(c.App.Writer)
	if c.Duration("wait") > 0 && (app != "" || c.Bool("json") || wholeDevice || strings.Contains(c.String("query"), "package") || strings.Contains(c.String("query"), "process")) {
		vms = deviceVMs(ctx, c, client, serial, c.Duration("wait"))
		for _, vm := range vms {
			procs.Set(int32(vm.PID), vm.App)
		}
	}
	if c.Bool("follow") {
		return followLog(ctx, c, client, serial, vms, devicelog.Filter{App: app, PID: pid, Query: query}, m)
	}
	stream, err := devicelog.OpenStream(ctx, client, serial, devicelog.StreamOptions{
		Dump: true, PID: pid, TextOnly: c.Bool("text-only"),
	})
	if err != nil {
		return err
	}
	defer stream.Close()

	out := bufio.NewWriter(c.App.Writer)
	defer out.Flush()
	p := logcatPrinter{out: out, json: c.Bool("json"), loc: stream.Location, app: app, withApp: wholeDevice, mapping: m}
	keep := func(e *logcat.Entry) bool {
		if pid != 0 && e.PID != int32(pid) {
			return false
		}
		if app != "" && !logcat.AppMatches(e.App, app) {
			return false
		}
		return true
	}
	ring := dumpRing(serial)
	defer ring.Close()
	all, readErr := readLogDump(stream.Next, &procs, keep, ring)
	var now time.Time
	if len(all) > 0 {
		now = all[len(all)-1].Time
	}
	for i := range all {
		if query.Match(&all[i], now) {
			if err := p.print(&all[i]); err != nil {
				return err
			}
		}
	}
	return readErr
}

// dumpRing is the ring a dump (logcat -d) is read into: bounded as a
// device's ring is, and drawing its bytes from the process-wide memory
// budget (a share of it, as the dashboard's device logs do), so that a
// budget smaller than the ring keeps fewer entries.
func dumpRing(serial string) *logcat.Ring {
	r := logcat.NewRing(logcat.DefaultRingSize)
	r.SetLimit(0, budget.Process.Child(logcat.DefaultProcessLogBytes), serial)
	return r
}

// readLogDump reads a dump (logcat -d) to its end and returns the last entries
// that pass keep, as many as kept holds: it is bounded as a device's ring
// is (entries and bytes of text: an endless log of 4 KB entries must not
// fill memory). A stream that fails (a frame with a lying length) still
// gives what it read before, with the error.
func readLogDump(next func(*logcat.Entry) error, procs *logcat.Processes, keep func(*logcat.Entry) bool, kept *logcat.Ring) ([]logcat.Entry, error) {
	var class logcat.Classifier
	var e logcat.Entry
	var readErr error
	for {
		err := next(&e)
		if err != nil {
			if !errors.Is(err, io.EOF) {
				readErr = fmt.Errorf("logcat: %w", err)
			}
			break
		}
		procs.Observe(&e)
		if e.App == "" {
			e.App = procs.App(e.PID)
		}
		class.Classify(&e)
		if keep(&e) {
			kept.AppendClassified(e)
		}
	}
	all, _, _ := kept.Read(nil, 0, 0)
	return all, readErr
}

// followLog is logcat -f: the engine's device log (one stream, re-opened
// when it drops) read through a cursor; --tail keeps the last entries of
// what the device had buffered.
func followLog(ctx context.Context, c *cli.Context, client *adb.Client, serial string, vms []monitor.VM, f devicelog.Filter, m *mapping.Mapping) error {
	dl := devicelog.New(client, serial, logcat.DefaultRingSize)
	dl.TextOnly = c.Bool("text-only")
	learnVMs(dl, serial, vms)
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = dl.Run(rctx) }()
	defer func() { cancel(); <-done }()
	select {
	case <-dl.Ready():
	case <-ctx.Done():
		return nil
	}
	if _, n, err := dl.Status(); n == 0 && err != nil {
		return err
	}
	// age: counts back from the device's clock, estimated once.
	offset := deviceClockOffset(ctx, client, serial)
	out := bufio.NewWriter(c.App.Writer)
	defer out.Flush()
	p := logcatPrinter{out: out, json: c.Bool("json"), loc: dl.Location(), app: f.App, withApp: f.App == "" && f.PID == 0 && isTerminal(c.App.Writer), mapping: m}
	cur := dl.Cursor(f)
	changed := cur.Changed()
	entries, _ := cur.Read(nil, 0, time.Now().Add(offset))
	if tail := c.Int("tail"); tail > 0 && len(entries) > tail {
		entries = entries[len(entries)-tail:]
	}
	for {
		for i := range entries {
			if err := p.print(&entries[i]); err != nil {
				return err
			}
		}
		if err := out.Flush(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-changed:
		}
		changed = cur.Changed()
		entries, _ = cur.Read(entries[:0], 0, time.Now().Add(offset))
	}
}

// logcatPrinter writes entries as threadtime text or JSON lines; with an
// app, each process of it after the first is announced in text mode.
type logcatPrinter struct {
	out  *bufio.Writer
	json bool
	enc  *json.Encoder
	loc  *time.Location
	app  string
	// withApp: the whole device's log on a terminal, each line with its
	// pid's app.
	withApp bool
	pids    map[int32]bool // the app's processes seen so far
	buf     []byte
	// mapping, when set, retraces messages (crash stack traces, class names).
	mapping *mapping.Mapping
}

func (p *logcatPrinter) print(e *logcat.Entry) error {
	if p.mapping != nil {
		retraced := *e
		retraced.Message = p.mapping.RetraceString(e.Message)
		e = &retraced
	}
	if p.json {
		if p.enc == nil {
			p.enc = json.NewEncoder(safetext.JSON(p.out))
			p.enc.SetEscapeHTML(false)
		}
		return p.enc.Encode(logcatJSON{
			Time: e.Time.In(p.loc).Format(jsonTime), PID: e.PID, TID: e.TID, Level: e.Priority.String(),
			Tag: e.Tag, Message: e.Message, App: e.App,
		})
	}
	if p.app != "" && !p.pids[e.PID] {
		if p.pids == nil {
			p.pids = map[int32]bool{}
		} else {
			fmt.Fprintf(p.out, "--------- %s: process %d\n", safetext.Terminal(p.app), e.PID)
		}
		p.pids[e.PID] = true
	}
	safe := *e
	safe.Tag, safe.Message = terminalKeepTabs(e.Tag), terminalKeepTabs(e.Message)
	if p.withApp {
		safe.App = safetext.Terminal(e.App)
		p.buf = logcat.AppendThreadtimeApp(p.buf[:0], &safe, p.loc)
	} else {
		p.buf = logcat.AppendThreadtime(p.buf[:0], &safe, p.loc)
	}
	_, err := p.out.Write(p.buf)
	return err
}

// terminalKeepTabs escapes what the device sent for a terminal, leaving
// tabs (stack-trace lines start with one) and newlines (AppendThreadtime
// splits on them) as they are.
func terminalKeepTabs(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\t' && r != '\n' || r >= 0x7f }) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		parts := strings.Split(l, "\t")
		for j, p := range parts {
			parts[j] = safetext.Terminal(p)
		}
		lines[i] = strings.Join(parts, "\t")
	}
	return strings.Join(lines, "\n")
}

// logcatDevice picks the adb server and the device: --serial, or the only
// device online.
func logcatDevice(ctx context.Context, c *cli.Context) (*adb.Client, string, error) {
	addrs := c.StringSlice("adb")
	if len(addrs) == 1 && addrs[0] == "off" {
		return nil, "", fmt.Errorf("logcat reads the log through adb: --adb off leaves nothing to read")
	}
	var clients []*adb.Client
	if len(addrs) == 0 {
		cl := &adb.Client{ADBPath: c.String("adb-path")}
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, err := cl.EnsureServer(sctx)
		cancel()
		if err != nil {
			return nil, "", err
		}
		clients = append(clients, cl)
	}
	for _, a := range addrs {
		if !strings.Contains(a, ":") {
			return nil, "", fmt.Errorf("--adb %q: want HOST:PORT", a)
		}
		clients = append(clients, &adb.Client{Addr: a, ADBPath: c.String("adb-path")})
	}
	want := c.String("serial")
	type found struct {
		client *adb.Client
		serial string
	}
	var online []found
	for _, cl := range clients {
		dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		devs, err := cl.Devices(dctx)
		cancel()
		if err != nil {
			return nil, "", err
		}
		for _, d := range devs {
			if d.Online() && (want == "" || d.Serial == want) {
				online = append(online, found{cl, d.Serial})
			}
		}
	}
	switch {
	case len(online) == 0 && want != "":
		return nil, "", fmt.Errorf("device %q is not online", want)
	case len(online) == 0:
		return nil, "", fmt.Errorf("no device online")
	case len(online) > 1:
		var names []string
		for _, f := range online {
			names = append(names, f.serial)
		}
		return nil, "", fmt.Errorf("%d devices online (%s): choose one with --serial", len(online), strings.Join(names, ", "))
	}
	return online[0].client, online[0].serial, nil
}

// deviceVMs runs adb discovery for wait, with the sessions the flags ask
// for, and returns the VMs found on the device (their names come from DDM).
func deviceVMs(ctx context.Context, c *cli.Context, client *adb.Client, serial string, wait time.Duration) []monitor.VM {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	store := monitor.NewStore(monitor.NewBus())
	engine := newEngine(c, store, sessionOptions(c))
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = engine.Run(ctx, monitor.Discovery{ADB: []monitor.Runner{&scan.ADB{Client: client}}})
	}()
	<-ctx.Done()
	vms := store.VMs()
	<-done
	var out []monitor.VM
	for _, vm := range vms {
		if vm.Source == "adb:"+serial && vm.App != "" {
			out = append(out, vm)
		}
	}
	return out
}

// deviceClockOffset is how far the device's clock is ahead of this host's
// (`date +%s`, to the second); 0 when the device does not say.
func deviceClockOffset(ctx context.Context, client *adb.Client, serial string) time.Duration {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	before := time.Now()
	out, err := client.Shell(dctx, serial, "date +%s")
	if err != nil {
		return 0
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return 0
	}
	host := before.Add(time.Since(before) / 2)
	return time.Unix(sec, 0).Sub(host.Truncate(time.Second))
}
