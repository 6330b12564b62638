package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/savefile"
	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// logChunk is how many buffered entries one turn of the UI loop filters
// when the query changes (a regex costs about 11 ms per 20,000 entries):
// the rest is filtered on the following turns, so no frame waits for all.
const logChunk = 20_000

// logPane shows the selected VM's log (following its app across restarts)
// or, after L, the whole device's. It keeps the entries its cursor read
// (at most the ring's size) and the indexes of those the query passes; it
// draws only the rows in view, straight to the screen.
type logPane struct {
	env paneEnv
	box *tview.Box

	log    *devicelog.Log
	cur    *devicelog.Cursor
	stop   context.CancelFunc
	gen    int
	target string // what the view is of: VM key or "device:" + source
	app    string // the app whose log this is ("" for the whole device)
	device bool   // whole device (L)
	why    string // why there is no log

	all   []logcat.Entry
	shown []int // indexes into all that pass the query
	done  int   // entries of all the query has been applied to
	limit int

	qsrc  string
	query *logcat.Query
	words []string // highlighted (n/N)

	sel      int // the focused line: index into shown
	top      int // first line in view
	follow   bool
	newCount int
	wrap     bool
	height   int
	narrow   bool // the pane is under 100 columns: no date in the time
	saved    string
	// later runs f on a later turn of the UI loop (benchmarks: nil).
	later func(f func())
}

func newLogPane(env paneEnv) *logPane {
	p := &logPane{env: env, follow: true, limit: logcat.DefaultRingSize}
	p.later = func(f func()) { go env.work.post(f) }
	p.box = tview.NewBox()
	p.box.SetBorder(true).SetTitle(" Log ")
	p.box.SetDrawFunc(func(s tcell.Screen, x, y, w, h int) (int, int, int, int) {
		p.draw(s, x+1, y+1, w-2, h-2)
		return x + 1, y + 1, w - 2, h - 2
	})
	return p
}

func (p *logPane) Name() string            { return "log" }
func (p *logPane) Title() string           { return "log" }
func (p *logPane) Widget() tview.Primitive { return p.box }
func (p *logPane) Frame() *tview.Box       { return p.box }

func (p *logPane) Keys() []keymap.Binding {
	const g = "Panes"
	b, a := keymap.Bind, keymap.Alias
	return []keymap.Binding{
		b(tcell.KeyRune, 'l', "l / L", "log: this VM's app (restarts too) / whole device", g, p.toggleVM).As("toggle-log"),
		a(tcell.KeyRune, 'L', p.toggleDevice).As("log-device"),
		b(tcell.KeyRune, 's', "s · w · G", "log: save (--out-dir) · wrap · follow (End)", g, p.save).As("log-save").In(LogScope),
		a(tcell.KeyRune, 'w', p.toggleWrap).As("log-wrap").In(LogScope),
		a(tcell.KeyRune, 'G', p.resume).As("log-follow").In(LogScope),
		b(tcell.KeyRune, 'n', "n / N · ] / [", "log: next / previous query match · crash", g, func() { p.search(1) }).As("log-search-next").In(LogScope),
		a(tcell.KeyRune, 'N', func() { p.search(-1) }).As("log-search-prev").In(LogScope),
		a(tcell.KeyRune, ']', func() { p.crash(1) }).As("log-next-crash").In(LogScope),
		a(tcell.KeyRune, '[', func() { p.crash(-1) }).As("log-prev-crash").In(LogScope),
	}
}

// LogScope is the scope of the log pane's keys that act only while it has
// the focus (some share a letter with other panes' keys: s, n, G).
const LogScope = "log pane"

// handle runs the focused-only keys (as the key table binds them now).
func (p *logPane) handle(ev *tcell.EventKey) bool { return p.env.keys().HandleScope(ev, LogScope) }

func (p *logPane) toggleVM() {
	if p.env.nav.shown(paneLog) && p.device {
		p.device = false
		p.attach()
		p.env.nav.setFocus(paneLog)
		return
	}
	if !p.env.nav.shown(paneLog) {
		p.device = false
	}
	p.env.nav.toggle(paneLog)
}

// toggleDevice shows the whole device's log; pressed again on it, it
// closes the pane, as l closes the app's log.
func (p *logPane) toggleDevice() {
	switch {
	case !p.env.nav.shown(paneLog):
		p.device = true
		p.env.nav.toggle(paneLog)
	case p.device:
		p.env.nav.toggle(paneLog)
	default:
		p.device = true
		p.attach()
		p.env.nav.setFocus(paneLog)
	}
}

func (p *logPane) Update(c Change) {
	if !p.env.nav.shown(paneLog) {
		p.detach()
		return
	}
	if c&(ChangeSelection|ChangeVMs) != 0 || p.target == "" {
		p.attach()
	}
}

// attach points the view at the selected VM's app (or its device),
// keeping it when that did not change.
func (p *logPane) attach() {
	vm, ok := p.env.m.selected()
	if !ok {
		p.detach()
		p.why = "no VM selected"
		return
	}
	target := vm.Key
	if p.device {
		target = "device:" + vm.Source
	} else if vm.App != "" {
		target = "app:" + vm.Source + "/" + vm.App
	}
	if target == p.target && !p.replaced(vm) {
		return
	}
	p.detach()
	p.target = target
	p.app = ""
	if !p.device {
		p.app = vm.App // entries the log has not named an app for are the VM's
	}
	var log *devicelog.Log
	why := "no device log (the dashboard was started without one)"
	if p.env.cfg.Log != nil {
		log, why = p.env.cfg.Log(vm)
	}
	if log == nil {
		p.why = why
		p.setTitle()
		return
	}
	p.why = ""
	if vm.PID > 0 && vm.App != "" {
		log.SetApp(vm.PID, vm.App)
	}
	f := devicelog.Filter{}
	if !p.device {
		f.App, f.PID = vm.App, vm.PID
	}
	p.log, p.cur = log, log.Cursor(f)
	p.all, p.shown, p.done, p.sel, p.top, p.follow, p.newCount = nil, nil, 0, 0, 0, true, 0
	p.limit = log.Ring().Cap()
	p.gen++
	p.watch()
	p.setTitle()
}

// replaced reports whether vm's device log is now another one than the
// view reads (a replay seeking back starts its logs afresh).
func (p *logPane) replaced(vm monitor.VM) bool {
	if p.log == nil || p.env.cfg.Log == nil {
		return false
	}
	l, _ := p.env.cfg.Log(vm)
	return l != p.log
}

func (p *logPane) detach() {
	if p.stop != nil {
		p.stop()
		p.stop = nil
	}
	p.gen++
	p.log, p.cur, p.target = nil, nil, ""
	p.all, p.shown, p.done = nil, nil, 0
}

// pull takes what arrived since the last call, then filters a chunk.
func (p *logPane) pull() {
	if p.cur == nil {
		return
	}
	p.all, _ = p.cur.Read(p.all, 0, time.Time{})
	p.trim()
	p.step()
}

// trim drops the oldest entries beyond the ring's size (in batches, so
// the copy is rare).
func (p *logPane) trim() {
	if len(p.all) <= p.limit+p.limit/4 {
		return
	}
	n := len(p.all) - p.limit
	p.all = append([]logcat.Entry(nil), p.all[n:]...)
	k := 0
	for k < len(p.shown) && p.shown[k] < n {
		k++
	}
	p.shown = p.shown[k:]
	for i := range p.shown {
		p.shown[i] -= n
	}
	p.sel, p.top = max(0, p.sel-k), max(0, p.top-k)
	p.done = max(0, p.done-n)
}

// step applies the query to at most logChunk entries not yet filtered,
// and asks for another turn when some remain.
func (p *logPane) step() {
	end := min(len(p.all), p.done+logChunk)
	var now time.Time
	if len(p.all) > 0 {
		now = p.all[len(p.all)-1].Time
	}
	before := len(p.shown)
	for i := p.done; i < end; i++ {
		if p.query.Match(&p.all[i], now) {
			p.shown = append(p.shown, i)
		}
	}
	p.done = end
	if added := len(p.shown) - before; added > 0 {
		if p.follow {
			p.sel = len(p.shown) - 1
		} else {
			p.newCount += added
		}
	}
	if p.done < len(p.all) && p.later != nil {
		gen := p.gen
		p.later(func() {
			if p.gen == gen {
				p.step()
			}
		})
	}
	p.setTitle()
}

// Filter and SetFilter: the / prompt types the query.
func (p *logPane) Filter() string { return p.qsrc }

// CheckFilter says whether src compiles as a query (FilterChecker).
func (p *logPane) CheckFilter(src string) error {
	_, err := logcat.Compile(src, logcat.QueryOptions{})
	return err
}

func (p *logPane) SetFilter(src string) {
	q, err := logcat.Compile(src, logcat.QueryOptions{})
	if err != nil {
		p.env.flash(safetext.Terminal(err.Error()))
		return
	}
	p.qsrc, p.query, p.words = src, q, queryWords(src)
	p.shown, p.done, p.sel, p.top, p.newCount = nil, 0, 0, 0, 0
	p.follow = true
	p.gen++ // pending chunks of the old query stop
	if p.cur != nil {
		p.watch()
		p.step()
	}
	p.setTitle()
}

// watch (re)starts the goroutine that hands new entries to the UI
// goroutine at most once a frame, for the current generation.
func (p *logPane) watch() {
	if p.stop != nil {
		p.stop()
	}
	gen, cur := p.gen, p.cur
	ctx, cancel := context.WithCancel(p.env.work.bg())
	p.stop = cancel
	p.env.work.spawn(func() {
		for {
			ch := cur.Changed()
			p.env.work.post(func() {
				if p.gen == gen {
					p.pull()
				}
			})
			select {
			case <-ctx.Done():
				return
			case <-ch:
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(p.env.cfg.FrameInterval):
			}
		}
	})
}

// queryWords are the query's plain words and message:/tag: values, which
// the view highlights and n/N look for.
func queryWords(src string) []string {
	var out []string
	for _, f := range strings.Fields(src) {
		if strings.HasPrefix(f, "-") || strings.Contains(f, "~:") {
			continue
		}
		k, v, ok := strings.Cut(f, ":")
		switch {
		case !ok:
			v = f
		case k != "message" && k != "tag":
			continue
		}
		v = strings.Trim(v, `"'`)
		if v != "" && v != "|" && !strings.EqualFold(v, "or") {
			out = append(out, strings.ToLower(v))
		}
	}
	return out
}

func (p *logPane) Move(delta int) {
	if len(p.shown) == 0 {
		return
	}
	p.sel = max(0, min(p.sel+delta, len(p.shown)-1))
	if p.sel == len(p.shown)-1 && delta > 0 {
		p.resume()
		return
	}
	if delta < 0 {
		p.follow = false
	}
	p.setTitle()
}

func (p *logPane) PageSize() int { return max(1, p.height-1) }

func (p *logPane) resume() {
	p.follow, p.newCount = true, 0
	p.sel = max(0, len(p.shown)-1)
	p.setTitle()
}

func (p *logPane) toggleWrap() {
	p.wrap = !p.wrap
	p.setTitle()
}

// search moves to the next (dir 1) or previous line holding a highlighted
// word.
func (p *logPane) search(dir int) {
	if len(p.words) == 0 {
		p.env.flash("log: type a query after / first; n/N find its words")
		return
	}
	p.jump(dir, func(e *logcat.Entry) bool { return hasWord(e, p.words) }, "no more lines with "+strings.Join(p.words, ", "))
}

// crash moves to the next or previous crash report's first line.
func (p *logPane) crash(dir int) {
	p.jump(dir, func(e *logcat.Entry) bool { return e.Has(logcat.FlagCrashStart) }, "no more crashes in the view")
}

func (p *logPane) jump(dir int, ok func(*logcat.Entry) bool, none string) {
	for i := p.sel + dir; i >= 0 && i < len(p.shown); i += dir {
		if ok(&p.all[p.shown[i]]) {
			p.sel = i
			p.follow = i == len(p.shown)-1
			if p.follow {
				p.newCount = 0
			}
			p.setTitle()
			return
		}
	}
	p.env.flash("log: " + none)
}

func hasWord(e *logcat.Entry, words []string) bool {
	m, t := strings.ToLower(e.Message), strings.ToLower(e.Tag)
	for _, w := range words {
		if strings.Contains(m, w) || strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// save writes the filtered view as threadtime text into the out dir.
func (p *logPane) save() {
	if len(p.shown) == 0 {
		p.env.flash("log: nothing to save")
		return
	}
	dir := p.env.cfg.TraceDir
	if dir == "" {
		dir = "."
	}
	name := filepath.Join(dir, fmt.Sprintf("logcat-%s.txt", p.env.now().Format("20060102-150405")))
	loc := p.log.Location()
	buf := make([]byte, 0, 1<<16)
	for _, i := range p.shown {
		buf = logcat.AppendThreadtime(buf, &p.all[i], loc)
	}
	n, e := len(p.shown), p.env
	e.work.job("log-save", jobQueue, time.Minute, func(ctx context.Context) {
		_, err := savefile.SaveBytes(ctx, name, buf, savefile.Options{})
		e.work.post(func() {
			if err != nil {
				e.flash("log: " + err.Error())
				return
			}
			p.saved = name
			e.flash(fmt.Sprintf("log: %d lines saved to %s", n, name))
		})
	})
}

// CopyText is the focused line, as threadtime text.
func (p *logPane) CopyText() (what, text string) {
	if p.sel < 0 || p.sel >= len(p.shown) || p.log == nil {
		return "log line", ""
	}
	b := logcat.AppendThreadtime(nil, &p.all[p.shown[p.sel]], p.log.Location())
	return "log line", strings.TrimRight(string(b), "\n")
}

func (p *logPane) setTitle() {
	var b strings.Builder
	b.WriteString(" Log")
	vm, ok := p.env.m.selected()
	switch {
	case !ok:
	case p.device:
		b.WriteString(" · device " + vm.Source)
	case vm.App != "":
		b.WriteString(" · " + vm.App + p.env.cfg.Mappings.note(vm.App))
	default:
		fmt.Fprintf(&b, " · pid %d", vm.PID)
	}
	if p.qsrc != "" {
		b.WriteString(" · /" + p.qsrc)
	}
	switch {
	case p.log == nil:
	case p.done < len(p.all):
		fmt.Fprintf(&b, " · filtering %d%%", 100*p.done/max(1, len(p.all)))
	case p.follow:
		b.WriteString(" · following")
	default:
		fmt.Fprintf(&b, " · paused, %d new (End)", p.newCount)
	}
	if p.wrap {
		b.WriteString(" · wrap")
	}
	b.WriteString(" ")
	p.box.SetTitle(style.Escape(b.String()))
}
