package cli

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/internal/budget"
)

// memoryBudgetFlag is --memory-budget (config limits.memory_budget): the
// process-wide budget of what peers and files can make ddmtui hold
// (internal/budget, docs/RELIABILITY.md). Every command takes it.
func memoryBudgetFlag() cli.Flag {
	return &cli.StringFlag{Name: "memory-budget", Value: "256M",
		Usage: "most memory that peers and files can make ddmtui hold at once: packets, heap maps, device logs, view trees, recordings, track-app lists, decoded pictures; when spent the cheapest goes first (e.g. 256M, 1G; 0: no limit)"}
}

func withMemoryBudgetFlag(cmds []*cli.Command) {
	for _, cmd := range cmds {
		if !hasFlag(cmd.Flags, "memory-budget") {
			cmd.Flags = append(cmd.Flags, memoryBudgetFlag())
		}
	}
}

// applyMemoryBudget sets the process-wide budget from --memory-budget.
func applyMemoryBudget(c *cli.Context) error {
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
