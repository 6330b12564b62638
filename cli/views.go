package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/mapping/apply"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/savefile"
	"github.com/ddmtui/ddmtui/viewtree"
)

func viewsCommand() *cli.Command {
	return &cli.Command{
		Name:      "views",
		Usage:     "show an app's windows and view trees (layout inspection over DDM), capture or act on a view",
		ArgsUsage: "[METHOD ARG... for --invoke | FIELD VALUE for --set-layout]",
		Description: "Lists the app's windows (VULW) and dumps each one's view hierarchy (VURT): the framework's\n" +
			"view debugging handler, which every Android release from 4.4 to 16 still registers for a\n" +
			"debuggable app. Without --json: an indented tree with id, bounds (relative to the parent),\n" +
			"visibility and text. A view is named CLASS@HASH as the tree prints it (or @HASH, or the\n" +
			"simple class the dashboard shows, TextView@ff4018a, when one view fits it).\n" +
			"--invoke VIEW METHOD [ARG...] calls a method on the UI thread; arguments are TYPE:VALUE with a\n" +
			"JNI type (I:8, Z:true, F:0.5) or bare (true, 8, 0.5). Below Android 14 success has no reply.",
		Flags: append(vmPickFlags(),
			&cli.IntFlag{Name: "pid", Usage: "the app's VM", Required: true},
			&cli.StringFlag{Name: "window", Usage: "only the window whose name contains `NAME`"},
			&cli.BoolFlag{Name: "json", Usage: "print JSON: {pid, windows: [{name, view_count, tree}]}"},
			&cli.StringFlag{Name: "capture", Usage: "save the picture of `VIEW` (CLASS@HASH) as PNG (with -o)"},
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "the PNG `FILE` for --capture"},
			&cli.StringFlag{Name: "profile", Usage: "measure, layout and draw times of `VIEW`'s subtree"},
			&cli.StringFlag{Name: "invoke", Usage: "call a method on `VIEW`: METHOD [ARG...] follow"},
			&cli.StringFlag{Name: "set-layout", Usage: "set an int layout parameter of `VIEW`: FIELD VALUE follow"},
			&cli.BoolFlag{Name: "theme", Usage: "print the window's theme attributes"},
			&cli.StringFlag{Name: "layers", Usage: "capture every drawn view of the window (capture layers) as PNGs into `DIR`"},
			&cli.DurationFlag{Name: "wait", Value: 5 * time.Second, Usage: "how long to look for the VM"},
			mappingFlag(),
		),
		Action: viewsAction,
	}
}

func viewsAction(c *cli.Context) error {
	acts := 0
	for _, f := range []string{"capture", "profile", "invoke", "set-layout"} {
		if c.String(f) != "" {
			acts++
		}
	}
	if c.Bool("theme") {
		acts++
	}
	if c.String("layers") != "" {
		acts++
	}
	if acts > 1 {
		return badValue(c, errors.New("views: give one of --capture, --profile, --invoke, --set-layout, --theme, --layers"))
	}
	if c.String("capture") != "" && c.String("output") == "" {
		return badValue(c, errors.New("views: --capture needs -o FILE.png"))
	}
	if out := c.String("output"); c.String("capture") != "" {
		if err := savefile.Check(out); err != nil {
			return err
		}
	}
	m, err := loadMapping(c, "views")
	if err != nil {
		return err
	}
	w := c.App.Writer
	return withVM(c, c.Int("pid"), c.Duration("wait"), func(ctx context.Context, sess *monitor.Session, vm monitor.VM) error {
		s := sess.Views()
		windows, err := s.ViewWindows(ctx)
		if err != nil {
			return fmt.Errorf("views: pid %d: %w", vm.PID, err)
		}
		if f := c.String("window"); f != "" {
			windows = filterWindows(windows, f)
			if len(windows) == 0 {
				return fmt.Errorf("views: no window of pid %d contains %q", vm.PID, f)
			}
		}
		switch {
		case c.Bool("theme"):
			attrs, err := s.DumpTheme(ctx, windows[0])
			if err != nil {
				return err
			}
			for _, a := range attrs {
				fmt.Fprintf(w, "%s = %s\n", safetext.Terminal(a.Name), safetext.Terminal(a.Value))
			}
			return nil
		case c.String("layers") != "":
			return writeLayers(c, ctx, s, windows[0])
		case acts == 1:
			return viewAct(c, ctx, s, windows)
		}
		if c.Bool("json") {
			out := headless.ViewsEntry{PID: vm.PID, Windows: []viewtree.JSONWindow{}}
			for _, name := range windows {
				t, err := s.DumpWindow(ctx, name)
				reportCoverage(c, "views", m, apply.ViewTree(m, t))
				out.Windows = append(out.Windows, viewtree.JSONWindowOf(name, t, err))
			}
			return headless.WriteJSON(w, out)
		}
		for _, name := range windows {
			t, err := s.DumpWindow(ctx, name)
			if err != nil {
				// The error repeats the window's name and carries the VM's
				// FAIL text: both are the VM's.
				fmt.Fprintf(w, "window %s: %s\n", safetext.Terminal(name), safetext.Terminal(err.Error()))
				continue
			}
			reportCoverage(c, "views", m, apply.ViewTree(m, t))
			writeTreeText(w, name, t)
		}
		return nil
	})
}

func filterWindows(names []string, part string) []string {
	var out []string
	for _, n := range names {
		if n == part {
			return []string{n}
		}
		if strings.Contains(n, part) {
			out = append(out, n)
		}
	}
	return out
}

// writeTreeText prints a window's tree as an indented list, escaped for
// the terminal.
func writeTreeText(w io.Writer, name string, t *viewtree.Tree) {
	note := ""
	if t.Truncated {
		note = ", cut short (the app's UI thread was busy)"
	}
	if t.NamesCut > 0 {
		note += fmt.Sprintf(", %d property names not kept (past %d MiB of names)", t.NamesCut, viewtree.MaxNameBytes>>20)
	}
	fmt.Fprintf(w, "window %s (%d views, %s dump%s)\n", safetext.Terminal(name), t.Count(), t.Format, note)
	for _, line := range strings.Split(strings.TrimSuffix(t.String(), "\n"), "\n") {
		fmt.Fprintf(w, "  %s\n", safetext.Terminal(line))
	}
}

// locateView finds the window holding view (dumping the windows), with
// the tree it was found in.
func locateView(ctx context.Context, s *monitor.ViewDebugger, windows []string, view string) (string, *viewtree.Tree, int, error) {
	if _, _, ok := viewtree.SplitName(view); !ok {
		return "", nil, -1, fmt.Errorf("views: %q is not CLASS@HASH", view)
	}
	var errs []string
	for _, name := range windows {
		t, err := s.DumpWindow(ctx, name)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if i := t.Find(view); i >= 0 {
			return name, t, i, nil
		}
	}
	if len(errs) > 0 {
		return "", nil, -1, fmt.Errorf("views: %s: %w (%s)", view, viewtree.ErrNoSuchView, strings.Join(errs, "; "))
	}
	return "", nil, -1, fmt.Errorf("views: %s: %w in %d window(s)", view, viewtree.ErrNoSuchView, len(windows))
}

// viewAct runs --capture, --profile, --invoke or --set-layout.
func viewAct(c *cli.Context, ctx context.Context, s *monitor.ViewDebugger, windows []string) error {
	w := c.App.Writer
	target := c.String("capture") + c.String("profile") + c.String("invoke") + c.String("set-layout")
	window, t, idx, err := locateView(ctx, s, windows, target)
	if err != nil {
		return err
	}
	view := t.Nodes[idx].Name()
	safeView := safetext.Terminal(view)
	switch {
	case c.String("capture") != "":
		pic, err := s.CaptureView(ctx, window, view)
		if err != nil {
			return err
		}
		if _, err := savefile.SaveBytes(ctx, c.String("output"), pic, savefile.Options{}); err != nil {
			return err
		}
		fmt.Fprintf(w, "wrote %s (%d bytes): %s\n", c.String("output"), len(pic), safeView)
	case c.String("profile") != "":
		ts, err := s.ProfileView(ctx, window, view)
		if err != nil {
			return err
		}
		writeProfile(w, t, idx, ts)
	case c.String("invoke") != "":
		args := c.Args().Slice()
		if len(args) == 0 {
			return errors.New("views: --invoke VIEW METHOD [ARG...]: no method")
		}
		var vargs []ddm.ViewArg
		for _, a := range args[1:] {
			v, err := viewtree.ParseArg(a)
			if err != nil {
				return fmt.Errorf("views: %w", err)
			}
			vargs = append(vargs, v)
		}
		ret, err := s.InvokeViewMethod(ctx, window, view, args[0], vargs)
		if err != nil {
			return err
		}
		switch {
		case ret == nil:
			fmt.Fprintf(w, "invoked %s on %s (no reply: frameworks before Android 14 send none on success)\n", safetext.Terminal(args[0]), safeView)
		case ret.Type == 'V':
			fmt.Fprintf(w, "invoked %s on %s: void\n", safetext.Terminal(args[0]), safeView)
		default:
			fmt.Fprintf(w, "invoked %s on %s: returned %c %s\n", safetext.Terminal(args[0]), safeView, ret.Type, ret.Value)
		}
	default:
		args := c.Args().Slice()
		if len(args) != 2 {
			return errors.New("views: --set-layout VIEW FIELD VALUE")
		}
		v, err := strconv.ParseInt(args[1], 0, 32)
		if err != nil {
			return fmt.Errorf("views: --set-layout: %q is not an int (only int layout parameters can be set)", args[1])
		}
		if err := s.SetViewLayoutParam(ctx, window, view, args[0], int32(v)); err != nil {
			return err
		}
		fmt.Fprintf(w, "set %s = %d on %s\n", safetext.Terminal(args[0]), v, safeView)
	}
	return nil
}

// writeProfile prints a subtree's times beside its views, in ms.
func writeProfile(w io.Writer, t *viewtree.Tree, idx int, ts []viewtree.Timing) {
	end := t.Subtree(idx)
	fmt.Fprintf(w, "%10s %10s %10s  view\n", "measure ms", "layout ms", "draw ms")
	ms := func(ns int64) string {
		if ns < 0 {
			return "timeout"
		}
		return strconv.FormatFloat(float64(ns)/1e6, 'f', 3, 64)
	}
	base := t.Nodes[idx].Depth
	for k, tm := range ts {
		label := "?"
		if idx+k < end {
			n := &t.Nodes[idx+k]
			label = strings.Repeat("  ", int(n.Depth-base)) + n.Name()
		}
		fmt.Fprintf(w, "%10s %10s %10s  %s\n", ms(tm.Measure), ms(tm.Layout), ms(tm.Draw), safetext.Terminal(label))
	}
	if len(ts) != end-idx {
		fmt.Fprintf(w, "(%d times for %d views: the tree changed since it was dumped)\n", len(ts), end-idx)
	}
}

// dumpFoundViews dumps the windows of every working DDM VM in found (only
// pid's when not 0), one VM at a time, each bounded: `snapshot --views`.
func dumpFoundViews(ctx context.Context, e *monitor.Engine, found []monitor.Found, pid int) map[string]*headless.Views {
	out := map[string]*headless.Views{}
	for _, f := range found {
		if f.Failed != "" || !f.VM.DDM || pid != 0 && f.VM.PID != pid {
			continue
		}
		s := e.Session(f.VM.Key)
		if s == nil {
			continue
		}
		vctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		windows, err := s.Views().DumpAllWindows(vctx)
		cancel()
		out[f.VM.Key] = headless.NewViews(windows, err)
	}
	return out
}

// writeLayers saves a window's capture-layers stream: one PNG per drawn
// view, numbered in drawing order, and a line per view on stdout.
func writeLayers(c *cli.Context, ctx context.Context, s *monitor.ViewDebugger, window string) error {
	l, err := s.CaptureLayers(ctx, window)
	if err != nil {
		return err
	}
	dir := c.String("layers")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	w := c.App.Writer
	fmt.Fprintf(w, "window %s: %dx%d, %d views\n", safetext.Terminal(window), l.Width, l.Height, len(l.Views))
	for i, v := range l.Views {
		path := filepath.Join(dir, fmt.Sprintf("%04d-%s.png", i, fileName(v.Name)))
		if _, err := savefile.SaveBytes(ctx, path, v.PNG, savefile.Options{}); err != nil {
			return err
		}
		vis := ""
		if !v.Visible {
			vis = " (not visible)"
		}
		fmt.Fprintf(w, "%s  %s at %d,%d%s\n", path, safetext.Terminal(v.Name), v.Left, v.Top, vis)
	}
	if l.Truncated {
		fmt.Fprintln(w, "(the stream was cut short: the views above are those that came)")
	}
	return nil
}

// fileName keeps letters, digits, '.', '@' and '_' of a view's name.
func fileName(name string) string {
	b := []byte(name)
	for i, ch := range b {
		if !(ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' || ch == '.' || ch == '@' || ch == '_') {
			b[i] = '_'
		}
	}
	if len(b) > 100 {
		b = b[len(b)-100:]
	}
	return string(b)
}
