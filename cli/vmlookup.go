package cli

import (
	"context"
	"fmt"
	"os/signal"
	"syscall"
	"time"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/urfave/cli/v2"
)

// withVM runs discovery until the VM with pid is found (within wait) and
// calls fn with its session; discovery stops when fn returns.
func withVM(c *cli.Context, pid int, wait time.Duration, fn func(ctx context.Context, s *monitor.Session, vm monitor.VM) error) error {
	return withVMStore(c, pid, wait, func(ctx context.Context, s *monitor.Session, vm monitor.VM, _ *monitor.Store) error {
		return fn(ctx, s, vm)
	})
}

// withVMStore is withVM that also hands fn the model the session writes.
func withVMStore(c *cli.Context, pid int, wait time.Duration, fn func(ctx context.Context, s *monitor.Session, vm monitor.VM, store *monitor.Store) error) error {
	return lookupVM(c, pid, wait, false, fn)
}

// withVMOrProcess is withVM that also hands fn a profileable process
// without JDWP (whose session answers only what the device shell gives,
// e.g. a heap graph).
func withVMOrProcess(c *cli.Context, pid int, wait time.Duration, fn func(ctx context.Context, s *monitor.Session, vm monitor.VM) error) error {
	return lookupVM(c, pid, wait, true, func(ctx context.Context, s *monitor.Session, vm monitor.VM, _ *monitor.Store) error {
		return fn(ctx, s, vm)
	})
}

func lookupVM(c *cli.Context, pid int, wait time.Duration, processes bool, fn func(ctx context.Context, s *monitor.Session, vm monitor.VM, store *monitor.Store) error) error {
	if pid <= 0 {
		return fmt.Errorf("--pid is required")
	}
	d, err := discoveryFromFlags(c)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(c.Context, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	store := monitor.NewStore(monitor.NewBus())
	engine := newEngine(c, store, sessionOptions(c))
	runErr := make(chan error, 1)
	go func() { runErr <- engine.Run(ctx, d) }()
	defer func() { cancel(); <-runErr }()

	deadline := time.Now().Add(wait)
	serial, warned := c.String("serial"), map[string]bool{}
	for {
		if vm, ok := pickVM(store.VMs(), pid, serial, c.App.ErrWriter, warned); ok {
			if s := engine.Session(vm.Key); s != nil {
				if _, err := s.Link().IsDDM(ctx); err != nil && (!processes || s.HasJDWP()) {
					return err
				}
				vm, _ = store.VM(vm.Key)
				return fn(ctx, s, vm, store)
			}
		}
		if time.Now().After(deadline) {
			if serial != "" {
				return fmt.Errorf("no VM with pid %d on device %s found within %v", pid, safetext.Terminal(serial), wait)
			}
			return fmt.Errorf("no VM with pid %d found within %v", pid, wait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-runErr:
			runErr <- err
			if err != nil {
				return err
			}
			return fmt.Errorf("discovery ended before pid %d was found", pid)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
