package cli

import (
	"context"
	"errors"
	"fmt"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/urfave/cli/v2"
)

// withVM runs discovery until the VM with pid is found (within wait) and
// calls fn with its session; discovery stops when fn returns.
func withVM(c *cli.Context, pid int, wait time.Duration, fn func(ctx context.Context, s *monitor.Session, vm monitor.VM) error) error {
	return withVMStore(c, pid, wait, func(ctx context.Context, s *monitor.Session, vm monitor.VM, _ *monitor.Store) error {
		return fn(ctx, s, vm)
	})
}

// busyEndpoints says which endpoints that may be the VM with pid were
// busy, another monitor or debugger holding their one JDWP connection: an
// adb endpoint of that pid, or a local port (whose pid a busy VM never
// told); "" when none was.
func busyEndpoints(found []monitor.Found, pid int) string {
	var keys []string
	for _, f := range found {
		if f.Busy && (f.VM.PID == pid || f.VM.PID == 0) {
			keys = append(keys, safetext.Terminal(f.VM.Key))
		}
	}
	if len(keys) == 0 {
		return ""
	}
	return monitor.BusyReason + " (" + strings.Join(keys, ", ") + ")"
}

// withVMStore is withVM that also hands fn the model the session writes.
func withVMStore(c *cli.Context, pid int, wait time.Duration, fn func(ctx context.Context, s *monitor.Session, vm monitor.VM, store *monitor.Store) error) error {
	return withProcess(c, pid, wait, false, fn)
}

// withVMOrProcess is withVM that also hands fn a profileable process
// without JDWP (whose session answers only what the device shell gives,
// e.g. a heap graph).
func withVMOrProcess(c *cli.Context, pid int, wait time.Duration, fn func(ctx context.Context, s *monitor.Session, vm monitor.VM) error) error {
	return withProcess(c, pid, wait, true, func(ctx context.Context, s *monitor.Session, vm monitor.VM, _ *monitor.Store) error {
		return fn(ctx, s, vm)
	})
}

// withProcess is withVMStore; with noJDWP it also hands fn a profileable
// process without JDWP (what needs only its device: sampling its CPU, a
// heap graph).
func withProcess(c *cli.Context, pid int, wait time.Duration, noJDWP bool, fn func(ctx context.Context, s *monitor.Session, vm monitor.VM, store *monitor.Store) error) error {
	if pid <= 0 {
		return fmt.Errorf("--pid is required")
	}
	d, err := discoveryFromFlags(c)
	if err != nil {
		return err
	}
	for _, r := range d.ADB {
		if a, ok := r.(*scan.ADB); ok {
			a.PID = pid // connect to that VM only
		}
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
				if _, err := s.Link().IsDDM(ctx); err != nil && !(noJDWP && errors.Is(err, monitor.ErrNoJDWP)) {
					return err
				}
				vm, _ = store.VM(vm.Key)
				return fn(ctx, s, vm, store)
			}
		}
		if time.Now().After(deadline) {
			if busy := busyEndpoints(engine.View(), pid); busy != "" {
				return fmt.Errorf("pid %d: %s", pid, busy)
			}
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
