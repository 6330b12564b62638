package adb

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Device states as the server names them (spec/adb.md §1.3). A USB device
// without permission has a longer "no permissions (…)" text as its state.
const (
	StateDevice       = "device"
	StateOffline      = "offline"
	StateUnauthorized = "unauthorized"
	StateAuthorizing  = "authorizing"
	StateConnecting   = "connecting"
	StateBootloader   = "bootloader"
	StateRecovery     = "recovery"
	StateSideload     = "sideload"
	StateRescue       = "rescue"
	StateHost         = "host"
)

// Device is one line of a device list.
type Device struct {
	Serial string // e.g. "emulator-5554", "127.0.0.1:5556"
	State  string // one of the State constants, or another server text
	// Properties holds the key:value words of the long format (devices-l):
	// "product", "model", "device", "transport_id", and "usb" for a USB
	// device's path. Nil for the short format.
	Properties map[string]string
}

// Online reports whether the device can run services (state "device").
func (d Device) Online() bool { return d.State == StateDevice }

// ParseDevices parses the payload of host:devices, host:devices-l or one
// host:track-devices[-l] message (spec/adb.md §1.3). Lines in the short
// format are "serial\tstate"; lines in the long format are the serial, spaces,
// the state, then key:value words. Both may be mixed. An empty payload is an
// empty list.
func ParseDevices(b []byte) ([]Device, error) {
	var out []Device
	for lineNo := 1; len(b) > 0; lineNo++ {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		d, err := parseDeviceLine(string(line))
		if err != nil {
			return nil, fmt.Errorf("%w: device list line %d: %v", ErrProtocol, lineNo, err)
		}
		out = append(out, d)
	}
	return out, nil
}

func parseDeviceLine(line string) (Device, error) {
	if serial, state, ok := strings.Cut(line, "\t"); ok {
		if serial == "" || state == "" {
			return Device{}, fmt.Errorf("empty serial or state in %q", line)
		}
		return Device{Serial: serial, State: state}, nil
	}
	words := strings.Fields(line)
	if len(words) < 2 {
		return Device{}, fmt.Errorf("no state in %q", line)
	}
	d := Device{Serial: words[0], Properties: map[string]string{}}
	// The state runs up to the first key:value word; it is one word except
	// for "no permissions (…); see [url]".
	i := 1
	for i < len(words) && (i == 1 || !isPropertyWord(words[i])) {
		i++
	}
	d.State = strings.Join(words[1:i], " ")
	for _, w := range words[i:] {
		k, v, _ := strings.Cut(w, ":")
		d.Properties[k] = v
	}
	return d, nil
}

// isPropertyWord reports whether w looks like "key:value" with a lower-case
// identifier as key (product:, model:, device:, transport_id:, usb:).
func isPropertyWord(w string) bool {
	k, _, ok := strings.Cut(w, ":")
	if !ok || k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c == '_' || c >= '0' && c <= '9' && i > 0) {
			return false
		}
	}
	return true
}

// maxPID is the largest pid a device can report (pid_t is a signed 32-bit
// integer on Android).
const maxPID = 1<<31 - 1

// ParsePIDs parses the payload of one track-jdwp message, or the raw answer
// of the jdwp service: one decimal pid per line, each line ending in '\n'
// (spec/adb.md §1.2). The result is sorted with duplicates removed.
func ParsePIDs(b []byte) ([]int, error) {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return nil, fmt.Errorf("%w: pid list does not end in a newline", ErrProtocol)
	}
	var pids []int
	for lineNo := 1; len(b) > 0; lineNo++ {
		i := bytes.IndexByte(b, '\n')
		line := string(b[:i])
		b = b[i+1:]
		pid, err := strconv.Atoi(line)
		if err != nil || pid <= 0 || pid > maxPID || line[0] == '+' || line[0] == '0' {
			return nil, fmt.Errorf("%w: pid list line %d: %q is not a pid", ErrProtocol, lineNo, line)
		}
		pids = append(pids, pid)
	}
	slices.Sort(pids)
	return slices.Compact(pids), nil
}
