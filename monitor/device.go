package monitor

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/record"
	"github.com/ddmtui/ddmtui/scan"
)

// sessionSources is a session's state for the sources beside DDM: the
// device shell (exec: preferred, shell: as fallback), the device's API
// level, the capability inputs, the CPU tracker and which source feeds the
// thread table. Its fields are guarded by Session.mu unless noted.
type sessionSources struct {
	device    string       // the device's key in deviceCache
	devices   *DeviceCache // set by the engine; nil: per session
	noExec    bool         // exec: was refused once: use shell:
	capsMu    sync.Mutex   // orders setCaps calls (not guarded by Session.mu)
	caps      capInput
	cpu       cpuTracker
	procOn    bool // the /proc poller runs (THST unanswered)
	procTable map[uint64]*Thread
	mem       Memory // the dumpsys readings so far
}

// DeviceCache remembers per device what is read once: the API level
// (getprop ro.build.version.sdk). The Engine shares one across sessions,
// so a device with twenty VMs is asked once.
type DeviceCache struct {
	mu      sync.Mutex
	entries map[string]*deviceEntry
}

type deviceEntry struct {
	done  chan struct{}
	api   int
	model string // "" when the device did not say
	err   error
}

// maxModelLen bounds the model name kept from getprop.
const maxModelLen = 128

// NewDeviceCache returns an empty cache.
func NewDeviceCache() *DeviceCache { return &DeviceCache{entries: map[string]*deviceEntry{}} }

// API returns the device's API level, reading it with run the first time
// (concurrent callers wait for that one reading, or for ctx). A failed
// reading is remembered for a minute, then tried again.
func (c *DeviceCache) API(ctx context.Context, device string, run func(ctx context.Context, cmd string) ([]byte, error)) (int, error) {
	api, _, err := c.Info(ctx, device, run)
	return api, err
}

// Info returns the device's API level and model (ro.product.model), read
// in the same pass, once per device, as API does. A model that cannot be
// read is "" and no error: the API level is what sessions depend on.
func (c *DeviceCache) Info(ctx context.Context, device string, run func(ctx context.Context, cmd string) ([]byte, error)) (api int, model string, err error) {
	c.mu.Lock()
	e, ok := c.entries[device]
	if !ok {
		e = &deviceEntry{done: make(chan struct{})}
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

// deviceKey is the key of an endpoint's device: its key without the pid
// ("adb:SERVER/SERIAL"), or "" for VMs not on a device.
func deviceKey(ep scan.Endpoint) string {
	if ep.Shell == nil {
		return ""
	}
	if i := strings.LastIndexByte(ep.Key, ':'); i > 0 {
		return ep.Key[:i]
	}
	return ep.Key
}

// deviceRun runs cmd on the VM's device through exec: (no PTY, so no CR
// LF and no merged stderr surprises) when the endpoint offers it, else
// through shell:. A device that refuses the exec: service (Android before
// 5: the adb server answers FAIL, an *adb.Error) is asked with shell: from
// then on; any other error (the command's own, a dropped connection) is
// returned as it is.
func (s *Session) deviceRun(ctx context.Context, cmd string) ([]byte, error) {
	if s.shell == nil {
		return nil, ErrNoDevice
	}
	s.mu.Lock()
	exec := s.exec
	if s.src.noExec {
		exec = nil
	}
	s.mu.Unlock()
	if exec != nil {
		out, err := exec(ctx, cmd)
		var refused *adb.Error
		if err == nil || ctx.Err() != nil || !errors.As(err, &refused) {
			return out, err
		}
		s.log.Info("exec: refused; using shell:", "error", err)
		s.mu.Lock()
		s.src.noExec = true
		s.mu.Unlock()
	}
	return s.shell(ctx, cmd)
}

// readAPI reads the device's API level once (per device, through the
// cache) and records it on the VM.
func (s *Session) readAPI(ctx context.Context) {
	if s.shell == nil {
		return
	}
	cache := s.src.devices
	if cache == nil {
		cache = NewDeviceCache()
	}
	rctx, cancel := context.WithTimeout(ctx, s.opts.RequestTimeout)
	api, model, err := cache.Info(rctx, s.src.device, s.deviceRun)
	cancel()
	if err != nil {
		s.log.Info("API level unknown", "error", err)
		return
	}
	st := stateRecord{API: &api}
	if model != "" {
		st.Model = &model
	}
	s.rec.json(time.Now(), record.KindState, s.key, st)
	s.applyAPI(api)
	if model != "" {
		s.applyModel(model)
	}
	s.mu.Lock()
	jdwpOnly := s.src.caps.kind == "jdwp"
	s.mu.Unlock()
	if api >= ddmThreadsGoneAPI && !jdwpOnly {
		s.startProcThreads(ctx) // its THST will go unanswered: /proc at once
	}
}

func (s *Session) applyModel(model string) {
	s.store.updateExisting(s.key, func(vm *VM) { vm.Model = model })
}

func (s *Session) applyAPI(api int) {
	s.store.updateExisting(s.key, func(vm *VM) { vm.API = api })
	s.setCaps(func(in *capInput) { in.api = api })
}

// currentPID is the VM's pid as the store knows it (adb's, or HELO's).
func (s *Session) currentPID() int {
	if vm, ok := s.store.VM(s.key); ok && vm.PID > 0 {
		return vm.PID
	}
	return s.pid
}

// setCaps changes the capability inputs and, if the decision changed,
// stores it on the VM.
func (s *Session) setCaps(fn func(*capInput)) {
	// Decisions reach the store in the order their inputs changed.
	s.src.capsMu.Lock()
	defer s.src.capsMu.Unlock()
	s.mu.Lock()
	fn(&s.src.caps)
	in := s.src.caps
	in.features = append([]string(nil), in.features...)
	s.mu.Unlock()
	s.rec.json(time.Now(), record.KindState, s.key, stateRecord{Caps: capsToState(in)})
	caps := decideCapabilities(in)
	s.store.updateExisting(s.key, func(vm *VM) {
		if !capsEqual(vm.Capabilities, caps) {
			vm.Capabilities = caps
		}
	})
}

func capsEqual(a, b Capabilities) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
