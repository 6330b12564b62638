package devshell

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The commands whose output the monitor's pollers parse (android/procfs,
// android/meminfo) and the per-device facts read once.

// ProcStat reads /proc/PID/task/*/stat: one line per thread of pid.
func ProcStat(ctx context.Context, sh Shell, pid int) ([]byte, error) {
	return sh.Run(ctx, "cat /proc/"+strconv.Itoa(pid)+"/task/*/stat")
}

// Meminfo reads `dumpsys meminfo PID`.
func Meminfo(ctx context.Context, sh Shell, pid int) ([]byte, error) {
	return sh.Run(ctx, "dumpsys meminfo "+strconv.Itoa(pid))
}

// Cmdline reads /proc/PID/cmdline.
func Cmdline(ctx context.Context, sh Shell, pid int) ([]byte, error) {
	return sh.Run(ctx, "cat /proc/"+strconv.Itoa(pid)+"/cmdline")
}

// MaxProcName bounds a process name read from the device.
const MaxProcName = 256

// ParseCmdline takes the program name from /proc/PID/cmdline: up to the
// first NUL, at most MaxProcName bytes; false when it is empty or an error
// message of cat.
func ParseCmdline(b []byte) (string, bool) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	} else if bytes.HasPrefix(b, []byte("cat:")) || bytes.Contains(b, []byte("No such file")) {
		return "", false
	}
	name := strings.TrimSpace(string(b))
	if len(name) > MaxProcName {
		name = name[:MaxProcName]
	}
	return name, name != ""
}

// Cache remembers per device what is read once: the API level (getprop
// ro.build.version.sdk) and the model. The monitor's engine shares one
// across sessions, so a device with twenty VMs is asked once.
type Cache struct {
	mu      sync.Mutex
	entries map[string]*cacheEntry
}

type cacheEntry struct {
	done  chan struct{}
	api   int
	model string // "" when the device did not say
	err   error
}

// maxModelLen bounds the model name kept from getprop.
const maxModelLen = 128

// NewCache returns an empty cache.
func NewCache() *Cache { return &Cache{entries: map[string]*cacheEntry{}} }

// API returns the device's API level, reading it with run the first time
// (concurrent callers wait for that one reading, or for ctx). A failed
// reading is remembered for a minute, then tried again.
func (c *Cache) API(ctx context.Context, device string, run func(ctx context.Context, cmd string) ([]byte, error)) (int, error) {
	api, _, err := c.Info(ctx, device, run)
	return api, err
}

// Info returns the device's API level and model (ro.product.model), read
// in the same pass, once per device, as API does. A model that cannot be
// read is "" and no error: the API level is what sessions depend on.
func (c *Cache) Info(ctx context.Context, device string, run func(ctx context.Context, cmd string) ([]byte, error)) (api int, model string, err error) {
	c.mu.Lock()
	e, ok := c.entries[device]
	if !ok {
		e = &cacheEntry{done: make(chan struct{})}
		c.entries[device] = e
		c.mu.Unlock()
		out, err := run(ctx, "getprop ro.build.version.sdk")
		if err == nil {
			e.api, err = strconv.Atoi(strings.TrimSpace(string(out)))
			if err == nil && (e.api < 1 || e.api > 1000) {
				err = errors.New("implausible API level " + strconv.Itoa(e.api))
			}
		}
		if err == nil {
			if out, merr := run(ctx, "getprop ro.product.model"); merr == nil {
				m := strings.TrimSpace(string(out))
				if len(m) > maxModelLen {
					m = m[:maxModelLen]
				}
				e.model = m
			}
		}
		e.err = err
		close(e.done)
		if err != nil {
			time.AfterFunc(time.Minute, func() {
				c.mu.Lock()
				if c.entries[device] == e {
					delete(c.entries, device)
				}
				c.mu.Unlock()
			})
		}
		return e.api, e.model, e.err
	}
	c.mu.Unlock()
	select {
	case <-e.done:
		return e.api, e.model, e.err
	case <-ctx.Done():
		return 0, "", ctx.Err()
	}
}
