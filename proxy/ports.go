package proxy

import (
	"hash/fnv"
	"strconv"
	"strings"
	"time"
)

// Stable debugger ports. A VM's port is decided by what it is, not by
// when it was found, so the same VM gets the same port from run to run
// (an IDE's saved "attach to port" configuration keeps working):
//
//   - a local VM on port LocalFirst+i (the scan range's first port, 8000 by
//     default) gets BasePort+i: 8000 → 8600, 8001 → 8601, …;
//   - a device VM gets BasePort + FNV-1a(serial "/" app) mod PortSpan, so
//     an app keeps its port across restarts and pids;
//   - a port already taken (by another VM whose place collided, or the
//     selected-VM port) moves to the next free one within the span, then
//     to the lowest free port above it.
//
// A device VM whose app name is not known yet waits up to appWait for it
// before it is placed by its key (serial and pid).
const (
	DefaultPortSpan   = 100
	DefaultLocalFirst = 8000
	appWait           = 3 * time.Second
)

// preferredPort is where a VM belongs (0: anywhere, lowest free first) and
// whether it can be placed now: a device VM without its app name waits
// (ready false) until appWait after it was first seen.
func (o *Options) preferredPort(key, source, app string, waited time.Duration) (port int, ready bool) {
	span := o.PortSpan
	if rest, ok := strings.CutPrefix(source, "local:"); ok {
		i := strings.LastIndexByte(rest, ':')
		n, err := strconv.Atoi(rest[i+1:])
		if err == nil && n >= o.LocalFirst && n-o.LocalFirst < span {
			return o.BasePort + n - o.LocalFirst, true
		}
		return 0, true
	}
	name := key
	switch {
	case app != "" && !strings.HasPrefix(app, "<"): // not "<pre-initialized>"
		name = deviceSerial(source) + "/" + app
	case waited < appWait:
		return 0, false
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return o.BasePort + int(h.Sum32()%uint32(span)), true
}

// deviceSerial is the device part of a VM's source ("adb:SERIAL",
// "sim:SERIAL"; the source itself otherwise).
func deviceSerial(source string) string {
	if i := strings.IndexByte(source, ':'); i >= 0 {
		return source[i+1:]
	}
	return source
}

// allocPortLocked returns the free port nearest after pref within the
// span (pref 0: the lowest free port from the base), then the lowest free
// one above the span; 0 when there is none.
func (p *Proxy) allocPortLocked(pref int) int {
	used := map[int]bool{p.opts.SelectedPort: true}
	for _, e := range p.entries {
		used[e.port] = true
	}
	base, span := p.opts.BasePort, p.opts.PortSpan
	if pref >= base && pref < base+span {
		for i := range span {
			if port := base + (pref-base+i)%span; port <= 65535 && !used[port] {
				return port
			}
		}
	}
	for port := base; port <= 65535; port++ {
		if !used[port] {
			return port
		}
	}
	return 0
}
