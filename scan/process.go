package scan

import (
	"reflect"
	"sync"

	"github.com/ddmtui/ddmtui/adb"
)

// Process is what the device's track-app says about an endpoint's process
// (spec/adb-track-app.md), kept current while the endpoint lives: on
// Android 15 a process names itself and ends its wait for a debugger after
// it was first listed. Safe for concurrent use.
type Process struct {
	mu      sync.Mutex
	app     adb.AppProcess
	changed chan struct{}
}

// NewProcess returns a Process holding app.
func NewProcess(app adb.AppProcess) *Process {
	return &Process{app: app, changed: make(chan struct{})}
}

// Get returns the process as last listed and a channel closed at the next
// change.
func (p *Process) Get() (adb.AppProcess, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.app, p.changed
}

// Set replaces the process's entry; waiters are woken when it differs.
func (p *Process) Set(app adb.AppProcess) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if reflect.DeepEqual(p.app, app) {
		return
	}
	p.app = app
	close(p.changed)
	p.changed = make(chan struct{})
}
