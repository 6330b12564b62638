package jdwpspy

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/internal/wire"
	"github.com/ddmtui/ddmtui/jdwp"
)

// Direction says which way a packet travelled.
type Direction string

// Directions of inspector records.
const (
	ToVM    Direction = "to_vm"   // debugger → VM
	FromVM  Direction = "from_vm" // VM → debugger
	Session Direction = "session" // not a packet: attach, detach, cleanup
)

// Record types.
const (
	TypeCommand = "command"
	TypeReply   = "reply"
	TypeSession = "session"
)

// Record is one decoded packet of a debugger's traffic, or a session event
// (a debugger attached or left, what the cleanup did). Strings in it may come
// from the VM: Line and Detail escape them; JSON encoding escapes its own.
type Record struct {
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
	VM   string    `json:"key"` // the VM's key
	Port int       `json:"port"`
	Dir  Direction `json:"dir"`
	Type string    `json:"type"`
	// ID is the id the debugger sees; WireID the one used on the VM
	// connection when the proxy had to rewrite it (0 otherwise).
	ID     uint32 `json:"id"`
	WireID uint32 `json:"wire_id,omitempty"`
	// CommandSet, Command and Name are the command's, for replies the
	// command answered (when the pairing is known).
	CommandSet uint8  `json:"command_set"`
	Command    uint8  `json:"command"`
	Name       string `json:"name"`
	// ErrorCode and Error are set on error replies.
	ErrorCode uint16 `json:"error_code,omitempty"`
	Error     string `json:"error,omitempty"`
	// LatencyMS is a reply's time since its command was forwarded.
	LatencyMS float64 `json:"latency_ms,omitempty"`
	Length    int     `json:"length"`
	// Summary is the decoded content on one line.
	Summary      string        `json:"summary,omitempty"`
	EventRequest *EventRequest `json:"event_request,omitempty"`
	Composite    *Composite    `json:"composite,omitempty"`
	// RequestID is the id an EventRequest.Set reply assigned.
	RequestID   *int32 `json:"request_id,omitempty"`
	Note        string `json:"note,omitempty"`
	DecodeError string `json:"decode_error,omitempty"`
}

// Text renders the record on one line as it came (not escaped): its time,
// VM, port, Arrow and Body.
func (r *Record) Text() string {
	return fmt.Sprintf("%s %s :%d %s %s", r.Time.Format("15:04:05.000"), r.VM, r.Port, r.Arrow(), r.Body())
}

// Arrow is the record's direction as Text writes it: "->" debugger to
// VM, "<-" VM to debugger, "==" a session event.
func (r *Record) Arrow() string {
	switch r.Dir {
	case ToVM:
		return "->"
	case FromVM:
		return "<-"
	}
	return "=="
}

// Body is Text without its time, VM, port and arrow: the packet (or the
// session event) itself, not escaped.
func (r *Record) Body() string {
	var b strings.Builder
	switch r.Type {
	case TypeSession:
		b.WriteString(r.Summary)
		if r.Note != "" {
			b.WriteString(" (" + r.Note + ")")
		}
		return b.String()
	case TypeReply:
		fmt.Fprintf(&b, "#%d reply %s", r.ID, r.Name)
		if r.LatencyMS > 0 {
			fmt.Fprintf(&b, " %.2fms", r.LatencyMS)
		}
		if r.Error != "" {
			fmt.Fprintf(&b, " ERROR %s (%d)", r.Error, r.ErrorCode)
		}
	default:
		fmt.Fprintf(&b, "#%d %s", r.ID, r.Name)
	}
	if r.WireID != 0 {
		fmt.Fprintf(&b, " [wire id %#x]", r.WireID)
	}
	if r.Summary != "" {
		b.WriteString(" " + r.Summary)
	} else if r.Error == "" {
		fmt.Fprintf(&b, " (%d bytes)", r.Length)
	}
	if r.Note != "" {
		b.WriteString(" (" + r.Note + ")")
	}
	if r.DecodeError != "" {
		b.WriteString(" !" + r.DecodeError)
	}
	return b.String()
}

// Line is Text made safe for a terminal: control characters and
// bidirectional overrides from VM strings are escaped.
func (r *Record) Line() string { return safetext.Terminal(r.Text()) }

// Detail renders the decoded record over several lines (escaped as Line),
// for a pane that shows the selected record.
func (r *Record) Detail() []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, safetext.Terminal(fmt.Sprintf(format, args...))) }
	if r.Type == TypeSession {
		add("%s session event on port %d (%s)", r.Time.Format("15:04:05.000000"), r.Port, r.VM)
	} else {
		add("%s %s %s id %d on port %d (%s)", r.Time.Format("15:04:05.000000"), r.Type, r.Name, r.ID, r.Port, r.VM)
	}
	if r.WireID != 0 {
		add("rewritten on the VM connection as id %#x", r.WireID)
	}
	if r.Type != TypeSession {
		add("command set %d (%s), command %d, %d bytes", r.CommandSet, jdwp.CommandSetName(r.CommandSet), r.Command, r.Length)
	}
	if r.LatencyMS > 0 {
		add("latency %.3f ms", r.LatencyMS)
	}
	if r.Error != "" {
		add("error %s (%d)", r.Error, r.ErrorCode)
	}
	if er := r.EventRequest; er != nil {
		add("event kind %s (%d), suspend %s (%d), %d modifier(s)", er.EventKindName, er.EventKind, er.SuspendPolicyName, er.SuspendPolicy, er.ModifierCount)
		for i, m := range er.Modifiers {
			add("  %d. %s", i+1, m.String())
		}
		if er.Undecoded != "" {
			add("  undecoded: %s", er.Undecoded)
		}
	}
	if c := r.Composite; c != nil {
		add("suspend %s (%d), %d event(s)", c.SuspendPolicyName, c.SuspendPolicy, c.EventCount)
		for i, e := range c.Events {
			add("  %d. %s", i+1, e.String())
		}
		if c.Undecoded != "" {
			add("  undecoded: %s", c.Undecoded)
		}
	}
	if r.RequestID != nil {
		add("request id %d", *r.RequestID)
	}
	if r.Summary != "" && r.EventRequest == nil && r.Composite == nil {
		add("%s", r.Summary)
	}
	if r.Note != "" {
		add("note: %s", r.Note)
	}
	if r.DecodeError != "" {
		add("decode error: %s", r.DecodeError)
	}
	return out
}

// DefaultLogSize is how many records an Inspector keeps by default.
const DefaultLogSize = 4096

// Observation is what the forwarding path hands the inspector: cheap to
// build, decoded later on the inspector's own goroutine.
type Observation struct {
	At     time.Time
	VM     string // the VM's key
	Port   int
	Dir    Direction
	Packet *jdwp.Packet // the packet with the id the debugger sees (nil: a session record)
	WireID uint32       // the VM-side id when rewritten
	Req    Command      // for replies: the command answered, when Paired
	Paired bool
	Text   string // session records
	Note   string
	Reset  bool // a debugger attached: forget names learned before
}

// Command is the command a reply answers, as far as decoding the reply
// needs it. An Observation holds it by value, so observing a reply
// allocates nothing.
type Command struct {
	Set, Cmd uint8
	Data     []byte // the command's data (its ids say what the reply names)
	Sent     time.Time
}

// Inspector decodes debuggers' traffic into Records, keeps the newest in a
// ring and hands them to subscribers. Observing never blocks the forwarding
// path: when the decoder falls behind, observations are dropped and counted;
// a slow subscriber loses records (counted per Feed), never stalls others.
// An Inspector serves one Proxy.
type Inspector struct {
	// Observations wait in queue (at most maxObservations) for the decoder.
	// The forwarding path wakes the decoder only when it is idle; a busy
	// decoder takes what accumulated every batchPause, so a stream of
	// packets costs no goroutine wake-up per packet.
	qmu     sync.Mutex
	queue   []Observation
	idle    bool
	kick    chan struct{}
	dropped atomic.Uint64

	mu    sync.Mutex
	ring  []Record
	start int
	n     int
	seq   uint64
	feeds map[*Feed]struct{}

	namesMu sync.Mutex
	names   map[string]*resolver // per VM key
}

// NewInspector returns an inspector keeping the newest size records
// (DefaultLogSize when size <= 0).
func NewInspector(size int) *Inspector {
	if size <= 0 {
		size = DefaultLogSize
	}
	return &Inspector{
		kick:  make(chan struct{}, 1),
		ring:  make([]Record, size),
		feeds: map[*Feed]struct{}{},
		names: map[string]*resolver{},
	}
}

// maxObservations bounds the observations waiting for the decoder.
const maxObservations = 4096

// batchPause is how long the decoder lets observations accumulate after a
// batch before it takes the next.
const batchPause = 5 * time.Millisecond

// Observe queues an observation without blocking. The Observation and its
// packets must not change afterwards.
func (in *Inspector) Observe(o Observation) {
	in.qmu.Lock()
	if len(in.queue) >= maxObservations {
		in.qmu.Unlock()
		in.dropped.Add(1)
		return
	}
	in.queue = append(in.queue, o)
	wake := in.idle
	in.idle = false
	in.qmu.Unlock()
	if wake {
		select {
		case in.kick <- struct{}{}:
		default:
		}
	}
}

// Dropped counts observations lost because the decoder fell behind.
func (in *Inspector) Dropped() uint64 { return in.dropped.Load() }

// Run decodes observations until ctx ends; the one owner of the
// inspector (a Proxy) calls it once.
func (in *Inspector) Run(ctx context.Context) {
	pause := time.NewTimer(batchPause)
	defer pause.Stop()
	var spare []Observation
	for {
		in.qmu.Lock()
		batch := in.queue
		if len(batch) == 0 {
			in.idle = true
		} else {
			in.queue, spare = spare[:0], nil
		}
		in.qmu.Unlock()
		if len(batch) == 0 {
			select {
			case <-ctx.Done():
				return
			case <-in.kick:
			}
			continue
		}
		for i := range batch {
			in.namesMu.Lock()
			r := in.decode(batch[i])
			in.namesMu.Unlock()
			in.add(r)
			batch[i] = Observation{} // let the packet go
		}
		spare = batch
		if cap(spare) > maxObservations {
			spare = nil
		}
		pause.Reset(batchPause)
		select {
		case <-ctx.Done():
			return
		case <-pause.C:
		}
	}
}

// Records returns the kept records, oldest first.
func (in *Inspector) Records() []Record {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([]Record, in.n)
	for i := 0; i < in.n; i++ {
		out[i] = in.ring[(in.start+i)%len(in.ring)]
	}
	return out
}

func (in *Inspector) add(r Record) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.seq++
	r.Seq = in.seq
	if in.n < len(in.ring) {
		in.ring[(in.start+in.n)%len(in.ring)] = r
		in.n++
	} else {
		in.ring[in.start] = r
		in.start = (in.start + 1) % len(in.ring)
	}
	for f := range in.feeds {
		select {
		case f.c <- r:
		default:
			f.dropped.Add(1)
		}
	}
}

// Feed is one subscriber's stream of new records.
type Feed struct {
	in      *Inspector
	c       chan Record
	dropped atomic.Uint64
	once    sync.Once
}

// Subscribe returns a feed of records added from now on, buffering up to
// buffer records (256 when buffer <= 0); records that do not fit are dropped
// and counted.
func (in *Inspector) Subscribe(buffer int) *Feed {
	if buffer <= 0 {
		buffer = 256
	}
	f := &Feed{in: in, c: make(chan Record, buffer)}
	in.mu.Lock()
	in.feeds[f] = struct{}{}
	in.mu.Unlock()
	return f
}

// C delivers the records; it is closed by Close.
func (f *Feed) C() <-chan Record { return f.c }

// Dropped counts records this feed lost because its reader was slow.
func (f *Feed) Dropped() uint64 { return f.dropped.Load() }

// Close unsubscribes and closes C.
func (f *Feed) Close() {
	f.once.Do(func() {
		f.in.mu.Lock()
		delete(f.in.feeds, f)
		close(f.c)
		f.in.mu.Unlock()
	})
}

// resolver holds what one VM's traffic taught about ids.
type resolver struct {
	sizes   jdwp.IDSizes
	classes map[uint64]string    // reference type id → Java name
	methods map[[2]uint64]string // (class, method) → name
	threads map[uint64]string
}

// Bounds on learned names: past them nothing more is learned.
const (
	maxClasses = 1 << 18
	maxMethods = 1 << 20
	maxThreads = 1 << 16
)

func newResolver(sz jdwp.IDSizes) *resolver {
	return &resolver{sizes: sz, classes: map[uint64]string{}, methods: map[[2]uint64]string{}, threads: map[uint64]string{}}
}

func (r *resolver) ClassName(c uint64) string     { return r.classes[c] }
func (r *resolver) MethodName(c, m uint64) string { return r.methods[[2]uint64{c, m}] }
func (r *resolver) ThreadName(t uint64) string    { return r.threads[t] }

func (r *resolver) learnClass(id uint64, sig string) {
	if _, ok := r.classes[id]; ok || len(r.classes) < maxClasses {
		r.classes[id] = ClassNameFromSignature(sig)
	}
}

func (in *Inspector) resolverFor(vm string) *resolver {
	r, ok := in.names[vm]
	if !ok {
		r = newResolver(jdwp.IDSizes{})
		in.names[vm] = r
	}
	return r
}

// Forget drops the names of a VM that left for good (its id sizes go
// too).
func (in *Inspector) Forget(vm string) {
	in.namesMu.Lock()
	delete(in.names, vm)
	in.namesMu.Unlock()
}

func (in *Inspector) decode(o Observation) Record {
	rec := Record{Time: o.At, VM: o.VM, Port: o.Port, Dir: o.Dir, Note: o.Note}
	if o.Packet == nil {
		rec.Type = TypeSession
		rec.Summary = o.Text
		if o.Reset {
			// Ids of classes, methods and objects belong to one debugger
			// connection on Android VMs; the id sizes stay.
			old := in.resolverFor(o.VM)
			in.names[o.VM] = newResolver(old.sizes)
		}
		return rec
	}
	p := o.Packet
	res := in.resolverFor(o.VM)
	rec.ID, rec.WireID, rec.Length = p.ID, o.WireID, p.Len()
	if !p.IsReply() {
		rec.Type = TypeCommand
		rec.CommandSet, rec.Command = p.CommandSet, p.Command
		rec.Name = jdwp.CommandName(p.CommandSet, p.Command)
		in.decodeCommand(&rec, p, res)
		return rec
	}
	rec.Type = TypeReply
	if p.ErrorCode != jdwp.ErrNone {
		rec.ErrorCode = uint16(p.ErrorCode)
		rec.Error = p.ErrorCode.String()
	}
	if !o.Paired {
		rec.Name = "(unpaired)"
		return rec
	}
	rec.CommandSet, rec.Command = o.Req.Set, o.Req.Cmd
	rec.Name = jdwp.CommandName(o.Req.Set, o.Req.Cmd)
	if d := o.At.Sub(o.Req.Sent); d > 0 {
		rec.LatencyMS = float64(d.Microseconds()) / 1000
		if rec.LatencyMS == 0 {
			rec.LatencyMS = 0.001
		}
	}
	if p.ErrorCode == jdwp.ErrNone {
		in.decodeReply(&rec, &o.Req, p, res)
	}
	return rec
}

// decodeCommand fills the summary of a command in either direction.
func (in *Inspector) decodeCommand(rec *Record, p *jdwp.Packet, res *resolver) {
	sz := res.sizes
	switch [2]uint8{p.CommandSet, p.Command} {
	case [2]uint8{jdwp.CmdSetEventRequest, jdwp.CmdEventRequestSet}:
		er, err := DecodeEventRequest(p.Data, sz, res)
		rec.EventRequest = er
		rec.Summary = er.String()
		if err != nil {
			rec.DecodeError = err.Error()
		}
		return
	case [2]uint8{jdwp.CmdSetEvent, jdwp.CmdEventComposite}:
		c, err := DecodeComposite(p.Data, sz, res)
		for _, e := range c.Events {
			if e.Kind == jdwp.EventClassPrepare && e.RefType != nil {
				res.learnClass(uint64(e.RefType.ID), e.Signature)
			}
		}
		rec.Composite = c
		rec.Summary = c.String()
		if err != nil {
			rec.DecodeError = err.Error()
		}
		return
	case [2]uint8{jdwp.CmdSetEventRequest, jdwp.CmdEventRequestClear}:
		r := wire.NewReader(p.Data, jdwp.HeaderLen)
		kind, id := r.U1("event kind"), r.S4("request id")
		if r.Err() == nil {
			rec.Summary = fmt.Sprintf("%s request %d", jdwp.EventKindName(kind), id)
		}
		return
	case [2]uint8{jdwp.CmdSetVirtualMachine, 2}: // ClassesBySignature
		if s, err := jdwp.DecodeString(p.Data); err == nil {
			rec.Summary = fmt.Sprintf("%q", s)
		}
		return
	}
	if !sz.Valid() || len(p.Data) == 0 {
		return
	}
	// Commands whose first argument is a reference type or a thread.
	switch p.CommandSet {
	case jdwp.CmdSetReferenceType, jdwp.CmdSetClassType, jdwp.CmdSetInterfaceType, jdwp.CmdSetArrayType:
		if id, ok := leadingID(p.Data, sz.ReferenceTypeID); ok {
			rec.Summary = className(ID(id), res.ClassName(id))
		}
	case jdwp.CmdSetMethod:
		r := wire.NewReader(p.Data, jdwp.HeaderLen)
		c, m := r.ID(sz.ReferenceTypeID, "class"), r.ID(sz.MethodID, "method")
		if r.Err() == nil {
			l := Location{ClassID: ID(c), MethodID: ID(m)}
			resolveLocation(&l, res)
			rec.Summary = strings.TrimSuffix(l.String(), "@0")
		}
	case jdwp.CmdSetThreadReference:
		if id, ok := leadingID(p.Data, sz.ObjectID); ok {
			rec.Summary = "thread " + ID(id).String()
			if n := res.ThreadName(id); n != "" {
				rec.Summary += fmt.Sprintf(" %q", n)
			}
		}
	}
}

func leadingID(b []byte, size int) (uint64, bool) {
	r := wire.NewReader(b, jdwp.HeaderLen)
	id := r.ID(size, "id")
	return id, r.Err() == nil
}

// decodeReply learns names from successful replies and summarises them.
func (in *Inspector) decodeReply(rec *Record, req *Command, p *jdwp.Packet, res *resolver) {
	sz := res.sizes
	r := wire.NewReader(p.Data, jdwp.HeaderLen)
	switch [2]uint8{req.Set, req.Cmd} {
	case [2]uint8{jdwp.CmdSetVirtualMachine, jdwp.CmdVMIDSizes}:
		s, err := jdwp.DecodeIDSizes(p.Data)
		if err != nil {
			rec.DecodeError = err.Error()
			return
		}
		res.sizes = s
		rec.Summary = fmt.Sprintf("field=%d method=%d object=%d reftype=%d frame=%d",
			s.FieldID, s.MethodID, s.ObjectID, s.ReferenceTypeID, s.FrameID)
	case [2]uint8{jdwp.CmdSetVirtualMachine, jdwp.CmdVMVersion}:
		if v, err := jdwp.DecodeVersion(p.Data); err == nil {
			rec.Summary = fmt.Sprintf("%s %s (JDWP %d.%d)", v.VMName, v.VMVersion, v.JDWPMajor, v.JDWPMinor)
		}
	case [2]uint8{jdwp.CmdSetEventRequest, jdwp.CmdEventRequestSet}:
		id := r.S4("request id")
		if r.Err() == nil {
			rec.RequestID = &id
			rec.Summary = fmt.Sprintf("request id %d", id)
			if len(req.Data) > 0 {
				rec.Summary += " for " + jdwp.EventKindName(req.Data[0])
			}
		}
	case [2]uint8{jdwp.CmdSetVirtualMachine, 2}: // ClassesBySignature: tag, id, status
		sig, _ := jdwp.DecodeString(req.Data)
		n := r.Count(uint64(r.U4("class count")), 1+maxIDSize(sz.ReferenceTypeID)+4, "classes")
		var ids []string
		for i := 0; i < n && sz.Valid(); i++ {
			r.U1("tag")
			id := r.ID(sz.ReferenceTypeID, "type id")
			r.S4("status")
			if r.Err() != nil {
				break
			}
			res.learnClass(id, sig)
			ids = append(ids, ID(id).String())
		}
		rec.Summary = fmt.Sprintf("%q → [%s]", ClassNameFromSignature(sig), strings.Join(ids, " "))
	case [2]uint8{jdwp.CmdSetVirtualMachine, 3}, [2]uint8{jdwp.CmdSetVirtualMachine, 20}: // AllClasses(WithGeneric)
		generic := req.Cmd == 20
		n := r.Count(uint64(r.U4("class count")), 1+maxIDSize(sz.ReferenceTypeID)+8, "classes")
		learned := 0
		for i := 0; i < n && sz.Valid(); i++ {
			r.U1("tag")
			id := r.ID(sz.ReferenceTypeID, "type id")
			sig := r.JDWPString("signature")
			if generic {
				r.JDWPString("generic signature")
			}
			r.S4("status")
			if r.Err() != nil {
				break
			}
			res.learnClass(id, sig)
			learned++
		}
		rec.Summary = fmt.Sprintf("%d classes", learned)
	case [2]uint8{jdwp.CmdSetReferenceType, jdwp.CmdRTSignature}, [2]uint8{jdwp.CmdSetReferenceType, 13}:
		sig := r.JDWPString("signature")
		if id, ok := leadingID(req.Data, sz.ReferenceTypeID); ok && r.Err() == nil {
			res.learnClass(id, sig)
			rec.Summary = fmt.Sprintf("%s = %q", ID(id), sig)
		}
	case [2]uint8{jdwp.CmdSetReferenceType, jdwp.CmdRTMethods}, [2]uint8{jdwp.CmdSetReferenceType, 15}:
		class, ok := leadingID(req.Data, sz.ReferenceTypeID)
		if !ok {
			return
		}
		generic := req.Cmd == 15
		n := r.Count(uint64(r.U4("method count")), maxIDSize(sz.MethodID)+12, "methods")
		var names []string
		for i := 0; i < n; i++ {
			id := r.ID(sz.MethodID, "method id")
			name := r.JDWPString("name")
			r.JDWPString("signature")
			if generic {
				r.JDWPString("generic signature")
			}
			r.S4("modifiers")
			if r.Err() != nil {
				break
			}
			if _, ok := res.methods[[2]uint64{class, id}]; ok || len(res.methods) < maxMethods {
				res.methods[[2]uint64{class, id}] = name
			}
			if len(names) < 8 {
				names = append(names, name)
			}
		}
		rec.Summary = fmt.Sprintf("%s: %d methods", className(ID(class), res.ClassName(class)), n)
		if len(names) > 0 {
			rec.Summary += " (" + strings.Join(names, ", ")
			if n > len(names) {
				rec.Summary += ", …"
			}
			rec.Summary += ")"
		}
	case [2]uint8{jdwp.CmdSetThreadReference, jdwp.CmdThreadName}:
		name := r.JDWPString("name")
		if id, ok := leadingID(req.Data, sz.ObjectID); ok && r.Err() == nil {
			if _, known := res.threads[id]; known || len(res.threads) < maxThreads {
				res.threads[id] = name
			}
			rec.Summary = fmt.Sprintf("thread %s = %q", ID(id), name)
		}
	case [2]uint8{jdwp.CmdSetVirtualMachine, jdwp.CmdVMAllThreads}:
		if ids, err := jdwp.DecodeIDList(p.Data, sz.ObjectID); err == nil {
			rec.Summary = fmt.Sprintf("%d threads", len(ids))
		}
	case [2]uint8{jdwp.CmdSetThreadReference, jdwp.CmdThreadStatus}:
		if st, err := jdwp.DecodeThreadStatus(p.Data); err == nil {
			rec.Summary = fmt.Sprintf("%s suspended=%d", jdwp.ThreadStatusName(st.Status), st.SuspendStatus)
		}
	}
}

func maxIDSize(n int) int {
	if n < 1 {
		return 1
	}
	return n
}
