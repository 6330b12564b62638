package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
)

// The `:` prompt runs the key table's actions by their stable names
// (`:gc`, `:heap-dump`, `:timeline`), and by the names the table adds
// (keymap.Binding.Also: `:hprof`, `:dump`); a pane's toggle also answers
// to the pane's name (`:threads` shows and focuses the thread pane, and
// hides it when it has the focus). Two commands take an argument: `:app
// NAME` jumps to a VM by its app's name across devices, and `:sort COLUMN`
// sorts the focused table. The prompt is the `/` filter's (one prompt
// serves both); Tab completes, the candidates show as you type, Up/Down
// walk the history.

// command is one thing the prompt runs.
type command struct {
	name string
	help string
	arg  string // the argument it takes ("" for none)
	run  func(arg string)
}

// cmdHistoryLen bounds the prompt's history.
const cmdHistoryLen = 50

// notCommands are actions that make no sense typed: movement and the
// prompt's own keys.
var notCommands = map[string]bool{"down": true, "up": true, "page-down": true, "page-up": true,
	"first": true, "last": true, "escape": true, "filter": true, "command": true, "activate": true}

// commands lists what the prompt knows, sorted by name; every entry but
// app and sort comes from the key table.
func (d *Dashboard) commands() []command {
	out := []command{
		{name: "app", arg: "NAME", help: "select the VM whose app name matches (across devices; again: the next match)", run: d.jumpToApp},
		{name: "sort", arg: "COLUMN", help: "sort the focused table (VM list or threads) by a column; again: reverse", run: d.sortBy},
	}
	seen := map[string]bool{"app": true, "sort": true}
	add := func(name string, c command) {
		if name != "" && !seen[name] {
			seen[name] = true
			c.name = name
			out = append(out, c)
		}
	}
	for _, b := range d.keys.Bindings() {
		if b.Name == "" || notCommands[b.Name] || seen[b.Name] ||
			b.Scope == TimelineScope || b.Scope == ThreadsScope || b.Scope == VMListScope {
			continue
		}
		b := b
		help := b.Help
		if help == "" || b.Hidden {
			help = "key " + keymap.LabelOf(b)
		}
		run := func(string) {
			if b.Action != nil {
				b.Action()
			}
		}
		add(b.Name, command{help: help, run: run})
		if pane, ok := strings.CutPrefix(b.Name, "toggle-"); ok {
			if p := d.paneNamed(pane); p >= 0 {
				add(pane, command{help: "show and focus the " + d.panes[p].Title() + " pane (hide it when focused)",
					run: func(string) { d.switchPane(p, b.Action) }})
			}
		}
		for _, alias := range b.Commands {
			add(alias, command{help: help, run: run})
		}
	}
	add("vms", command{help: "focus the VM list", run: func(string) { d.setFocus(paneVMs) }})
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func (d *Dashboard) paneNamed(name string) int {
	for i, p := range d.panes {
		if p.Name() == name {
			return i
		}
	}
	return -1
}

// switchPane shows pane p and gives it the focus; when it has the focus
// already, toggle (the pane's key's action) hides it.
func (d *Dashboard) switchPane(p int, toggle func()) {
	switch {
	case !d.show[p] || d.focus == p && d.paneVisible(p):
		if toggle != nil {
			toggle()
		}
	default:
		d.setFocus(p)
	}
}

// runCommand runs a line typed at the `:` prompt.
func (d *Dashboard) runCommand(line string) {
	line = strings.TrimSpace(line)
	if line == "" {
		return
	}
	name, arg, _ := strings.Cut(line, " ")
	arg = strings.TrimSpace(arg)
	for _, c := range d.commands() {
		if c.name != name {
			continue
		}
		if c.arg != "" && arg == "" {
			d.flash(fmt.Sprintf(":%s needs %s (e.g. :%s %s)", name, c.arg, name, exampleArg(c.name)))
			return
		}
		if c.arg == "" && arg != "" {
			d.flash(fmt.Sprintf(":%s takes no argument (%q left over)", name, arg))
			return
		}
		c.run(arg)
		return
	}
	msg := fmt.Sprintf("unknown command :%s", name)
	if s := d.suggest(name); s != "" {
		msg += fmt.Sprintf(" — did you mean :%s?", s)
	}
	d.flash(msg + " (Tab completes; ? lists the keys, whose names are the commands)")
}

func exampleArg(name string) string {
	if name == "sort" {
		return "cpu"
	}
	return "mail"
}

// suggest is the known command nearest to name: one it starts, one that
// contains it, else the fewest edits away (at most half its length).
func (d *Dashboard) suggest(name string) string {
	cmds := d.commands()
	for _, c := range cmds {
		if strings.HasPrefix(c.name, name) {
			return c.name
		}
	}
	for _, c := range cmds {
		if strings.Contains(c.name, name) {
			return c.name
		}
	}
	best, bestD := "", len(name)/2+1
	for _, c := range cmds {
		if e := editDistance(name, c.name); e < bestD {
			best, bestD = c.name, e
		}
	}
	return best
}

// editDistance is Levenshtein's distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// completions are the whole lines the prompt offers for text: command
// names it starts (else contains), or for `app ` and `sort ` their
// arguments.
func (d *Dashboard) completions(text string) []string {
	if name, arg, ok := strings.Cut(text, " "); ok {
		var args []string
		switch name {
		case "app":
			for _, vm := range d.appMatches(strings.TrimSpace(arg)) {
				args = append(args, appLabel(vm))
			}
		case "sort":
			for _, c := range d.sortColumns() {
				if strings.HasPrefix(c, strings.ToLower(strings.TrimSpace(arg))) {
					args = append(args, c)
				}
			}
		}
		out := make([]string, 0, len(args))
		seen := map[string]bool{}
		for _, a := range args {
			if !seen[a] {
				seen[a] = true
				out = append(out, name+" "+a)
			}
		}
		return out
	}
	var pre, sub []string
	for _, c := range d.commands() {
		line := c.name
		if c.arg != "" {
			line += " "
		}
		switch {
		case strings.HasPrefix(c.name, text):
			pre = append(pre, line)
		case strings.Contains(c.name, text):
			sub = append(sub, line)
		}
	}
	return append(pre, sub...)
}

// openCommand turns the prompt into the `:` command prompt.
func (o *overlays) openCommand() {
	o.target, o.command = nil, true
	o.tabBase, o.tabNext, o.histAt = "", 0, len(o.lines)
	o.prompt.SetLabel(":")
	o.prompt.SetFieldStyle(o.promptStyle) // not a filter's mark of a bad query
	o.prompt.SetText("")
	o.asking = true
	o.bar.ResizeItem(o.hint, 0, 2) // the completions take two thirds
	o.showHint("")
	o.sh.relayout()
	o.sh.focusOn(o.prompt)
}

// commandKey handles the keys the command prompt takes before the input
// field: Tab (complete, again: the next candidate), Up/Down (history).
func (o *overlays) commandKey(ev *tcell.EventKey) *tcell.EventKey {
	if !o.command {
		return ev
	}
	switch ev.Key() {
	case tcell.KeyTab, tcell.KeyBacktab:
		text := o.prompt.GetText()
		if text != o.tabLast {
			o.tabBase, o.tabNext = text, 0
		}
		if c := o.sh.completions(o.tabBase); len(c) > 0 {
			if ev.Key() == tcell.KeyBacktab {
				o.tabNext = (o.tabNext - 2 + 2*len(c)) % len(c)
			}
			o.tabLast = c[o.tabNext%len(c)]
			o.tabNext = (o.tabNext%len(c) + 1) % len(c)
			o.prompt.SetText(o.tabLast)
		}
		return nil
	case tcell.KeyUp, tcell.KeyDown:
		if ev.Key() == tcell.KeyUp && o.histAt > 0 {
			o.histAt--
		} else if ev.Key() == tcell.KeyDown && o.histAt < len(o.lines) {
			o.histAt++
		}
		line := ""
		if o.histAt < len(o.lines) {
			line = o.lines[o.histAt]
		}
		o.prompt.SetText(line)
		return nil
	}
	return ev
}

// showHint shows what Tab would complete text to, as it is typed.
func (o *overlays) showHint(text string) {
	c := o.sh.completions(text)
	name, _, hasArg := strings.Cut(text, " ")
	switch {
	case len(c) == 0 && hasArg && name == "sort":
		o.hint.SetText("[::d]columns here: " + strings.Join(o.sh.sortColumns(), " · ") + "[::-]")
	case len(c) == 0 && hasArg && name == "app":
		o.hint.SetText("[::d]no VM's app matches[::-]")
	case len(c) == 0 && text != "":
		o.hint.SetText("[::d]no such command[::-]")
	case len(c) == 0:
		o.hint.SetText("")
	default:
		shown := c[:min(len(c), 6)]
		more := ""
		if len(c) > len(shown) {
			more = fmt.Sprintf(" +%d", len(c)-len(shown))
		}
		o.hint.SetText("[::d]Tab →[::-] " + style.Escape(strings.Join(shown, " · ")) + "[::d]" + more + "[::-]")
	}
}

// commandDone runs the line on Enter and keeps it in the history.
func (o *overlays) commandDone(key tcell.Key) {
	line := strings.TrimSpace(o.prompt.GetText())
	o.asking, o.command = false, false
	o.hint.SetText("")
	o.sh.relayout()
	if key != tcell.KeyEnter || line == "" {
		return
	}
	if n := len(o.lines); n == 0 || o.lines[n-1] != line {
		if n >= cmdHistoryLen {
			o.lines = append(o.lines[:0], o.lines[1:]...)
		}
		o.lines = append(o.lines, line)
	}
	o.sh.runCommand(line)
}
