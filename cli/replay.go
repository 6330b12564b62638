package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/tui"
	"github.com/ddmtui/ddmtui/tui/style"
)

func replayCommand() *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "replay a recording: in the dashboard, as a snapshot at an instant, or as a Chrome trace",
		ArgsUsage: "FILE",
		Description: "Feeds a recording (ddmtui record, or --record) through the same decoders and model as a live\n" +
			"session. Without --at or --chrome it opens the dashboard on it, playing at --speed.\n" +
			"--at T --json prints the document `snapshot --json` would have printed T into the recording.\n" +
			"--chrome OUT writes thread states and memory counters as Chrome trace-event JSON (Perfetto opens it).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "at", Usage: "print the snapshot at this time into the recording (e.g. 12.5s, 2m, or seconds)"},
			&cli.BoolFlag{Name: "json", Value: true, Usage: "with --at: print JSON (the only format)"},
			&cli.IntFlag{Name: "pid", Usage: "with --at: only the VM with this pid"},
			&cli.BoolFlag{Name: "views", Usage: "with --at: add the view trees dumped during the recording (as snapshot --views)"},
			&cli.StringFlag{Name: "chrome", Usage: "write Chrome trace-event JSON to `OUT` (- for standard output)"},
			&cli.Float64Flag{Name: "speed", Value: 1, Usage: "dashboard playback speed (1: real time)"},
			&cli.BoolFlag{Name: "mouse", Usage: "enable mouse clicks in the dashboard"},
		},
		Action: func(c *cli.Context) error {
			if c.Args().Len() > 1 && !strings.HasPrefix(c.Args().First(), "-") && strings.HasPrefix(c.Args().Get(1), "-") {
				// ddmtui replay FILE --at 12.5s: flags after the file are
				// parsed again, ahead of it.
				args := append(append([]string{c.App.Name, "replay"}, c.Args().Slice()[1:]...), c.Args().First())
				return c.App.RunContext(c.Context, args)
			}
			if c.Args().Len() != 1 {
				return errors.New("replay needs one recording FILE")
			}
			path := c.Args().First()
			rec, err := loadRecording(path)
			if err != nil {
				return err
			}
			defer rec.Release() // its records' bytes, back to the memory budget
			if rec.Tail != nil {
				upTo := "up to its last whole block"
				if errors.Is(rec.Tail, monitor.ErrRecordingTooLarge) {
					upTo = "the records read"
				}
				fmt.Fprintf(c.App.ErrWriter, "ddmtui: %s: %v; replaying %s (%s)\n",
					path, rec.Tail, upTo, rec.Duration().Round(time.Millisecond))
			}
			switch {
			case c.IsSet("at") && c.IsSet("chrome"):
				return errors.New("give --at or --chrome, not both")
			case c.IsSet("at"):
				at, err := parseAt(c.String("at"))
				if err != nil {
					return err
				}
				return writeReplaySnapshot(c, rec, at)
			case c.IsSet("chrome"):
				return writeChromeFile(c, rec, c.String("chrome"))
			}
			return runReplayDashboard(c, rec, path)
		},
	}
}

func loadRecording(path string) (*monitor.Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rec, err := monitor.ReadRecording(f)
	if err != nil {
		return nil, wrapFor("replay", path, err)
	}
	return rec, nil
}

// parseAt reads a time into the recording: a Go duration (12.5s, 1m30s)
// or a number of seconds.
func parseAt(s string) (time.Duration, error) {
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return d, nil
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil && v >= 0 && v < 1e9 {
		return time.Duration(v * float64(time.Second)), nil
	}
	return 0, fmt.Errorf("--at %q: want a time such as 12.5s or 2m", s)
}

// replayAt returns the VMs of rec at t, as the store held them.
func replayAt(rec *monitor.Recording, t time.Duration) []monitor.VM {
	vms, _ := replayAtErrs(rec, t)
	return vms
}

// replayAtErrs is replayAt with the records that could not be applied.
func replayAtErrs(rec *monitor.Recording, t time.Duration) ([]monitor.VM, []error) {
	store := monitor.NewStore(monitor.NewBus())
	p := monitor.NewReplay(rec, store)
	p.Seek(t)
	return store.VMs(), p.Errors()
}

func writeReplaySnapshot(c *cli.Context, rec *monitor.Recording, at time.Duration) error {
	if at > rec.Duration() {
		fmt.Fprintf(c.App.ErrWriter, "ddmtui: --at %s is past the recording's end (%s): showing the last live state\n",
			at, rec.Duration().Round(time.Millisecond))
	}
	vms, errs := replayAtErrs(rec, at)
	for _, err := range errs {
		if errors.Is(err, monitor.ErrTooManyVMs) {
			fmt.Fprintf(c.App.ErrWriter, "ddmtui: %s\n", safetext.Terminal(err.Error()))
		}
	}
	if pid := c.Int("pid"); pid != 0 {
		var keep []monitor.VM
		for _, vm := range vms {
			if vm.PID == pid {
				keep = append(keep, vm)
			}
		}
		vms = keep
	}
	entries := headless.Snapshot(vms)
	if c.Bool("views") {
		for i, vm := range vms {
			if len(vm.Views) > 0 {
				entries[i].Views = headless.ViewsOf(vm)
			}
		}
	}
	return headless.WriteJSON(c.App.Writer, entries)
}

func writeChromeFile(c *cli.Context, rec *monitor.Recording, out string) error {
	if out == "-" {
		return writeChrome(c.App.Writer, rec)
	}
	return writeOutput(c.App.Writer, out, func(w io.Writer) error { return writeChrome(w, rec) })
}

// runReplayDashboard opens the dashboard on a replay of rec, playing at
// --speed. The position, length and speed show in the status line; the
// timeline keys come with the dashboard's replay mode.
func runReplayDashboard(c *cli.Context, rec *monitor.Recording, path string) error {
	ctx, stop := signal.NotifyContext(c.Context, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	store := monitor.NewStore(monitor.NewBus())
	p := monitor.NewReplay(rec, store)
	defer context.AfterFunc(ctx, p.Abort)() // a seek under way ends with the dashboard
	p.SetSpeed(c.Float64("speed"))
	p.Play()
	runDone := make(chan error, 1)
	go func() { runDone <- p.Run(ctx) }()
	tl := newReplayTimeline(ctx, p, rec)
	dash := tui.New(tui.Config{
		Store:      store,
		Controller: replayController{},
		Palette:    style.FromEnv(),
		Discovery:  "replay " + path,
		Log:        p.Log, // the recorded device logs
		Mouse:      c.Bool("mouse"),
		Timeline:   tl,
		Memory:     budget.Process,
	})
	err := dash.Run(ctx)
	cancel()
	<-runDone
	tl.wait()
	return err
}

// replayTimeline drives a Replay from the dashboard's keys. Seeks and steps
// run in order on a goroutine of their own (a seek back re-applies the
// recording from its start), so the UI never waits for one; a key pressed
// while a dozen are queued is dropped.
type replayTimeline struct {
	p    *monitor.Replay
	rec  *monitor.Recording
	jobs chan func()
	done chan struct{}
}

func newReplayTimeline(ctx context.Context, p *monitor.Replay, rec *monitor.Recording) *replayTimeline {
	t := &replayTimeline{p: p, rec: rec, jobs: make(chan func(), 12), done: make(chan struct{})}
	go func() {
		defer close(t.done)
		for {
			select {
			case <-ctx.Done():
				return
			case job := <-t.jobs:
				job()
			}
		}
	}()
	return t
}

func (t *replayTimeline) wait() { <-t.done }

func (t *replayTimeline) later(job func()) {
	select {
	case t.jobs <- job:
	default:
	}
}

func (t *replayTimeline) TogglePlay() {
	if t.p.Playing() {
		t.p.Pause()
	} else {
		t.p.Play()
	}
}

// Step pauses and moves to the next recorded instant.
func (t *replayTimeline) Step() {
	t.p.Pause()
	t.later(func() { t.p.Step() })
}

func (t *replayTimeline) SeekBy(d time.Duration) {
	t.later(func() { t.p.Seek(t.p.Position() + d) })
}

func (t *replayTimeline) SeekEdge(end bool) {
	t.later(func() {
		if end {
			t.p.Seek(t.p.Duration())
		} else {
			t.p.Seek(0)
		}
	})
}

func (t *replayTimeline) ScaleSpeed(f float64) { t.p.SetSpeed(t.p.Speed() * f) }
func (t *replayTimeline) Status() string       { return replayStatus(t.p) }

// Position is where the replay is: the dashboard's VM timeline (T) marks
// it (tui.Positioner).
func (t *replayTimeline) Position() time.Duration { return t.p.Position() }

// Preload gives the dashboard's VM timelines the whole recording
// (tui.Preloader): a replay of its own, into a store of its own, advanced a
// second at a time, each second's events handed to add.
func (t *replayTimeline) Preload(ctx context.Context, add func(time.Duration, []monitor.Event)) {
	replaySeconds(ctx, t.rec, add)
}

// replaySeconds replays rec into a store of its own a second at a time and
// hands add each second's events (coalesced within the second, as the
// dashboard would draw them), stamped with the second's start. Seconds
// without a record are stepped over (issue 37 #11: a record at 2^62 ns
// made it seek through 146 years of empty seconds, a core busy for an
// hour), so it visits at most one second per record.
func replaySeconds(ctx context.Context, rec *monitor.Recording, add func(time.Duration, []monitor.Event)) {
	store := monitor.NewStore(monitor.NewBus())
	sub := store.Bus().Subscribe()
	defer sub.Close()
	p := monitor.NewReplay(rec, store)
	defer context.AfterFunc(ctx, p.Abort)() // a second of very many records ends with ctx too
	recs := rec.Records
	for i := 0; i < len(recs) && ctx.Err() == nil; {
		at := recs[i].Time.Truncate(time.Second)
		end := at + time.Second - 1
		p.Seek(end) // everything in [at, at+1s)
		if evs := sub.Drain(); len(evs) > 0 {
			add(at, evs)
		}
		// the next second that has a record (records are in time order)
		i += sort.Search(len(recs)-i, func(j int) bool { return recs[i+j].Time > end })
	}
}

// replayStatus is the timeline in the status line: position / length,
// speed, and whether it plays.
func replayStatus(p *monitor.Replay) string {
	state := "▶"
	if !p.Playing() {
		state = "❚❚"
	}
	speed := strconv.FormatFloat(p.Speed(), 'g', 3, 64)
	return fmt.Sprintf("%s %s / %s ×%s", state, fmtClock(p.Position()), fmtClock(p.Duration()), speed)
}

func fmtClock(d time.Duration) string {
	d = d.Round(100 * time.Millisecond)
	m := int(d / time.Minute)
	s := (d % time.Minute).Seconds()
	return fmt.Sprintf("%d:%04.1f", m, s)
}

// replayController answers the dashboard's requests for a replayed VM:
// there is no VM to ask.
type replayController struct{}

var _ tui.Controller = replayController{}

func (replayController) VM(string) tui.VMControl { return tui.Unavailable(monitor.ErrNoLiveVM) }
