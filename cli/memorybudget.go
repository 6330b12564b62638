package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/internal/memlimit"
	"github.com/ddmtui/ddmtui/internal/safetext"
)

// memoryBudgetFlag is --memory-budget (config limits.memory_budget): the
// process-wide budget of what peers and files can make ddmtui hold
// (internal/budget, docs/RELIABILITY.md). Every command takes it.
func memoryBudgetFlag() cli.Flag {
	return &cli.StringFlag{Name: "memory-budget", Value: "256M",
		Usage: "most memory that peers and files can make ddmtui hold at once: packets, heap maps, device logs, view trees, recordings, track-app lists, decoded pictures; when spent the cheapest goes first; watching commands keep the collector's soft limit at 7/8 of it (e.g. 256M, 1G; 0: no limit)"}
}

func withMemoryBudgetFlag(cmds []*cli.Command) {
	for _, cmd := range cmds {
		if !hasFlag(cmd.Flags, "memory-budget") {
			cmd.Flags = append(cmd.Flags, memoryBudgetFlag())
		}
	}
}

// watchMemory sets, for a command that watches VMs until it is stopped
// (the dashboard, serve, record), the collector's soft memory limit from
// the memory budget (internal/memlimit): what peers make ddmtui hold is
// charged to the budget, and the limit keeps the garbage they leave
// between collections from taking the process past it. The returned
// function restores the limit.
func watchMemory() (restore func()) {
	return memlimit.SetBase(memlimit.ForBudget(budget.Process.Limit()))
}

// memoryDropsKey keeps, in the application's metadata, the budget's drops
// when the run began (memoryDropsNote says those of the run).
const memoryDropsKey = "memory-drops"

// applyMemoryBudget sets the process-wide budget from --memory-budget.
func applyMemoryBudget(c *cli.Context) error {
	if c.App.Metadata == nil {
		c.App.Metadata = map[string]any{}
	}
	c.App.Metadata[memoryDropsKey] = budget.Process.Stats().Drops
	s := c.String("memory-budget")
	if s == "" {
		return nil
	}
	n, err := parseSize(s)
	if err != nil || n < 0 {
		return fmt.Errorf("--memory-budget %q: want a size such as 256M or 1G (0: no limit)", s)
	}
	if n > 0 && n < 16<<20 {
		return fmt.Errorf("--memory-budget %s: at least 16M (a VM's ordinary packets need a few MiB)", s)
	}
	budget.Process.SetLimit(n)
	return nil
}

// memoryDropsNote says on stderr, at the end of a run in which the memory
// budget let things go to make room, how many and the last one: a
// headless command's output (JSON) stays what it was, and the user still
// learns that something was dropped (each drop has its line in the --log
// file).
func memoryDropsNote(c *cli.Context) {
	before, ok := c.App.Metadata[memoryDropsKey].(int64)
	if !ok {
		return // the budget was not set up: not a run
	}
	st := budget.Process.Stats()
	n := st.Drops - before
	if n <= 0 {
		return
	}
	what := "thing"
	if n > 1 {
		what = "things"
	}
	fmt.Fprintf(c.App.ErrWriter, "ddmtui: the memory budget (%d MiB, peak %d MiB) let %d %s go to make room; the last: %s\n",
		st.Limit>>20, st.Peak>>20, n, what, safetext.Terminal(st.LastDrop))
}

// afterRun is the application's After hook: the memory budget's note,
// then the run's log file closed.
func afterRun(c *cli.Context) error {
	memoryDropsNote(c)
	return closeRunLog(c)
}
