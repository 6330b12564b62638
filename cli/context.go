package cli

import (
	"context"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"
)

// commandContext is the context a headless, long-running command runs in:
// it ends on SIGINT or SIGTERM, and after --duration when the command has
// that flag and it is set. The returned cancel ends it too.
func commandContext(c *cli.Context) (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
	if dur := c.Duration("duration"); dur > 0 {
		tctx, cancel := context.WithTimeout(ctx, dur)
		return tctx, func() { cancel(); stop() }
	}
	return ctx, stop
}
