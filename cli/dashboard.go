package cli

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/proxy"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/tui"
	"github.com/ddmtui/ddmtui/tui/style"
)

func uiFlags() []cli.Flag {
	return append(append(proxyFlags(), recordFlags()...),
		&cli.BoolFlag{Name: "mouse", Usage: "enable mouse clicks (off: the terminal's own selection works)"},
		&cli.StringFlag{Name: "out-dir", Value: ".", Usage: "the `DIR` where traces (p) and heap dumps (H) are saved"},
		dashboardMappingFlag(),
	)
}

// runDashboard runs discovery d and the dashboard until the user quits.
// When d has both local and adb discovery, the m key cycles through both,
// local only and adb only; a switch ends the current discovery (dropping
// its connections, as DDMS did) and starts the next.
func runDashboard(c *cli.Context, d monitor.Discovery, label string, log *slog.Logger, notice string, tweaks ...func(*tui.Config)) error {
	popts, err := proxyOptions(c, d)
	if err != nil {
		return err
	}
	if _, err := processesFromFlags(c); err != nil {
		return err
	}
	outDir := c.String("out-dir")
	if st, err := os.Stat(outDir); err != nil || !st.IsDir() {
		return fmt.Errorf("--out-dir %s: not a directory", outDir)
	}
	mappings, err := dashboardMappings(c)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(c.Context, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	store := monitor.NewStore(monitor.NewBus())
	opts := sessionOptions(c)
	opts.Logger = log
	rec, err := recordingFromFlags(c)
	if err != nil {
		return err
	}
	if rec != nil {
		opts.Recorder = rec.rec
		defer func() {
			if err := rec.stop(); err != nil {
				log.Warn("recording", "error", err)
			}
		}()
	}
	defer watchMemory()()
	engine := newEngine(c, store, opts)
	// The debugger proxy: a port per VM, and one for the VM selected here.
	// The engine outlives it, so a debugger's cleanup still reaches its VM.
	popts.Logger = log
	px := proxy.New(engine, popts)
	pctx, pcancel := context.WithCancel(ctx)
	proxyDone := make(chan error, 1)
	go func() { proxyDone <- px.Run(pctx) }()

	modes := []monitor.Discovery{d}
	labels := []string{label}
	if d.Local != nil && len(d.ADB) > 0 {
		modes = append(modes, monitor.Discovery{Local: d.Local}, monitor.Discovery{ADB: d.ADB})
		labels = append(labels, discoveryLabel(c, modes[1]), discoveryLabel(c, modes[2]))
	}
	modeCh := make(chan int, 1)
	done := make(chan error, 1)
	ectx, ecancel := context.WithCancel(context.Background())
	defer ecancel()
	go func() { done <- runModes(ectx, engine, modes, modeCh, log) }()
	logs := devicelog.NewLogs(0)
	defer logs.Close()
	defer recordLogs(c.Bool("logcat"), store, d, rec, logs)() // --logcat: the devices' logs are recorded from the start
	cfg := tui.Config{
		Mappings:       mappings,
		Store:          store,
		Controller:     tui.EngineController{Engine: engine},
		Palette:        style.FromEnv(),
		Discovery:      label,
		Log:            func(vm monitor.VM) (*devicelog.Log, string) { return deviceLog(logs, d, vm) },
		Mouse:          c.Bool("mouse"),
		DebuggableOnly: c.String("processes") == "debuggable",
		TraceDir:       outDir,
		Notice:         notice,
		PortError: func(key string) string {
			for _, ps := range px.Ports() {
				if !ps.Selected && ps.VM == key {
					return ps.Err
				}
			}
			return ""
		},
		ScanModes: labels,
		OnSelect:  px.Select,
		Inspector: px.Inspector(),
		Memory:    budget.Process,
		ADBStatus: func() string {
			var parts []string
			for _, r := range d.ADB {
				if a, ok := r.(*scan.ADB); ok {
					parts = append(parts, a.Status())
				}
			}
			return strings.Join(parts, ", ")
		},
		SetScanMode: func(i int) {
			select {
			case <-modeCh: // a newer choice replaces one not yet taken
			default:
			}
			modeCh <- i
		},
	}
	for _, t := range tweaks {
		t(&cfg)
	}
	err = tui.New(cfg).Run(ctx)
	pcancel()
	if perr := <-proxyDone; err == nil && perr != nil {
		err = perr
	}
	ecancel()
	if derr := <-done; err == nil && derr != nil {
		err = derr
	}
	return err
}

// runModes runs the engine on modes[0] and switches when modeCh says.
func runModes(ctx context.Context, engine *monitor.Engine, modes []monitor.Discovery, modeCh <-chan int, log *slog.Logger) error {
	cur := 0
	for {
		rctx, rcancel := context.WithCancel(ctx)
		ended := make(chan error, 1)
		go func(d monitor.Discovery) { ended <- engine.Run(rctx, d) }(modes[cur])
		select {
		case <-ctx.Done():
			rcancel()
			<-ended
			return nil
		case i := <-modeCh:
			rcancel()
			<-ended
			cur = i % len(modes)
		case err := <-ended:
			rcancel()
			if err != nil {
				log.Warn("discovery ended", "error", err)
			}
			select { // wait for a new mode or the end
			case <-ctx.Done():
				return nil
			case i := <-modeCh:
				cur = i % len(modes)
			}
		}
	}
}

func discoveryLabel(c *cli.Context, d monitor.Discovery) string {
	var parts []string
	if d.Local != nil {
		parts = append(parts, "scan "+d.Local.Ports.String())
	} else {
		parts = append(parts, "scan off")
	}
	if len(d.ADB) == 0 {
		parts = append(parts, "adb off")
	} else {
		parts = append(parts, "adb on") // the adb status beside it says where and how
	}
	return strings.Join(parts, " · ")
}

// dashboardAction is what `ddmtui` with no command does.
func dashboardAction(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return fmt.Errorf("unknown command %q (see ddmtui --help)", c.Args().First())
	}
	if err := tui.CheckTerminal(); err != nil {
		return fmt.Errorf("the dashboard %w", err)
	}
	log, closeLog, err := openLog(c)
	if err != nil {
		return err
	}
	defer closeLog()
	d, err := discoveryFromFlags(c)
	if err != nil {
		return err
	}
	for _, r := range d.ADB {
		if a, ok := r.(*scan.ADB); ok {
			a.Logger = log
		}
	}
	return runDashboard(c, d, discoveryLabel(c, d), log, "")
}
