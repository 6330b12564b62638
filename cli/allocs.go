package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/allocs"
	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/mapping/apply"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/savefile"
	"github.com/ddmtui/ddmtui/tui/allocview"
)

func allocsCommand() *cli.Command {
	return &cli.Command{
		Name:  "allocs",
		Usage: "record a VM's allocations (allocation tracker) and show them grouped by class or site",
		Description: "Turns the VM's allocation tracker on if it is off (REAE), waits --duration, fetches the recent\n" +
			"allocations (REAL: up to 65535, each with size, class, thread and stack) and shows them: in the\n" +
			"terminal pane when standard output is a terminal (R fetches again, t turns tracking on/off), else\n" +
			"as a text table (--text forces it), or as JSON with --json. Tracking stays on unless --stop is\n" +
			"given; --start only turns it on. When tracking was already on, the allocations are fetched at\n" +
			"once unless --duration is given.",
		Flags: append(vmPickFlags(),
			&cli.IntFlag{Name: "pid", Usage: "the VM", Required: true},
			&cli.BoolFlag{Name: "json", Usage: "print the allocations and their groups as JSON"},
			&cli.BoolFlag{Name: "text", Usage: "print a text table even on a terminal"},
			&cli.BoolFlag{Name: "start", Usage: "only turn tracking on, fetch nothing"},
			&cli.BoolFlag{Name: "stop", Usage: "turn tracking off afterwards (the VM then drops its records)"},
			&cli.DurationFlag{Name: "duration", Value: 3 * time.Second, Usage: "how long to record before fetching"},
			&cli.StringFlag{Name: "group", Value: "class", Usage: "text table grouping: class, site, stack, thread or flat"},
			&cli.StringFlag{Name: "sort", Value: "count", Usage: "order: count, bytes, mean, name, site or order"},
			&cli.StringFlag{Name: "filter", Usage: "keep allocations whose class, class.method, file or tid=N contains `TEXT` (!TEXT: drop them)"},
			&cli.IntFlag{Name: "top", Usage: "print at most `N` rows of the text table (0: all)"},
			&cli.DurationFlag{Name: "wait", Value: 5 * time.Second, Usage: "how long to look for the VM"},
			mappingFlag(),
		),
		Action: allocsAction,
	}
}

func allocsAction(c *cli.Context) error {
	if c.Bool("start") && c.Bool("stop") {
		return errors.New("allocs: --start and --stop exclude each other (--stop alone records, fetches, then stops)")
	}
	by, err := allocs.ParseGroupBy(c.String("group"))
	if err != nil {
		return fmt.Errorf("allocs: --group: %w", err)
	}
	key, err := allocs.ParseSortKey(c.String("sort"))
	if err != nil {
		return fmt.Errorf("allocs: --sort: %w", err)
	}
	if c.Int("top") < 0 {
		return errors.New("allocs: --top must not be negative")
	}
	pane := !c.Bool("json") && !c.Bool("text") && !c.Bool("start") && isTerminal(c.App.Writer)
	m, err := loadMapping(c, "allocs")
	if err != nil {
		return err
	}
	return withVM(c, c.Int("pid"), c.Duration("wait"), func(ctx context.Context, s *monitor.Session, vm monitor.VM) error {
		if ddm, err := s.Link().IsDDM(ctx); err != nil {
			return err
		} else if !ddm {
			return fmt.Errorf("pid %d does not speak DDM: it has no allocation tracker ddmtui can reach", vm.PID)
		}
		family, err := s.Link().Family(ctx)
		if err != nil {
			return err
		}
		name := vmLabel(vm)
		on, err := s.AllocTracking(ctx)
		if err != nil {
			return fmt.Errorf("allocation tracker status (REAQ): %w", err)
		}
		turnedOn := false
		if !on {
			if err := s.SetAllocTracking(ctx, true); err != nil {
				return fmt.Errorf("turn allocation tracking on (REAE): %w", err)
			}
			turnedOn = true
		}
		if c.Bool("start") {
			if c.Bool("json") {
				return headless.WriteJSON(c.App.Writer, map[string]bool{"tracking": true})
			}
			state := "was already on"
			if turnedOn {
				state = "is now on"
			}
			_, err := fmt.Fprintf(c.App.Writer, "allocation tracking of %s %s\n", name, state)
			return err
		}
		if turnedOn || c.IsSet("duration") {
			fmt.Fprintf(c.App.ErrWriter, "recording allocations of %s for %v…\n", name, c.Duration("duration"))
			select {
			case <-time.After(c.Duration("duration")):
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		a, err := s.Allocations(ctx)
		if err != nil {
			return fmt.Errorf("fetch allocations (REAL): %w", err)
		}
		reportCoverage(c, "allocs", m, apply.Allocations(m, a))
		tab := allocs.New(a, allocs.OrderOf(family))
		tracking := true
		if pane {
			title := name
			if m != nil {
				title += mappingNote
			}
			err := allocview.Run(tab, allocview.RunOptions{
				Title: title, Tracking: &tracking, Context: ctx,
				Fetch: func(ctx context.Context) (*allocs.Table, error) {
					a, err := s.Allocations(ctx)
					if err != nil {
						return nil, err
					}
					apply.Allocations(m, a)
					return allocs.New(a, allocs.OrderOf(family)), nil
				},
				Track: func(ctx context.Context, on bool) (bool, error) {
					if err := s.SetAllocTracking(ctx, on); err != nil {
						return false, err
					}
					return s.AllocTracking(ctx)
				},
			})
			if err != nil {
				return fmt.Errorf("allocs: cannot show the pane in this terminal (%w); use --text or --json", err)
			}
		}
		if c.Bool("stop") {
			// The VM may already be gone when the user quit the pane with
			// Ctrl-C; stopping still deserves a moment.
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
			defer cancel()
			if err := s.SetAllocTracking(sctx, false); err != nil {
				return fmt.Errorf("turn allocation tracking off (REAE): %w", err)
			}
			tracking = false
		}
		if pane {
			return nil
		}
		rows := tab.Filter(c.String("filter"))
		if c.Bool("json") {
			return headless.WriteJSON(c.App.Writer, allocsReport(tab, rows, key, tracking))
		}
		return writeAllocsText(c.App.Writer, tab, rows, name, tracking, by, key, c.Int("top"))
	})
}

// JSON shapes of `ddmtui allocs --json`.
type (
	allocsJSON struct {
		Tracking bool             `json:"tracking"`
		Order    string           `json:"order"` // "newest_first" (ART) or "oldest_first" (Dalvik): the order of entries
		Count    int              `json:"count"`
		Bytes    uint64           `json:"bytes"`
		Entries  []allocs.Entry   `json:"entries"`
		ByClass  []classGroupJSON `json:"by_class"`
		BySite   []siteGroupJSON  `json:"by_site"`
	}
	classGroupJSON struct {
		Class   string  `json:"class"`
		Count   int     `json:"count"`
		Bytes   uint64  `json:"bytes"`
		Mean    float64 `json:"mean"`
		TopSite string  `json:"top_site"`
	}
	siteGroupJSON struct {
		Site     string        `json:"site"`
		Frame    *allocs.Frame `json:"frame"` // null for allocations without a stack
		Count    int           `json:"count"`
		Bytes    uint64        `json:"bytes"`
		Mean     float64       `json:"mean"`
		TopClass string        `json:"top_class"`
	}
)

// allocsReport is the JSON report of the entries at rows: in the VM's
// order, groups sorted by key.
func allocsReport(tab *allocs.Table, rows []int, key allocs.SortKey, tracking bool) allocsJSON {
	r := allocsJSON{Tracking: tracking, Order: "newest_first", Entries: make([]allocs.Entry, 0, len(rows)),
		ByClass: []classGroupJSON{}, BySite: []siteGroupJSON{}}
	if tab.Order == allocs.OldestFirst {
		r.Order = "oldest_first"
	}
	r.Count, r.Bytes = tab.Sum(rows)
	for _, i := range rows {
		e := tab.Entries[i]
		if e.Frames == nil {
			e.Frames = []allocs.Frame{}
		}
		r.Entries = append(r.Entries, e)
	}
	mean := func(g *allocs.Group) float64 { return float64(int64(g.Mean()*10+0.5)) / 10 }
	classes := tab.Groups(allocs.ByClass, rows)
	allocs.SortGroups(classes, key, false)
	for i := range classes {
		g := &classes[i]
		r.ByClass = append(r.ByClass, classGroupJSON{Class: g.Class, Count: g.Count, Bytes: g.Bytes, Mean: mean(g), TopSite: g.Site})
	}
	sites := tab.Groups(allocs.BySite, rows)
	allocs.SortGroups(sites, key, false)
	for i := range sites {
		g := &sites[i]
		s := siteGroupJSON{Site: g.Site, Count: g.Count, Bytes: g.Bytes, Mean: mean(g), TopClass: g.Class}
		if len(g.Frames) > 0 {
			s.Frame = &g.Frames[0]
		}
		r.BySite = append(r.BySite, s)
	}
	return r
}

// writeAllocsText prints the table grouped by, sorted by key, at most top
// rows (0: all). Names from the VM go through safetext.Terminal.
func writeAllocsText(w io.Writer, tab *allocs.Table, rows []int, name string, tracking bool, by allocs.GroupBy, key allocs.SortKey, top int) error {
	count, bytes := tab.Sum(rows)
	state := "on"
	if !tracking {
		state = "off"
	}
	fmt.Fprintf(w, "%s: tracking %s; %d allocations, %s", name, state, count, humanSize(bytes))
	if count != tab.Len() {
		fmt.Fprintf(w, " (of %d, %s)", tab.Len(), humanSize(tab.Bytes))
	}
	fmt.Fprintf(w, "; grouped by %s, sorted by %s\n\n", by, key)
	if count == 0 {
		_, err := fmt.Fprintln(w, "no allocations recorded")
		return err
	}
	cell := safetext.Terminal
	t := textTable{numeric: 4}
	n := 0
	if by == allocs.Flat {
		tab.SortEntries(rows, key, false)
		t.numeric = 3
		t.header = []string{"#", "SIZE", "TID", "CLASS", "SITE"}
		n = len(rows)
		if top > 0 {
			rows = rows[:min(top, n)]
		}
		for _, i := range rows {
			e := &tab.Entries[i]
			t.add(nil, strconv.Itoa(e.Index), humanSize(uint64(e.Size)), strconv.Itoa(int(e.ThreadID)),
				cell(e.Class), cell(tab.Site(i)))
		}
	} else {
		groups := tab.Groups(by, rows)
		allocs.SortGroups(groups, key, false)
		other := "TOP CLASS"
		if by == allocs.ByClass {
			other = "TOP SITE"
		}
		t.header = []string{"COUNT", "BYTES", "MEAN", "%", strings.ToUpper(by.String()), other}
		n = len(groups)
		if top > 0 {
			groups = groups[:min(top, n)]
		}
		for gi := range groups {
			g := &groups[gi]
			label, otherText := g.Key, g.Class
			var below []string
			switch by {
			case allocs.ByClass:
				otherText = g.Site
			case allocs.ByStack:
				label = g.Site
				for _, f := range g.Frames[min(1, len(g.Frames)):] {
					below = append(below, "  at "+cell(f.String()))
				}
			case allocs.ByThread:
				label = "tid " + g.Key
			}
			t.add(below, strconv.Itoa(g.Count), humanSize(g.Bytes), savefile.MeanSize(g.Mean()),
				strconv.FormatFloat(100*float64(g.Bytes)/float64(bytes), 'f', 1, 64), cell(label), cell(otherText))
		}
	}
	if err := t.write(w); err != nil {
		return err
	}
	if more := n - len(t.rows); more > 0 {
		_, err := fmt.Fprintf(w, "… %d more rows (--top 0 shows all)\n", more)
		return err
	}
	return nil
}

// textTable prints columns separated by two spaces: the first numeric ones
// aligned right, the others left; lines below a row (a stack's outer frames)
// start under the first text column.
type textTable struct {
	header  []string
	numeric int
	rows    [][]string
	below   [][]string
}

func (t *textTable) add(below []string, cells ...string) {
	t.rows = append(t.rows, cells)
	t.below = append(t.below, below)
}

func (t *textTable) write(w io.Writer) error {
	width := make([]int, len(t.header))
	for _, r := range append([][]string{t.header}, t.rows...) {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	indent := 0
	for i := range t.numeric {
		indent += width[i] + 2
	}
	var b strings.Builder
	line := func(r []string) {
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			switch {
			case i < t.numeric:
				b.WriteString(pad + c + "  ")
			case i < len(r)-1:
				b.WriteString(c + pad + "  ")
			default:
				b.WriteString(c)
			}
		}
		b.WriteString("\n")
	}
	line(t.header)
	for k, r := range t.rows {
		line(r)
		for _, l := range t.below[k] {
			b.WriteString(strings.Repeat(" ", indent) + l + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
