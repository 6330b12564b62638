package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/proxy"
)

// serveOwnPorts is how many ports from --debug-base a --scan range must
// stay clear of: ddmtui would otherwise find its own debugger ports and
// attach to them as if they were VMs.
const serveOwnPorts = 1024

func serveCommand() *cli.Command {
	return &cli.Command{
		Name:  "serve",
		Usage: "run discovery and the debugger ports without a UI, until interrupted",
		Description: "Each VM found gets a debugger port (from --debug-base, in the order VMs appear); the\n" +
			"selected-VM port leads to the VM chosen with --select, else to the first VM found.\n" +
			"Attach with e.g. jdb -attach 127.0.0.1:8700. Prints one line per VM and per debugger\n" +
			"change; --spy adds one line per decoded debugger packet.",
		Flags: append(append(append(append(discoveryFlags(), proxyFlags()...), metricsFlags()...), recordFlags()...),
			&cli.IntFlag{Name: "select", Usage: "pid of the VM the selected-VM port leads to (default: the first VM found)"},
			&cli.BoolFlag{Name: "spy", Usage: "print every decoded debugger packet (jdwpspy)"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON lines (snake_case keys) instead of text"},
			&cli.DurationFlag{Name: "duration", Usage: "stop after this long (0: until interrupted)"},
		),
		Action: runServe,
	}
}

// maxSpin bounds --debug-spin: a poll is meant to cover a quick answer, and
// a long one would spend a core on a debugger that paused.
const maxSpin = 10 * time.Millisecond

// selectMissingAfter is how long serve looks for --select's VM before it
// says none is there (a variable for tests).
var selectMissingAfter = 5 * time.Second

func runServe(c *cli.Context) error {
	if err := checkAll(
		durationAtLeast(c, "duration", 0, "want a positive duration, or 0 to serve until interrupted"),
		intIn(c, "select", 0, 1<<22), // 0: the first VM found; pids stop at 2^22 on Linux
	); err != nil {
		return err
	}
	d, err := discoveryFromFlags(c)
	if err != nil {
		return err
	}
	keep, err := processesFromFlags(c)
	if err != nil {
		return err
	}
	popts, err := proxyOptions(c, d)
	if err != nil {
		return err
	}

	ctx, stop := commandContext(c)
	defer stop()

	store := monitor.NewStore(monitor.NewBus())
	sopts := sessionOptions(c) // --thread-interval and --meminfo-interval, as the other commands
	rec, err := recordingFromFlags(c)
	if err != nil {
		return err
	}
	if rec != nil {
		sopts.Recorder = rec.rec
		defer rec.stop()
		go func() {
			select {
			case <-rec.rec.Full():
				fmt.Fprintln(c.App.ErrWriter, rec.fullMessage())
			case <-ctx.Done():
			}
		}()
	}
	defer watchMemory()()
	engine := newEngine(c, store, sopts)
	defer recordLogs(c.Bool("logcat"), store, d, rec, nil)() // --record with --logcat: the devices' logs too
	px := proxy.New(engine, popts)
	waitMetrics, err := startMetrics(ctx, c, engine, keep)
	if err != nil {
		return err
	}
	defer waitMetrics()
	stdout := c.App.Writer
	if c.Bool("json") {
		stdout = safetext.JSON(stdout)
	}
	out := &serveOutput{w: stdout, json: c.Bool("json"), keepVM: keep, vms: map[string]headless.ListEntry{}, portErr: map[string]string{}}

	// The engine outlives the proxy so that a debugger's cleanup can still
	// reach its VM when serve stops.
	ectx, ecancel := context.WithCancel(context.Background())
	defer ecancel()
	engineDone := make(chan error, 1)
	go func() { engineDone <- engine.Run(ectx, d) }()
	proxyDone := make(chan error, 1)
	go func() { proxyDone <- px.Run(ctx) }()

	sub := store.Bus().Subscribe()
	defer sub.Close()
	var feed *jdwpspy.Feed
	var records <-chan jdwpspy.Record
	if c.Bool("spy") {
		feed = px.Inspector().Subscribe(4096)
		defer feed.Close()
		records = feed.C()
	}
	selector := &serveSelector{pid: c.Int("select"), proxy: px}
	var selectMissing <-chan time.Time
	if selector.pid != 0 {
		selectMissing = time.After(selectMissingAfter)
	}

	var runErr error
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case <-selectMissing:
			if !selector.found {
				out.note(fmt.Sprintf("no VM with pid %d (--select) found in %v; the selected-VM port leads nowhere until one appears", selector.pid, selectMissingAfter))
			}
		case err := <-engineDone:
			// Discovery failed (e.g. a required adb server went away).
			runErr = err
			engineDone = nil
			break loop
		case <-sub.Ready():
			for _, ev := range sub.Drain() {
				switch ev := ev.(type) {
				case monitor.VMUpdated:
					selector.seen(ev.VM)
					out.vm(ev.VM)
				case monitor.VMGone:
					selector.gone(ev.Key)
					out.gone(ev.Key, ev.Reason)
				}
			}
			selector.settle(store.VMs())
			out.memory(budget.Process.Stats(), false)
		case <-px.Changed():
			out.ports(px.Ports())
		case rec := <-records:
			out.packet(rec)
		}
	}
	stop()
	<-proxyDone
	ecancel()
	if engineDone != nil {
		if err := <-engineDone; err != nil && runErr == nil && ctx.Err() == nil {
			runErr = err
		}
	}
	// What the proxy printed while stopping (debuggers' cleanup).
	if feed != nil {
		for {
			select {
			case rec := <-records:
				out.packet(rec)
				continue
			default:
			}
			break
		}
		if n := feed.Dropped() + px.Inspector().Dropped(); n > 0 {
			out.note(fmt.Sprintf("%d decoded packet(s) were not printed: output too slow", n))
		}
	}
	out.memory(budget.Process.Stats(), true)
	return runErr
}

// serveSelector keeps the selected-VM port on the VM with --select's pid,
// or else on the first VM found while it lasts.
type serveSelector struct {
	pid   int
	found bool // a VM with pid was seen
	proxy *proxy.Proxy
	order []string // keys in order of appearance
}

func (s *serveSelector) seen(vm monitor.VM) {
	for _, k := range s.order {
		if k == vm.Key {
			return
		}
	}
	s.order = append(s.order, vm.Key)
}

func (s *serveSelector) gone(key string) {
	for i, k := range s.order {
		if k == key {
			s.order = append(s.order[:i], s.order[i+1:]...)
			return
		}
	}
}

func (s *serveSelector) settle(vms []monitor.VM) {
	cur := s.proxy.Selected()
	if s.pid != 0 {
		for _, vm := range vms {
			if vm.PID == s.pid {
				s.found = true
				if cur != vm.Key {
					s.proxy.Select(vm.Key)
				}
				return
			}
		}
		// Keep the key while the VM is re-opened: it comes back with it.
		return
	}
	for _, k := range s.order {
		if k == cur {
			return
		}
	}
	if port, _ := s.proxy.Port(cur); cur != "" && port != 0 {
		return // away for a moment (re-opened after a debugger left)
	}
	if len(s.order) > 0 {
		s.proxy.Select(s.order[0])
	}
}

// serveOutput prints what changed, as text or JSON lines.
type serveOutput struct {
	w        io.Writer
	json     bool
	keepVM   headless.Keep // --processes; nil: all
	vms      map[string]headless.ListEntry
	portErr  map[string]string
	selected string // the last selected-VM port line printed (text or JSON)
	// unnamed holds when a profileable process without its name yet was
	// first seen: it is printed once named (its /proc cmdline, read at
	// once), or as "-" after processNameWait.
	unnamed map[string]time.Time
	now     func() time.Time // time.Now; tests replace it
	drops   int64            // the memory budget's drops printed
}

// processNameWait is how long serve waits for a profileable process's
// name before printing it without one.
const processNameWait = 2 * time.Second

// serveLine is one JSON line; Event says what it is.
type serveLine struct {
	Event  string `json:"event"`
	Key    string `json:"key,omitempty"` // the VM's key, as in packet lines
	Port   int    `json:"port,omitempty"`
	Reason string `json:"reason,omitempty"`
	Error  string `json:"error,omitempty"`
	Note   string `json:"note,omitempty"`
	*headless.ListEntry
}

func (o *serveOutput) emit(v any) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	o.w.Write(append(b, '\n'))
}

func (o *serveOutput) vm(vm monitor.VM) {
	if vm.VMIdent == "" && vm.Err == "" && !vm.ProcessOnly() {
		return // not identified yet: wait for HELO (or Version)
	}
	if !o.keep(vm) {
		return
	}
	if vm.ProcessOnly() && vm.App == "" && o.waitForName(vm.Key) {
		return // its name comes from the device in a moment: one line, named
	}
	e := headless.List([]monitor.VM{vm})[0]
	if prev, ok := o.vms[vm.Key]; ok && reflect.DeepEqual(prev, e) {
		return
	}
	o.vms[vm.Key] = e
	if o.json {
		o.emit(serveLine{Event: "vm", Key: vm.Key, ListEntry: &e})
		return
	}
	port := "no debugger port yet"
	switch {
	case e.DebugPort == nil:
		port = "no JDWP (profileable)"
	case *e.DebugPort != 0:
		port = fmt.Sprintf("debugger port %d", *e.DebugPort)
	}
	fmt.Fprintf(o.w, "%s  pid %d  %s  %s  %s  debugger %s\n", safetext.Terminal(vm.Key), e.PID,
		orDash(safetext.Terminal(e.App)), orDash(safetext.Terminal(e.VM)), port, e.Debugger)
}

// waitForName reports whether an unnamed process seen first within
// processNameWait is to wait for its name.
func (o *serveOutput) waitForName(key string) bool {
	now := time.Now
	if o.now != nil {
		now = o.now
	}
	if o.unnamed == nil {
		o.unnamed = map[string]time.Time{}
	}
	first, ok := o.unnamed[key]
	if !ok {
		o.unnamed[key] = now()
		return true
	}
	return now().Sub(first) < processNameWait
}

// keep says whether --processes shows vm.
func (o *serveOutput) keep(vm monitor.VM) bool { return o.keepVM == nil || o.keepVM(vm) }

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func (o *serveOutput) gone(key, reason string) {
	delete(o.vms, key)
	if o.json {
		o.emit(serveLine{Event: "gone", Key: key, Reason: reason})
		return
	}
	fmt.Fprintf(o.w, "%s  gone (%s)\n", safetext.Terminal(key), safetext.Terminal(reason))
}

func (o *serveOutput) ports(ports []proxy.PortStatus) {
	for _, ps := range ports {
		if ps.Selected {
			// Printed when what it says changed: the proxy also reports
			// changes the line does not show (the port starting to listen,
			// a debugger), which printed the same line twice.
			var line string
			switch {
			case o.json:
				b, err := json.Marshal(serveLine{Event: "selected", Key: ps.VM, Port: ps.Port, Error: ps.Err})
				if err != nil {
					continue
				}
				line = string(b) + "\n"
			case ps.Err != "":
				line = fmt.Sprintf("selected-VM port: %s\n", ps.Err)
			case ps.VM == "":
				line = fmt.Sprintf("selected-VM port %d leads to no VM yet\n", ps.Port)
			default:
				line = fmt.Sprintf("selected-VM port %d leads to %s\n", ps.Port, safetext.Terminal(ps.VM))
			}
			if line != o.selected {
				o.selected = line
				io.WriteString(o.w, line)
			}
			continue
		}
		if ps.Err == o.portErr[ps.VM] {
			continue
		}
		o.portErr[ps.VM] = ps.Err
		if ps.Err == "" {
			continue
		}
		if o.json {
			o.emit(serveLine{Event: "port_error", Key: ps.VM, Port: ps.Port, Error: ps.Err})
		} else {
			fmt.Fprintf(o.w, "%s  %s\n", safetext.Terminal(ps.VM), ps.Err)
		}
	}
}

func (o *serveOutput) packet(rec jdwpspy.Record) {
	if o.json {
		o.emit(struct {
			Event string `json:"event"`
			jdwpspy.Record
		}{"packet", rec})
		return
	}
	fmt.Fprintln(o.w, rec.Line())
}

// memory prints what the memory budget dropped to make room, once a
// drop (a JSON line "memory" with the budget's figures; text: a note), and
// with final, the figures at the end (JSON only).
func (o *serveOutput) memory(st budget.Stats, final bool) {
	if st.Drops == o.drops && !(final && o.json) {
		return
	}
	o.drops = st.Drops
	if o.json {
		o.emit(struct {
			Event string `json:"event"`
			budget.Stats
		}{"memory", st})
		return
	}
	fmt.Fprintf(o.w, "ddmtui: memory budget (%d of %d MiB) %s\n", st.Used>>20, st.Limit>>20, safetext.Terminal(st.LastDrop))
}

func (o *serveOutput) note(text string) {
	if o.json {
		o.emit(serveLine{Event: "note", Note: text})
		return
	}
	fmt.Fprintln(o.w, "ddmtui: "+text)
}
