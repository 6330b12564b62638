// Package scan finds VMs: Local probes a range of loopback TCP ports for JDWP
// endpoints (plain JVMs, or VMs forwarded by hand), and ADB follows an adb
// server's device list and each device's JDWP pids. Both hand every endpoint
// they find to a Handler, which runs the VM's session for as long as it lives;
// the scanner keeps that endpoint out of its probing until the handler
// returns, and cancels the handler's context when the endpoint goes away or
// the scan stops.
package scan

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/ddmtui/ddmtui/devshell"
)

// Endpoint is a VM's JDWP stream, open but before the JDWP handshake; or,
// for a profileable process without JDWP (track-app), a process on a device
// with no stream at all.
type Endpoint struct {
	Key    string // unique for the VM: "local:8000", "adb:SERIAL:1234"
	Source string // shown to users: "local:8000", "adb:SERIAL"
	PID    int    // from adb; 0 when not known before HELO
	// Conn is the JDWP stream; nil for a process that has none (profileable
	// only: its device shell is all there is).
	Conn net.Conn
	// Process is the process's track-app entry, kept current; nil when the
	// endpoint was not found through track-app.
	Process *Process
	// Shell runs a command on the VM's device (adb shell) and returns its
	// output; nil for VMs that are not on an adb device.
	Shell func(ctx context.Context, cmd string) ([]byte, error)
	// Exec runs a command through the device's exec: service (raw bytes,
	// no pty); nil for VMs not on an adb device. Devices before Android 5
	// refuse it.
	Exec func(ctx context.Context, cmd string) ([]byte, error)
	// Files reads the VM's device files through adb's sync: service; nil
	// for VMs not on an adb device.
	Files DeviceFiles
}

// DeviceFiles reads files on a device (adb sync: STAT and RECV): the
// device shell's (devshell.Files).
type DeviceFiles = devshell.Files

// Handler runs a session on an endpoint and returns when it ends. It owns
// ep.Conn and must close it; an endpoint without Conn lasts until ctx ends. A returned error that wraps ErrNotVM makes the
// scanner leave that endpoint alone for a while; one that wraps ErrBusy makes
// it try again soon.
type Handler func(ctx context.Context, ep Endpoint) error

// ErrNotVM marks an endpoint that is not a JDWP VM (bad handshake).
var ErrNotVM = errors.New("scan: endpoint is not a JDWP VM")

// ErrBusy marks an endpoint that closed the connection before answering
// the handshake: what a VM does while another monitor or debugger holds its
// one JDWP connection (the previous run's, still closing). The local scanner
// probes such a port again within milliseconds, not at its next interval.
var ErrBusy = errors.New("scan: endpoint closed the connection before the handshake (a VM already connected?)")

// PortRange is an inclusive range of TCP ports.
type PortRange struct{ First, Last int }

// DefaultLocalRange is the range DDMS scanned on a workstation.
var DefaultLocalRange = PortRange{8000, 8040}

// ParseRange parses "8000-8040" or "8000"; "off" gives ok=false.
func ParseRange(s string) (r PortRange, ok bool, err error) {
	s = strings.TrimSpace(s)
	if s == "off" || s == "none" {
		return r, false, nil
	}
	lo, hi, found := strings.Cut(s, "-")
	if !found {
		hi = lo
	}
	a, err1 := strconv.Atoi(strings.TrimSpace(lo))
	b, err2 := strconv.Atoi(strings.TrimSpace(hi))
	if err1 != nil || err2 != nil || a < 1 || b > 65535 || a > b {
		return r, false, fmt.Errorf("scan: bad port range %q (want FIRST-LAST within 1-65535, or off)", s)
	}
	if b-a > 4096 {
		return r, false, fmt.Errorf("scan: port range %q spans more than 4096 ports", s)
	}
	return PortRange{a, b}, true, nil
}

func (r PortRange) String() string {
	if r.First == r.Last {
		return strconv.Itoa(r.First)
	}
	return fmt.Sprintf("%d-%d", r.First, r.Last)
}
