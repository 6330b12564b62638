package proxy

import (
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ddmtui/ddmtui/internal/wire"
	"github.com/ddmtui/ddmtui/jdwp"
)

// Decoders for the two layouts a pass-through inspector must understand
// in depth: EventRequest.Set (15/1) and Event.Composite (64/100), with their
// modifiers, locations and tagged values (spec/jdwp.md §6–§7). They are pure
// functions of the packet data and the VM's id sizes; names for ids come from
// an optional Names (what the inspector learned from earlier replies).

// ErrUndecodable marks data the decoder had to stop in: a modifier kind, an
// event kind or a value tag that has no known layout. What follows it is kept
// as hex.
var ErrUndecodable = errors.New("no known layout; rest shown as hex")

// ErrNoIDSizes is returned when a layout with ids is decoded before the VM's
// id sizes are known (the debugger's IDSizes reply teaches them).
var ErrNoIDSizes = errors.New("id sizes not known yet")

// maxHex bounds how many undecoded bytes are kept as hex.
const maxHex = 256

// Names resolves ids to names learned from earlier traffic. Every method
// returns "" for an unknown id.
type Names interface {
	ClassName(class uint64) string
	MethodName(class, method uint64) string
	ThreadName(thread uint64) string
}

// ID is a JDWP object, thread, class, method or field id. JSON shows it as
// a hex string, since ids are opaque and may exceed 2^53.
type ID uint64

func (id ID) String() string { return "0x" + strconv.FormatUint(uint64(id), 16) }

// MarshalText renders the id as 0x-prefixed hex.
func (id ID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText parses a 0x-prefixed hex id.
func (id *ID) UnmarshalText(b []byte) error {
	v, err := strconv.ParseUint(strings.TrimPrefix(string(b), "0x"), 16, 64)
	if err != nil {
		return fmt.Errorf("id %q: %w", b, err)
	}
	*id = ID(v)
	return nil
}

// Location is a code position: type tag, class, method and code index (a
// dex pc on Dalvik/ART, a bytecode index on HotSpot).
type Location struct {
	TypeTag    uint8  `json:"type_tag"`
	ClassID    ID     `json:"class_id"`
	MethodID   ID     `json:"method_id"`
	Index      uint64 `json:"index"`
	ClassName  string `json:"class,omitempty"`  // resolved, e.g. "java.lang.Thread"
	MethodName string `json:"method,omitempty"` // resolved, e.g. "run"
}

// IsZero reports an all-zero location (an uncaught exception's catch
// location).
func (l Location) IsZero() bool {
	return l.TypeTag == 0 && l.ClassID == 0 && l.MethodID == 0 && l.Index == 0
}

// String gives "Class.method@index", with ids where names are unknown.
func (l Location) String() string {
	c := l.ClassName
	if c == "" {
		c = "class:" + l.ClassID.String()
	}
	m := l.MethodName
	if m == "" {
		m = "method:" + l.MethodID.String()
	}
	return fmt.Sprintf("%s.%s@%d", c, m, l.Index)
}

// Modifier kinds of EventRequest.Set (spec/jdwp.md §7).
const (
	ModCount           uint8 = 1
	ModConditional     uint8 = 2
	ModThreadOnly      uint8 = 3
	ModClassOnly       uint8 = 4
	ModClassMatch      uint8 = 5
	ModClassExclude    uint8 = 6
	ModLocationOnly    uint8 = 7
	ModExceptionOnly   uint8 = 8
	ModFieldOnly       uint8 = 9
	ModStep            uint8 = 10
	ModInstanceOnly    uint8 = 11
	ModSourceNameMatch uint8 = 12
)

var modifierNames = map[uint8]string{
	ModCount: "Count", ModConditional: "Conditional", ModThreadOnly: "ThreadOnly", ModClassOnly: "ClassOnly",
	ModClassMatch: "ClassMatch", ModClassExclude: "ClassExclude", ModLocationOnly: "LocationOnly",
	ModExceptionOnly: "ExceptionOnly", ModFieldOnly: "FieldOnly", ModStep: "Step",
	ModInstanceOnly: "InstanceOnly", ModSourceNameMatch: "SourceNameMatch",
}

// ModifierName names a modifier kind, e.g. "LocationOnly".
func ModifierName(k uint8) string {
	if n, ok := modifierNames[k]; ok {
		return n
	}
	return fmt.Sprintf("Modifier(%d)", k)
}

// Modifier is one decoded EventRequest.Set modifier. Only the fields of its
// kind are set.
type Modifier struct {
	Kind uint8  `json:"kind"`
	Name string `json:"name"`

	Count     *int32    `json:"count,omitempty"`      // Count
	ExprID    *int32    `json:"expr_id,omitempty"`    // Conditional
	Thread    *ID       `json:"thread,omitempty"`     // ThreadOnly, Step
	Class     *ID       `json:"class_id,omitempty"`   // ClassOnly, ExceptionOnly (0: any), FieldOnly
	ClassName string    `json:"class,omitempty"`      // resolved Class
	Pattern   *string   `json:"pattern,omitempty"`    // ClassMatch, ClassExclude, SourceNameMatch
	Location  *Location `json:"location,omitempty"`   // LocationOnly
	Caught    *bool     `json:"caught,omitempty"`     // ExceptionOnly
	Uncaught  *bool     `json:"uncaught,omitempty"`   // ExceptionOnly
	Field     *ID       `json:"field_id,omitempty"`   // FieldOnly
	StepSize  *int32    `json:"step_size,omitempty"`  // Step: 0 MIN, 1 LINE
	StepDepth *int32    `json:"step_depth,omitempty"` // Step: 0 INTO, 1 OVER, 2 OUT
	Instance  *ID       `json:"instance,omitempty"`   // InstanceOnly
}

func ptr[T any](v T) *T { return &v }

// String renders the modifier for a person, e.g. "LocationOnly Target.work@0".
func (m Modifier) String() string {
	var b strings.Builder
	b.WriteString(m.Name)
	switch m.Kind {
	case ModCount:
		fmt.Fprintf(&b, " %d", deref(m.Count))
	case ModConditional:
		fmt.Fprintf(&b, " expr %d", deref(m.ExprID))
	case ModThreadOnly:
		fmt.Fprintf(&b, " thread %s", deref(m.Thread))
	case ModClassOnly:
		fmt.Fprintf(&b, " %s", className(deref(m.Class), m.ClassName))
	case ModClassMatch, ModClassExclude, ModSourceNameMatch:
		fmt.Fprintf(&b, " %q", deref(m.Pattern))
	case ModLocationOnly:
		if m.Location != nil {
			b.WriteString(" " + m.Location.String())
		}
	case ModExceptionOnly:
		c := "any"
		if deref(m.Class) != 0 {
			c = className(deref(m.Class), m.ClassName)
		}
		fmt.Fprintf(&b, " %s caught=%v uncaught=%v", c, deref(m.Caught), deref(m.Uncaught))
	case ModFieldOnly:
		fmt.Fprintf(&b, " %s field %s", className(deref(m.Class), m.ClassName), deref(m.Field))
	case ModStep:
		fmt.Fprintf(&b, " thread %s size %s depth %s", deref(m.Thread), stepSizeName(deref(m.StepSize)), stepDepthName(deref(m.StepDepth)))
	case ModInstanceOnly:
		fmt.Fprintf(&b, " object %s", deref(m.Instance))
	}
	return b.String()
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func className(id ID, name string) string {
	if name != "" {
		return name
	}
	return "class:" + id.String()
}

func stepSizeName(v int32) string {
	switch v {
	case 0:
		return "MIN"
	case 1:
		return "LINE"
	}
	return strconv.Itoa(int(v))
}

func stepDepthName(v int32) string {
	switch v {
	case 0:
		return "INTO"
	case 1:
		return "OVER"
	case 2:
		return "OUT"
	}
	return strconv.Itoa(int(v))
}

// EventRequest is a decoded EventRequest.Set command.
type EventRequest struct {
	EventKind         uint8      `json:"event_kind"`
	EventKindName     string     `json:"event_kind_name"`
	SuspendPolicy     uint8      `json:"suspend_policy"`
	SuspendPolicyName string     `json:"suspend_policy_name"`
	ModifierCount     uint32     `json:"modifier_count"`
	Modifiers         []Modifier `json:"modifiers"`
	// Undecoded holds, as hex, what follows a modifier with no known layout
	// (starting at its kind byte); at most maxHex bytes are kept.
	Undecoded string `json:"undecoded,omitempty"`
}

// String renders the request on one line.
func (er *EventRequest) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s suspend=%s", er.EventKindName, er.SuspendPolicyName)
	for _, m := range er.Modifiers {
		b.WriteString(" [" + m.String() + "]")
	}
	if er.Undecoded != "" {
		b.WriteString(" undecoded=" + er.Undecoded)
	}
	return b.String()
}

// DecodeEventRequest decodes the data of an EventRequest.Set command. On an
// error it returns what it decoded so far. names may be nil.
func DecodeEventRequest(data []byte, sz jdwp.IDSizes, names Names) (*EventRequest, error) {
	r := wire.NewReader(data, jdwp.HeaderLen)
	er := &EventRequest{Modifiers: []Modifier{}}
	er.EventKind = r.U1("event kind")
	er.SuspendPolicy = r.U1("suspend policy")
	er.ModifierCount = r.U4("modifier count")
	er.EventKindName = jdwp.EventKindName(er.EventKind)
	er.SuspendPolicyName = jdwp.SuspendPolicyName(er.SuspendPolicy)
	if r.Err() != nil {
		return er, r.Err()
	}
	for i := uint32(0); i < er.ModifierCount; i++ {
		if r.Len() == 0 {
			r.Fail(fmt.Sprintf("modifier %d of %d", i+1, er.ModifierCount), wire.ErrShort)
			break
		}
		start := r.Offset()
		kind := r.U1("modifier kind")
		m := Modifier{Kind: kind, Name: ModifierName(kind)}
		if _, known := modifierNames[kind]; !known {
			er.Undecoded = hexBounded(data[start:])
			return er, fmt.Errorf("modifier %d: kind %d: %w", i+1, kind, ErrUndecodable)
		}
		if needsIDs(kind) && !sz.Valid() {
			er.Undecoded = hexBounded(data[start:])
			return er, fmt.Errorf("modifier %d (%s): %w", i+1, m.Name, ErrNoIDSizes)
		}
		what := m.Name
		switch kind {
		case ModCount:
			m.Count = ptr(r.S4(what))
		case ModConditional:
			m.ExprID = ptr(r.S4(what))
		case ModThreadOnly:
			m.Thread = ptr(ID(r.ID(sz.ObjectID, what)))
		case ModClassOnly:
			m.Class = ptr(ID(r.ID(sz.ReferenceTypeID, what)))
		case ModClassMatch, ModClassExclude, ModSourceNameMatch:
			m.Pattern = ptr(r.JDWPString(what))
		case ModLocationOnly:
			l := readLocation(r, sz, what)
			m.Location = &l
		case ModExceptionOnly:
			m.Class = ptr(ID(r.ID(sz.ReferenceTypeID, what)))
			m.Caught = ptr(r.Bool(what))
			m.Uncaught = ptr(r.Bool(what))
		case ModFieldOnly:
			m.Class = ptr(ID(r.ID(sz.ReferenceTypeID, what)))
			m.Field = ptr(ID(r.ID(sz.FieldID, what)))
		case ModStep:
			m.Thread = ptr(ID(r.ID(sz.ObjectID, what)))
			m.StepSize = ptr(r.S4(what))
			m.StepDepth = ptr(r.S4(what))
		case ModInstanceOnly:
			m.Instance = ptr(ID(r.ID(sz.ObjectID, what)))
		}
		if r.Err() != nil {
			return er, r.Err()
		}
		if names != nil {
			if m.Class != nil && *m.Class != 0 {
				m.ClassName = names.ClassName(uint64(*m.Class))
			}
			if m.Location != nil {
				resolveLocation(m.Location, names)
			}
		}
		er.Modifiers = append(er.Modifiers, m)
	}
	if r.Err() == nil && r.Len() > 0 {
		rest := r.Rest()
		er.Undecoded = hexBounded(rest)
		return er, fmt.Errorf("%d bytes after the last modifier: %w", len(rest), wire.ErrTrailing)
	}
	return er, r.Err()
}

func needsIDs(kind uint8) bool {
	switch kind {
	case ModCount, ModConditional, ModClassMatch, ModClassExclude, ModSourceNameMatch:
		return false
	}
	return true
}

func readLocation(r *wire.Reader, sz jdwp.IDSizes, what string) Location {
	return Location{
		TypeTag:  r.U1(what + " type tag"),
		ClassID:  ID(r.ID(sz.ReferenceTypeID, what+" class")),
		MethodID: ID(r.ID(sz.MethodID, what+" method")),
		Index:    r.U8(what + " index"),
	}
}

func resolveLocation(l *Location, names Names) {
	if names == nil {
		return
	}
	l.ClassName = names.ClassName(uint64(l.ClassID))
	l.MethodName = names.MethodName(uint64(l.ClassID), uint64(l.MethodID))
}

// hexBounded renders at most maxHex bytes of b as hex, noting the total when
// it cuts.
func hexBounded(b []byte) string {
	if len(b) <= maxHex {
		return hex.EncodeToString(b)
	}
	return hex.EncodeToString(b[:maxHex]) + fmt.Sprintf("…(%d bytes)", len(b))
}

// TaggedObject is a tagged objectID: the tag says what the object is ('L'
// object, 's' string, 't' thread, '[' array …).
type TaggedObject struct {
	Tag string `json:"tag"`
	ID  ID     `json:"id"`
}

// Value is a tagged value, rendered as text for its tag.
type Value struct {
	Tag   string `json:"tag"`
	Value string `json:"value"`
}

// RefType is a reference type as events carry it: tag (1 class, 2
// interface, 3 array), id and, when known, its name.
type RefType struct {
	Tag  uint8  `json:"tag"`
	ID   ID     `json:"id"`
	Name string `json:"name,omitempty"`
}

// Event is one event of an Event.Composite command. Only the fields of its
// kind are set (spec/jdwp.md §7).
type Event struct {
	Kind          uint8         `json:"kind"`
	Name          string        `json:"name"`
	RequestID     int32         `json:"request_id"`
	Thread        *ID           `json:"thread,omitempty"`
	ThreadName    string        `json:"thread_name,omitempty"`
	Location      *Location     `json:"location,omitempty"`
	Object        *TaggedObject `json:"object,omitempty"`         // exception, monitor, field owner
	CatchLocation *Location     `json:"catch_location,omitempty"` // exception; nil when uncaught
	Value         *Value        `json:"value,omitempty"`          // return value, new field value
	Timeout       *int64        `json:"timeout,omitempty"`        // MONITOR_WAIT (ms)
	TimedOut      *bool         `json:"timed_out,omitempty"`      // MONITOR_WAITED
	RefType       *RefType      `json:"ref_type,omitempty"`       // CLASS_PREPARE, field events
	Signature     string        `json:"signature,omitempty"`      // CLASS_PREPARE, CLASS_UNLOAD
	Status        *int32        `json:"status,omitempty"`         // CLASS_PREPARE class status
	Field         *ID           `json:"field_id,omitempty"`       // field events
}

// String renders the event on one line.
func (e Event) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s req=%d", e.Name, e.RequestID)
	if e.Thread != nil {
		fmt.Fprintf(&b, " thread=%s", *e.Thread)
		if e.ThreadName != "" {
			fmt.Fprintf(&b, " %q", e.ThreadName)
		}
	}
	if e.Location != nil {
		b.WriteString(" at " + e.Location.String())
	}
	if e.RefType != nil {
		fmt.Fprintf(&b, " type=%s", className(e.RefType.ID, e.RefType.Name))
	}
	if e.Field != nil {
		fmt.Fprintf(&b, " field=%s", *e.Field)
	}
	if e.Object != nil {
		fmt.Fprintf(&b, " object=%s:%s", e.Object.Tag, e.Object.ID)
	}
	if e.Kind == jdwp.EventException {
		if e.CatchLocation != nil {
			b.WriteString(" caught at " + e.CatchLocation.String())
		} else {
			b.WriteString(" uncaught")
		}
	}
	if e.Value != nil {
		fmt.Fprintf(&b, " value=%s:%s", e.Value.Tag, e.Value.Value)
	}
	if e.Timeout != nil {
		fmt.Fprintf(&b, " timeout=%dms", *e.Timeout)
	}
	if e.TimedOut != nil {
		fmt.Fprintf(&b, " timed_out=%v", *e.TimedOut)
	}
	if e.Signature != "" && e.RefType == nil {
		fmt.Fprintf(&b, " signature=%q", e.Signature)
	}
	return b.String()
}

// Composite is a decoded Event.Composite command.
type Composite struct {
	SuspendPolicy     uint8   `json:"suspend_policy"`
	SuspendPolicyName string  `json:"suspend_policy_name"`
	EventCount        uint32  `json:"event_count"`
	Events            []Event `json:"events"`
	Undecoded         string  `json:"undecoded,omitempty"`
}

// String renders the composite on one line.
func (c *Composite) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "suspend=%s", c.SuspendPolicyName)
	for _, e := range c.Events {
		b.WriteString(" [" + e.String() + "]")
	}
	if c.Undecoded != "" {
		b.WriteString(" undecoded=" + c.Undecoded)
	}
	return b.String()
}

// DecodeComposite decodes the data of an Event.Composite command. On an
// error it returns what it decoded so far. names may be nil.
func DecodeComposite(data []byte, sz jdwp.IDSizes, names Names) (*Composite, error) {
	r := wire.NewReader(data, jdwp.HeaderLen)
	c := &Composite{Events: []Event{}}
	c.SuspendPolicy = r.U1("suspend policy")
	c.EventCount = r.U4("event count")
	c.SuspendPolicyName = jdwp.SuspendPolicyName(c.SuspendPolicy)
	if r.Err() != nil {
		return c, r.Err()
	}
	for i := uint32(0); i < c.EventCount; i++ {
		if r.Len() == 0 {
			r.Fail(fmt.Sprintf("event %d of %d", i+1, c.EventCount), wire.ErrShort)
			break
		}
		start := r.Offset()
		kind := r.U1("event kind")
		e := Event{Kind: kind, Name: jdwp.EventKindName(kind)}
		if !compositeKind(kind) {
			c.Undecoded = hexBounded(data[start:])
			return c, fmt.Errorf("event %d: kind %d: %w", i+1, kind, ErrUndecodable)
		}
		if kind != jdwp.EventVMDeath && kind != jdwp.EventClassUnload && !sz.Valid() {
			c.Undecoded = hexBounded(data[start:])
			return c, fmt.Errorf("event %d (%s): %w", i+1, e.Name, ErrNoIDSizes)
		}
		e.RequestID = r.S4("request id")
		if err := readEventBody(r, sz, &e); err != nil {
			c.Undecoded = hexBounded(data[start:])
			return c, fmt.Errorf("event %d (%s): %w", i+1, e.Name, err)
		}
		if r.Err() != nil {
			return c, r.Err()
		}
		if names != nil {
			resolveEvent(&e, names)
		}
		c.Events = append(c.Events, e)
	}
	if r.Err() == nil && r.Len() > 0 {
		c.Undecoded = hexBounded(r.Rest())
		return c, fmt.Errorf("bytes after the last event: %w", wire.ErrTrailing)
	}
	return c, r.Err()
}

func compositeKind(k uint8) bool {
	switch k {
	case jdwp.EventVMStart, jdwp.EventSingleStep, jdwp.EventBreakpoint, jdwp.EventMethodEntry,
		jdwp.EventMethodExit, jdwp.EventMethodExitWithReturn, jdwp.EventMonitorContendedEnter,
		jdwp.EventMonitorContendedEntered, jdwp.EventMonitorWait, jdwp.EventMonitorWaited,
		jdwp.EventException, jdwp.EventThreadStart, jdwp.EventThreadDeath, jdwp.EventClassPrepare,
		jdwp.EventClassUnload, jdwp.EventFieldAccess, jdwp.EventFieldModification, jdwp.EventVMDeath:
		return true
	}
	return false
}

// readEventBody reads what follows an event's request id. It returns
// ErrUndecodable (wrapped) for a value tag with no known size; short data is
// left in r's error.
func readEventBody(r *wire.Reader, sz jdwp.IDSizes, e *Event) error {
	thread := func() { e.Thread = ptr(ID(r.ID(sz.ObjectID, "thread"))) }
	loc := func(what string) *Location { l := readLocation(r, sz, what); return &l }
	switch e.Kind {
	case jdwp.EventVMDeath:
	case jdwp.EventVMStart, jdwp.EventThreadStart, jdwp.EventThreadDeath:
		thread()
	case jdwp.EventSingleStep, jdwp.EventBreakpoint, jdwp.EventMethodEntry, jdwp.EventMethodExit:
		thread()
		e.Location = loc("location")
	case jdwp.EventMethodExitWithReturn:
		thread()
		e.Location = loc("location")
		v, err := readValue(r, sz)
		if err != nil {
			return err
		}
		e.Value = v
	case jdwp.EventMonitorContendedEnter, jdwp.EventMonitorContendedEntered:
		thread()
		e.Object = readTaggedObject(r, sz)
		e.Location = loc("location")
	case jdwp.EventMonitorWait:
		thread()
		e.Object = readTaggedObject(r, sz)
		e.Location = loc("location")
		e.Timeout = ptr(int64(r.U8("timeout")))
	case jdwp.EventMonitorWaited:
		thread()
		e.Object = readTaggedObject(r, sz)
		e.Location = loc("location")
		e.TimedOut = ptr(r.Bool("timed out"))
	case jdwp.EventException:
		thread()
		e.Location = loc("throw location")
		e.Object = readTaggedObject(r, sz)
		if c := loc("catch location"); !c.IsZero() {
			e.CatchLocation = c
		}
	case jdwp.EventClassPrepare:
		thread()
		e.RefType = &RefType{Tag: r.U1("ref type tag"), ID: ID(r.ID(sz.ReferenceTypeID, "type id"))}
		e.Signature = r.JDWPString("signature")
		e.RefType.Name = ClassNameFromSignature(e.Signature)
		e.Status = ptr(r.S4("class status"))
	case jdwp.EventClassUnload:
		e.Signature = r.JDWPString("signature")
	case jdwp.EventFieldAccess, jdwp.EventFieldModification:
		thread()
		e.Location = loc("location")
		e.RefType = &RefType{Tag: r.U1("ref type tag"), ID: ID(r.ID(sz.ReferenceTypeID, "type id"))}
		e.Field = ptr(ID(r.ID(sz.FieldID, "field id")))
		e.Object = readTaggedObject(r, sz)
		if e.Kind == jdwp.EventFieldModification {
			v, err := readValue(r, sz)
			if err != nil {
				return err
			}
			e.Value = v
		}
	}
	return nil
}

func resolveEvent(e *Event, names Names) {
	if e.Thread != nil {
		e.ThreadName = names.ThreadName(uint64(*e.Thread))
	}
	if e.Location != nil {
		resolveLocation(e.Location, names)
	}
	if e.CatchLocation != nil {
		resolveLocation(e.CatchLocation, names)
	}
	if e.RefType != nil && e.RefType.Name == "" {
		e.RefType.Name = names.ClassName(uint64(e.RefType.ID))
	}
}

func readTaggedObject(r *wire.Reader, sz jdwp.IDSizes) *TaggedObject {
	tag := r.U1("object tag")
	return &TaggedObject{Tag: tagString(tag), ID: ID(r.ID(sz.ObjectID, "object id"))}
}

func tagString(tag uint8) string {
	if tag >= 0x21 && tag < 0x7f {
		return string(rune(tag))
	}
	return fmt.Sprintf("0x%02x", tag)
}

// readValue reads a tagged value (spec/jdwp.md §7: sizes by tag).
func readValue(r *wire.Reader, sz jdwp.IDSizes) (*Value, error) {
	tag := r.U1("value tag")
	v := &Value{Tag: tagString(tag)}
	switch tag {
	case 'B':
		v.Value = strconv.Itoa(int(int8(r.U1("byte value"))))
	case 'Z':
		v.Value = strconv.FormatBool(r.Bool("boolean value"))
	case 'C':
		v.Value = strconv.QuoteRune(rune(r.U2("char value")))
	case 'S':
		v.Value = strconv.Itoa(int(r.S2("short value")))
	case 'I':
		v.Value = strconv.Itoa(int(r.S4("int value")))
	case 'F':
		v.Value = strconv.FormatFloat(float64(math.Float32frombits(r.U4("float value"))), 'g', -1, 32)
	case 'J':
		v.Value = strconv.FormatInt(int64(r.U8("long value")), 10)
	case 'D':
		v.Value = strconv.FormatFloat(math.Float64frombits(r.U8("double value")), 'g', -1, 64)
	case 'V':
		v.Value = "void"
	case 'L', 's', 't', 'g', 'l', 'c', '[':
		v.Value = ID(r.ID(sz.ObjectID, "object value")).String()
	default:
		if r.Err() != nil {
			return v, nil // short data: the caller reports r's error
		}
		return v, fmt.Errorf("value tag %s: %w", v.Tag, ErrUndecodable)
	}
	return v, nil
}

// ClassNameFromSignature turns a JNI type signature into a Java name, as
// jdb prints it: "Ljava/lang/Thread;" → "java.lang.Thread", "[I" → "int[]".
// A hidden class (a lambda's, JDK 15+) has a '.' before its suffix in the
// signature, where its name has a '/': "LT$$Lambda.0x0800;" →
// "T$$Lambda/0x0800" (a '.' is never part of a class name's identifiers,
// so it can only be that separator). Anything else is returned as is.
func ClassNameFromSignature(sig string) string {
	dims := 0
	for dims < len(sig) && sig[dims] == '[' {
		dims++
	}
	base := sig[dims:]
	var name string
	switch {
	case len(base) >= 2 && base[0] == 'L' && base[len(base)-1] == ';':
		body := base[1 : len(base)-1]
		hidden := ""
		if i := strings.LastIndexByte(body, '.'); i >= 0 {
			body, hidden = body[:i], "/"+body[i+1:]
		}
		name = strings.ReplaceAll(body, "/", ".") + hidden
	case len(base) == 1:
		prim := map[byte]string{'Z': "boolean", 'B': "byte", 'C': "char", 'S': "short", 'I': "int",
			'J': "long", 'F': "float", 'D': "double", 'V': "void"}
		n, ok := prim[base[0]]
		if !ok {
			return sig
		}
		name = n
	default:
		return sig
	}
	return name + strings.Repeat("[]", dims)
}
