// Package proxy lets debuggers (jdb, IntelliJ, Android Studio) attach to VMs
// that ddmtui monitors. A VM accepts a single JDWP connection and the monitor
// holds it, so, as ddmlib does, the proxy listens on a debugger port per VM
// (8600 upward) and on the "selected VM" port (8700), answers a debugger's
// JDWP handshake itself, forwards its packets over the VM's existing
// connection and returns the VM's replies and events, while DDM traffic goes
// on (spec/jdwp.md §4). When a debugger leaves, the proxy clears the event
// requests it set and resumes what it suspended, and re-opens DDM VMs, since
// only a closed connection tells an Android VM that the debugger is gone.
//
// The proxy hands what it forwards to a jdwpspy.Inspector (package jdwpspy),
// which decodes the debugger's traffic live for the spy view and `ddmtui
// serve`; the proxy itself only builds the observations.
//
// Main types: Proxy (ports, forwarding, cleanup) and its attachments (one
// per debugger connection, with the tracker of what the debugger changed).
package proxy

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/monitor"
)

// Default ports (ddmlib's DdmPreferences).
const (
	DefaultBasePort     = 8600
	DefaultSelectedPort = 8700
)

// ReopenPolicy says which VMs the proxy re-opens after a debugger left.
type ReopenPolicy int

// Reopen policies.
const (
	// ReopenDDM re-opens VMs that speak DDM, as ddmlib does: Dalvik and ART
	// learn that a debugger left only when their JDWP connection closes.
	// Other VMs keep their session; the cleanup undoes the debugger's work.
	ReopenDDM ReopenPolicy = iota
	// ReopenAlways re-opens every VM after a debugger left.
	ReopenAlways
	// ReopenNever keeps every session; only the cleanup runs.
	ReopenNever
)

// Options configure a Proxy. The zero value gives the defaults.
type Options struct {
	// BasePort is the first per-VM debugger port (0: 8600). A VM gets a
	// stable port from there by what it is (ports.go) and keeps it while
	// its session is re-opened.
	BasePort int
	// PortSpan is how many ports from BasePort the stable places take (0:
	// DefaultPortSpan); LocalFirst is the local port that maps to BasePort
	// (0: DefaultLocalFirst, the default scan range's first port).
	PortSpan, LocalFirst int
	// SelectedPort is the port that leads to the selected VM (0: 8700;
	// negative: none).
	SelectedPort int
	// Bind is the address to listen on ("": 127.0.0.1). Anything but a
	// loopback address exposes the VMs to the network.
	Bind string
	// MaxPacketLen bounds a debugger's packets (0: 64 MiB).
	MaxPacketLen int
	// Budget bounds the large packets being received from all debuggers
	// together (nil: four times MaxPacketLen).
	Budget *jdwp.Budget
	// PreData bounds the bytes of VM commands (such as a VM_START event)
	// kept for a debugger that has not connected yet (0: 64 KiB; negative:
	// none).
	PreData int
	// QueueBytes bounds what may wait for a slow debugger before it is
	// disconnected (0: 64 MiB).
	QueueBytes int
	// Grace is how long a port stays open after its VM's session ended, for
	// the VM to come back (0: 10s).
	Grace time.Duration
	// AttachWait is how long a connecting debugger waits for its VM's
	// session (0: 5s).
	AttachWait time.Duration
	// CleanupTimeout bounds the cleanup after a debugger left (0: 5s).
	CleanupTimeout time.Duration
	// Reopen says which VMs are re-opened after a debugger left.
	Reopen ReopenPolicy
	// Spin bounds one busy poll on a debugger's hot path (spin.go; 0:
	// DefaultSpin; negative: never poll). With one CPU, or GOMAXPROCS=1,
	// when the proxy is made, it never polls: the poll would hold up the
	// thread that has to answer it.
	Spin time.Duration
	// Inspector receives the decoded traffic (nil: a new one with
	// jdwpspy.DefaultLogSize records).
	Inspector *jdwpspy.Inspector
	Logger    *slog.Logger

	// cores, set by tests, is the gate a poll asks for a free core (nil:
	// one sampling this machine, cores.go).
	cores *coreGate
}

func (o *Options) fill() {
	if o.Spin == 0 {
		o.Spin = DefaultSpin
	}
	if !multiCore() {
		o.Spin = -1
	}
	if o.BasePort == 0 {
		o.BasePort = DefaultBasePort
	}
	if o.SelectedPort == 0 {
		o.SelectedPort = DefaultSelectedPort
	}
	if o.PortSpan <= 0 {
		o.PortSpan = DefaultPortSpan
	}
	if o.LocalFirst <= 0 {
		o.LocalFirst = DefaultLocalFirst
	}
	if o.Bind == "" {
		o.Bind = "127.0.0.1"
	}
	if o.MaxPacketLen <= 0 {
		o.MaxPacketLen = 64 << 20
	}
	if o.Budget == nil {
		o.Budget = jdwp.NewBudget(4 * int64(o.MaxPacketLen))
	}
	if o.PreData == 0 {
		o.PreData = 64 << 10
	}
	if o.QueueBytes <= 0 {
		o.QueueBytes = 64 << 20
	}
	if o.Grace <= 0 {
		o.Grace = 10 * time.Second
	}
	if o.AttachWait <= 0 {
		o.AttachWait = 5 * time.Second
	}
	if o.CleanupTimeout <= 0 {
		o.CleanupTimeout = 5 * time.Second
	}
	if o.Inspector == nil {
		o.Inspector = jdwpspy.NewInspector(jdwpspy.DefaultLogSize)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
}

// IsLoopback reports whether a bind address only accepts local connections.
func IsLoopback(bind string) bool {
	if bind == "localhost" {
		return true
	}
	ip := net.ParseIP(bind)
	return ip != nil && ip.IsLoopback()
}

// PortStatus describes one listening port.
type PortStatus struct {
	VM        string `json:"key"` // VM key; for the selected port, the selected VM ("" when none)
	Port      int    `json:"port"`
	Selected  bool   `json:"selected"` // the selected-VM port
	Listening bool   `json:"listening"`
	Err       string `json:"error,omitempty"`    // why the port is not listening
	Debugger  string `json:"debugger,omitempty"` // remote address of the attached debugger
	Present   bool   `json:"present"`            // the VM has a running session
}

// Proxy runs the debugger ports of the VMs an Engine monitors.
type Proxy struct {
	engine *monitor.Engine
	opts   Options
	insp   *jdwpspy.Inspector
	log    *slog.Logger

	spins spinCounters // busy polls (spin.go)
	cores *coreGate    // whether a core is free for a poll (cores.go; nil: always)

	// listen and setPassthrough are net.Listen and the session's
	// SetPassthrough; tests replace them to show that neither runs with
	// p.mu held.
	listen         func(network, addr string) (net.Listener, error)
	setPassthrough func(s *monitor.Session, fn func(*jdwp.Packet)) []*jdwp.Packet

	// mu guards the fields below. It is never held across a call into the
	// monitor (engine, store, session) or across net.Listen: the session
	// calls into the proxy (fromVM) on its reader goroutine, and a listen
	// may take its time, while ports, selection and routing must go on.
	mu      sync.Mutex
	entries map[string]*entry
	// firstSeen is when a VM waiting for its app's name (preferredPort)
	// was first seen.
	firstSeen map[string]time.Time
	selected  string
	selLn     net.Listener
	selErr    error
	ctx       context.Context // Run's; nil before Run
	stopping  bool
	changed   chan struct{}
	handlers  sync.WaitGroup // accept loops and debugger connections
	// handshaking holds connections not yet through the JDWP handshake, in
	// arrival order (bounded by maxHandshakes).
	handshaking map[net.Conn]uint64
	hsSeq       uint64
}

// entry is one VM's port and its current session.
type entry struct {
	key     string
	port    int
	ln      net.Listener
	lnErr   error
	session *monitor.Session // nil while the VM is away
	// primed is set once the session's passthrough is in place and what
	// the VM sent before it leads the pre-data; a debugger attaches only
	// then.
	primed    bool
	listening bool // a listen for port runs (without p.mu)
	goneAt    time.Time
	// fresh is true until a debugger attaches to the session: only then
	// are VM commands kept for it (pre-data).
	fresh        bool
	predata      []*jdwp.Packet
	predataBytes int
	dbg          *attachment // from accept until the cleanup is done
	retryAt      time.Time   // when a port that was busy is tried again
}

// portRetry is how often a debugger port that was busy is tried again.
const portRetry = 2 * time.Second

// New returns a proxy for engine's VMs. Nothing listens before Run.
func New(engine *monitor.Engine, opts Options) *Proxy {
	opts.fill()
	return &Proxy{
		engine:         engine,
		opts:           opts,
		insp:           opts.Inspector,
		log:            opts.Logger,
		listen:         net.Listen,
		setPassthrough: func(s *monitor.Session, fn func(*jdwp.Packet)) []*jdwp.Packet { return s.Link().SetPassthrough(fn) },
		entries:        map[string]*entry{},
		firstSeen:      map[string]time.Time{},
		changed:        make(chan struct{}, 1),
		cores:          cmp.Or(opts.cores, newCoreGate()),
	}
}

// Inspector returns the proxy's traffic inspector.
func (p *Proxy) Inspector() *jdwpspy.Inspector { return p.insp }

// Changed receives a value whenever ports, the selection or a debugger
// changed; read Ports then. It never blocks the proxy.
func (p *Proxy) Changed() <-chan struct{} { return p.changed }

func (p *Proxy) notify() {
	select {
	case p.changed <- struct{}{}:
	default:
	}
}

// Select makes the selected-VM port lead to the VM with key ("" for none).
// A debugger already attached stays with its VM.
func (p *Proxy) Select(key string) {
	p.mu.Lock()
	changed := p.selected != key
	p.selected = key
	p.mu.Unlock()
	if changed {
		p.notify()
	}
}

// unattachable says why no debugger can attach to key before anything is
// locked: no VM is selected, or the selected process has no JDWP
// (profileable only). It asks the engine, so p.mu must not be held.
func (p *Proxy) unattachable(key string) string {
	if key == "" {
		return "no VM is selected"
	}
	if s := p.engine.Session(key); s != nil && !s.HasJDWP() {
		return monitor.NoJDWPReason
	}
	return ""
}

// Selected returns the selected VM's key.
func (p *Proxy) Selected() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.selected
}

// Port returns the debugger port of a VM, and whether it is listening.
func (p *Proxy) Port(key string) (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e, ok := p.entries[key]
	if !ok {
		return 0, false
	}
	return e.port, e.ln != nil
}

// Ports lists the per-VM ports by port number, then the selected port.
func (p *Proxy) Ports() []PortStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]PortStatus, 0, len(p.entries)+1)
	for _, e := range p.entries {
		ps := PortStatus{VM: e.key, Port: e.port, Listening: e.ln != nil, Present: e.session != nil}
		if e.lnErr != nil {
			ps.Err = e.lnErr.Error()
		}
		if e.dbg != nil {
			ps.Debugger = e.dbg.remote
		}
		out = append(out, ps)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Port < out[j].Port })
	if p.opts.SelectedPort > 0 {
		ps := PortStatus{VM: p.selected, Port: p.opts.SelectedPort, Selected: true, Listening: p.selLn != nil}
		if p.selErr != nil {
			ps.Err = p.selErr.Error()
		}
		if e, ok := p.entries[p.selected]; ok {
			ps.Present = e.session != nil
			if e.dbg != nil {
				ps.Debugger = e.dbg.remote
			}
		}
		out = append(out, ps)
	}
	return out
}

// ErrRunning is returned by a second call of Run.
var ErrRunning = errors.New("proxy: already running")

// Run follows the engine's VMs, opening a port for each, until ctx ends.
// Then it closes every port, disconnects every debugger after cleaning up
// behind it, and returns when nothing of the proxy runs any more. A port that
// cannot be opened is reported in Ports (and logged); the others work.
func (p *Proxy) Run(ctx context.Context) error {
	p.mu.Lock()
	if p.ctx != nil {
		p.mu.Unlock()
		return ErrRunning
	}
	p.ctx = ctx
	p.mu.Unlock()

	ictx, icancel := context.WithCancel(context.Background())
	idone := make(chan struct{})
	go func() {
		defer close(idone)
		p.insp.Run(ictx)
	}()
	defer func() {
		icancel()
		<-idone
	}()

	sub := p.engine.Store().Bus().Subscribe()
	defer sub.Close()

	var selRetry time.Time
	p.listenSelected()

	p.reconcile()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for running := true; running; {
		select {
		case <-ctx.Done():
			running = false
		case <-sub.Ready():
			sub.Drain()
			p.reconcile()
		case <-tick.C:
			p.reconcile()
			// A selected-VM port that was busy is tried again now and then.
			if now := time.Now(); !now.Before(selRetry) {
				selRetry = now.Add(portRetry)
				p.listenSelected()
			}
		}
	}
	p.shutdown()
	return nil
}

// listenSelected opens the selected-VM port unless it is open, is turned
// off, or the proxy stops; the listen itself runs without p.mu.
func (p *Proxy) listenSelected() {
	p.mu.Lock()
	skip := p.opts.SelectedPort <= 0 || p.selLn != nil || p.stopping
	p.mu.Unlock()
	if skip {
		return
	}
	addr := net.JoinHostPort(p.opts.Bind, strconv.Itoa(p.opts.SelectedPort))
	ln, err := p.listen("tcp", addr)
	p.mu.Lock()
	switch {
	case err != nil:
		first := p.selErr == nil
		p.selErr = fmt.Errorf("selected-VM port %d: %w", p.opts.SelectedPort, err)
		if first {
			p.log.Warn("cannot open the selected-VM port; retrying", "error", p.selErr)
		}
	case p.stopping:
		ln.Close()
	default:
		p.selLn, p.selErr = ln, nil
		p.handlers.Add(1)
		go p.acceptLoop(ln, p.opts.SelectedPort, p.Selected)
	}
	p.mu.Unlock()
	p.notify()
}

func (p *Proxy) shutdown() {
	p.mu.Lock()
	p.stopping = true
	if p.selLn != nil {
		p.selLn.Close()
		p.selLn = nil
	}
	var sessions []*monitor.Session
	for _, e := range p.entries {
		if e.ln != nil {
			e.ln.Close()
			e.ln = nil
		}
		if e.session != nil {
			sessions = append(sessions, e.session)
			e.session = nil
		}
		e.predata = nil
	}
	p.mu.Unlock()
	// Debugger handlers watch ctx and clean up behind themselves.
	p.handlers.Wait()
	for _, s := range sessions {
		p.setPassthrough(s, nil)
		s.SetDebugger("", 0)
	}
	p.notify()
}

// reconcile brings the ports in line with the engine's sessions. It asks the
// monitor first, decides under p.mu, and then binds sessions, opens ports and
// reports debug ports with p.mu released.
func (p *Proxy) reconcile() {
	type vmState struct {
		key       string
		s         *monitor.Session
		debugPort int
		inStore   bool
		src, app  string
		working   bool
	}
	now := time.Now()
	keys := p.engine.Keys()
	store := p.engine.Store()
	vms := make([]vmState, 0, len(keys))
	present := make(map[string]bool, len(keys))
	for _, key := range keys {
		s := p.engine.Session(key)
		if s == nil || !s.HasJDWP() { // a profileable process: no debugger port
			continue
		}
		vm, ok := store.VM(key)
		vms = append(vms, vmState{key, s, vm.DebugPort, ok, vm.Source, vm.App, s.Link().Working()})
		present[key] = true
	}

	type binding struct {
		e *entry
		s *monitor.Session
	}
	var binds []binding
	var listens []*entry
	var closes []net.Listener
	var forget []string
	p.mu.Lock()
	if p.stopping {
		p.mu.Unlock()
		return
	}
	changed := false
	for _, vm := range vms {
		e, ok := p.entries[vm.key]
		if !ok && !vm.working {
			// HELO undecided, or an endpoint that is no VM (it handshook,
			// then sent garbage): no port yet. The session keeps what the
			// VM sends before a passthrough is set (Session.SetPassthrough).
			continue
		}
		if !ok {
			first, seen := p.firstSeen[vm.key]
			if !seen {
				first = now
				p.firstSeen[vm.key] = now
			}
			pref, ready := p.opts.preferredPort(vm.key, vm.src, vm.app, now.Sub(first))
			if !ready {
				continue // its app's name decides its port: wait for it a moment
			}
			delete(p.firstSeen, vm.key)
			e = &entry{key: vm.key, port: p.allocPortLocked(pref)}
			p.entries[vm.key] = e
			changed = true
			if e.port == 0 {
				e.lnErr = fmt.Errorf("%s: no free debugger port from %d", vm.key, p.opts.BasePort)
			}
		}
		if e.session != vm.s {
			e.session, e.fresh, e.primed, e.goneAt = vm.s, true, false, time.Time{}
			e.predata, e.predataBytes = nil, 0
			e.retryAt = time.Time{} // a port that was in use may be free now
			binds = append(binds, binding{e, vm.s})
			changed = true
		}
		if e.ln == nil && e.port != 0 && !e.listening && !now.Before(e.retryAt) {
			// A port busy when the VM appeared is tried again now and then,
			// not only when the session changes.
			e.listening = true
			listens = append(listens, e)
		}
	}
	for key := range p.firstSeen {
		if !present[key] {
			delete(p.firstSeen, key)
		}
	}
	for key, e := range p.entries {
		if present[key] {
			continue
		}
		if e.session != nil {
			e.session, e.primed, e.goneAt = nil, false, now
			e.predata, e.predataBytes = nil, 0
			changed = true
		}
		if now.Sub(e.goneAt) >= p.opts.Grace && e.dbg == nil && !e.listening {
			if e.ln != nil {
				closes = append(closes, e.ln)
			}
			delete(p.entries, key)
			forget = append(forget, key)
			changed = true
		}
	}
	p.mu.Unlock()

	for _, ln := range closes {
		ln.Close()
	}
	for _, key := range forget {
		p.insp.Forget(key)
	}
	for _, b := range binds {
		p.bind(b.e, b.s)
	}
	for _, e := range listens {
		if p.listenEntry(e) {
			changed = true
		}
	}

	// The debug port each VM shows follows its listener.
	type portUpdate struct {
		s    *monitor.Session
		port int
	}
	var updates []portUpdate
	p.mu.Lock()
	for _, vm := range vms {
		want := 0
		if e := p.entries[vm.key]; e != nil && e.session == vm.s && e.ln != nil {
			want = e.port
		}
		if vm.inStore && vm.debugPort != want {
			updates = append(updates, portUpdate{vm.s, want})
		}
	}
	p.mu.Unlock()
	for _, u := range updates {
		if p.engine.Session(u.s.Key()) == u.s {
			u.s.SetDebugger("", u.port)
		}
	}
	if changed {
		p.notify()
	}
}

// bind routes s's packets to e. What the VM sent before the passthrough was
// set goes first in the pre-data, ahead of what fromVM kept meanwhile; until
// then no debugger attaches (e.primed).
func (p *Proxy) bind(e *entry, s *monitor.Session) {
	early := p.setPassthrough(s, func(pk *jdwp.Packet) { p.fromVM(e, s, pk) })
	p.mu.Lock()
	defer p.mu.Unlock()
	if e.session != s || e.primed {
		return
	}
	later := e.predata
	e.predata, e.predataBytes = nil, 0
	for _, pk := range early {
		p.keepLocked(e, pk)
	}
	for _, pk := range later {
		p.keepLocked(e, pk)
	}
	e.primed = true
}

// listenEntry opens e's debugger port (e.listening is set; the listen runs
// without p.mu) and reports whether it now listens. A port that is busy is
// tried again after portRetry.
func (p *Proxy) listenEntry(e *entry) bool {
	addr := net.JoinHostPort(p.opts.Bind, strconv.Itoa(e.port))
	ln, err := p.listen("tcp", addr)
	if err != nil {
		err = fmt.Errorf("debugger port %d for %s: %w", e.port, e.key, err)
		p.log.Warn("cannot open a debugger port", "error", err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	e.listening = false
	if err != nil {
		e.lnErr = err
		e.retryAt = time.Now().Add(portRetry)
		return false
	}
	if p.stopping || p.entries[e.key] != e {
		ln.Close()
		return false
	}
	e.ln, e.lnErr = ln, nil
	key := e.key
	p.handlers.Add(1)
	go p.acceptLoop(ln, e.port, func() string { return key })
	return true
}

// acceptLoop hands every connection on ln to a debugger handler for the VM
// target names at that moment.
func (p *Proxy) acceptLoop(ln net.Listener, port int, target func() string) {
	defer p.handlers.Done()
	for {
		nc, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			p.log.Warn("accept", "port", port, "error", err)
			time.Sleep(50 * time.Millisecond) // e.g. out of descriptors
			continue
		}
		key := target()
		p.handlers.Add(1)
		go func() {
			defer p.handlers.Done()
			p.serveDebugger(nc, key, port)
		}()
	}
}

// fromVM routes a packet the VM sent that is not the monitor's: to the
// attached debugger, to the pre-data kept for the first one, or nowhere.
func (p *Proxy) fromVM(e *entry, s *monitor.Session, pk *jdwp.Packet) {
	p.mu.Lock()
	if e.session != s {
		p.mu.Unlock()
		return
	}
	if a := e.dbg; a != nil && a.session == s && e.primed {
		p.mu.Unlock()
		a.fromVM(pk)
		return
	}
	p.keepLocked(e, pk)
	p.mu.Unlock()
}

// keepLocked keeps a VM command for the first debugger of e's session
// (bounded by Options.PreData); anything else is dropped.
func (p *Proxy) keepLocked(e *entry, pk *jdwp.Packet) {
	if !pk.IsReply() && e.fresh && p.opts.PreData > 0 && e.predataBytes+pk.Len() <= p.opts.PreData {
		e.predata = append(e.predata, pk)
		e.predataBytes += pk.Len()
	}
}

// note records a session event in the inspector.
func (p *Proxy) note(key string, port int, text, note string) {
	p.insp.Observe(jdwpspy.Observation{At: time.Now(), VM: key, Port: port, Dir: jdwpspy.Session, Text: text, Note: note})
}
