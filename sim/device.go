package sim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
)

// Device is a set of simulated VMs, as on one Android device. It can serve
// each VM on its own loopback port (like a JVM started with -agentlib:jdwp, or
// a VM forwarded with `adb forward`) and hands out in-memory JDWP streams to
// the simulated adbd (jdwp:<pid>).
type Device struct {
	serial string

	mu        sync.Mutex
	vms       map[int]*VM
	listeners map[int]net.Listener
	changed   chan struct{}
	wg        sync.WaitGroup
	closed    bool
	anr       []byte      // SIGQUIT dumps, one block per signal (ANRPath)
	dfiles    deviceFiles // files device commands wrote (devicefiles.go)
	api       int         // ro.build.version.sdk, 0: not set (api.go)
	model     string      // ro.product.model, "": the default
	log       *deviceLog  // what logd holds (logcat.go)
}

// NewDevice returns an empty device.
func NewDevice(serial string) *Device {
	return &Device{serial: serial, vms: map[int]*VM{}, listeners: map[int]net.Listener{}, changed: make(chan struct{})}
}

// Serial is the device's serial number.
func (d *Device) Serial() string { return d.serial }

// Properties are the device's system properties, for the adb banner.
func (d *Device) Properties() map[string]string {
	p := map[string]string{
		"ro.product.name":   "ddmtui_sim",
		"ro.product.model":  "ddmtui simulated device",
		"ro.product.device": "ddmtui_sim",
	}
	d.mu.Lock()
	if d.model != "" {
		p["ro.product.model"] = d.model
	}
	d.mu.Unlock()
	if api := d.API(); api > 0 {
		p["ro.build.version.sdk"] = fmt.Sprint(api)
	}
	return p
}

// Add puts vm on the device. A VM that exits (EXIT chunk) is removed.
func (d *Device) Add(vm *VM) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.vms[vm.PID()] = vm
	vm.mu.Lock()
	vm.onExit = func() { d.Remove(vm.PID()) }
	vm.mu.Unlock()
	d.notifyLocked()
}

// Remove takes the VM with pid off the device and closes its listener, as if
// the process died.
func (d *Device) Remove(pid int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.vms[pid]; !ok {
		return
	}
	delete(d.vms, pid)
	if ln, ok := d.listeners[pid]; ok {
		ln.Close()
		delete(d.listeners, pid)
	}
	d.notifyLocked()
}

func (d *Device) notifyLocked() {
	close(d.changed)
	d.changed = make(chan struct{})
}

// VM returns the VM with pid, or nil.
func (d *Device) VM(pid int) *VM {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.vms[pid]
}

// VMs lists the device's VMs by pid.
func (d *Device) VMs() []*VM {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make([]*VM, 0, len(d.vms))
	for _, vm := range d.vms {
		out = append(out, vm)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID() < out[j].PID() })
	return out
}

// JDWPPids returns the pids of the VMs with JDWP and a channel closed at the
// next change (as adbd's track-jdwp needs).
func (d *Device) JDWPPids() ([]int, <-chan struct{}) {
	d.mu.Lock()
	defer d.mu.Unlock()
	pids := make([]int, 0, len(d.vms))
	for pid, vm := range d.vms {
		if !vm.spec.Release { // a release build has no JDWP
			pids = append(pids, pid)
		}
	}
	sort.Ints(pids)
	return pids, d.changed
}

// OpenJDWP returns an in-memory stream to the VM with pid; the VM side
// expects the JDWP handshake. The stream ends when either side closes it.
func (d *Device) OpenJDWP(pid int) (net.Conn, error) {
	d.mu.Lock()
	vm := d.vms[pid]
	closed := d.closed
	if vm != nil && vm.spec.Release { // no JDWP: refused as adbd refuses a pid it does not list
		vm = nil
	}
	if vm != nil && !closed {
		d.wg.Add(1)
	}
	d.mu.Unlock()
	if closed {
		return nil, errors.New("sim: device closed")
	}
	if vm == nil {
		return nil, fmt.Errorf("sim: no VM with pid %d", pid)
	}
	client, server := net.Pipe()
	go func() {
		defer d.wg.Done()
		_ = vm.ServeConn(server)
	}()
	return client, nil
}

// ServeLocal listens for each VM with JDWP on host:port, port counting up
// from base in pid order, and returns the addresses. Connections are served
// until the device is closed or the VM removed. A release build (no JDWP)
// gets no port.
func (d *Device) ServeLocal(host string, base int) ([]string, error) {
	var addrs []string
	i := 0
	for _, vm := range d.VMs() {
		if vm.spec.Release {
			continue
		}
		addr, err := d.ServeVM(vm, net.JoinHostPort(host, fmt.Sprint(base+i)))
		i++
		if err != nil {
			return addrs, err
		}
		addrs = append(addrs, addr)
	}
	return addrs, nil
}

// ServeVM listens for vm on addr ("127.0.0.1:0" picks a port) and returns
// the address it got.
func (d *Device) ServeVM(vm *VM, addr string) (string, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("sim: VM pid %d: %w", vm.PID(), err)
	}
	return d.ServeVMOn(vm, ln)
}

// ServeVMOn serves vm on a listener opened earlier (the demo listens on
// every port at once and builds the VMs after: connections made meanwhile
// wait in the listener's backlog). The device owns ln from then on; on
// error ln is closed.
func (d *Device) ServeVMOn(vm *VM, ln net.Listener) (string, error) {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		ln.Close()
		return "", errors.New("sim: device closed")
	}
	d.listeners[vm.PID()] = ln
	d.wg.Add(1)
	d.mu.Unlock()
	go func() {
		defer d.wg.Done()
		var conns sync.WaitGroup
		defer conns.Wait()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			go func() {
				defer conns.Done()
				stop := make(chan struct{})
				defer close(stop)
				go func() {
					// A removed VM's open connection dies with it.
					select {
					case <-stop:
					case <-d.gone(vm.PID(), stop):
						nc.Close()
					}
				}()
				_ = vm.ServeConn(nc)
			}()
		}
	}()
	return ln.Addr().String(), nil
}

// gone returns a channel closed when pid leaves the device or the device
// closes. Its watcher ends when stop closes.
func (d *Device) gone(pid int, stop <-chan struct{}) <-chan struct{} {
	ch := make(chan struct{})
	go func() {
		for {
			d.mu.Lock()
			_, present := d.vms[pid]
			changed, closed := d.changed, d.closed
			d.mu.Unlock()
			if !present || closed {
				close(ch)
				return
			}
			select {
			case <-changed:
			case <-stop:
				return
			}
		}
	}()
	return ch
}

// Run steps every VM each interval until ctx ends.
func (d *Device) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for _, vm := range d.VMs() {
				vm.Step()
			}
			d.logStep(time.Now())
		}
	}
}

// Close stops every listener, ends every connection, and waits for the
// serving goroutines.
func (d *Device) Close() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return nil
	}
	d.closed = true
	for pid, ln := range d.listeners {
		ln.Close()
		delete(d.listeners, pid)
	}
	for _, vm := range d.vms {
		vm.disconnect()
	}
	d.notifyLocked()
	d.mu.Unlock()
	d.wg.Wait()
	return nil
}

// disconnect drops the VM's current monitor connection, if any.
func (vm *VM) disconnect() {
	vm.mu.Lock()
	var jc *jdwp.Conn
	if c := vm.conn; c != nil {
		jc = c.jc
	}
	vm.mu.Unlock()
	if jc != nil {
		jc.Close()
	}
}
