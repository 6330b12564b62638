package viewtree

import (
	"math"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// Encoder writes a v2 stream as the framework's ViewHierarchyEncoder does:
// property ids from 1 in first-use order, and the index at the end
// (EndStream). The simulator dumps its windows with it.
type Encoder struct {
	w     wire.Writer
	ids   map[string]int16
	names []string
}

// NewEncoder starts a stream.
func NewEncoder() *Encoder { return &Encoder{ids: map[string]int16{}} }

func (e *Encoder) key(name string) {
	id, ok := e.ids[name]
	if !ok {
		id = int16(len(e.names) + 1)
		e.ids[name] = id
		e.names = append(e.names, name)
	}
	e.w.U1(tagShort)
	e.w.S2(id)
}

// BeginObject starts a map for an object: its class and identity hash.
func (e *Encoder) BeginObject(class string, hash uint32) {
	e.w.U1(tagMap)
	e.String("meta:__name__", class)
	e.Int("meta:__hash__", int32(hash))
}

// EndObject ends the current map.
func (e *Encoder) EndObject() {
	e.w.U1(tagShort)
	e.w.S2(0)
}

// Key writes a key whose value is the object (map) that follows
// (addPropertyKey).
func (e *Encoder) Key(name string) { e.key(name) }

// Bool adds a boolean property.
func (e *Encoder) Bool(name string, v bool) {
	e.key(name)
	e.w.U1(tagBool)
	e.w.Bool(v)
}

// Short adds a short property.
func (e *Encoder) Short(name string, v int16) {
	e.key(name)
	e.w.U1(tagShort)
	e.w.S2(v)
}

// Int adds an int property.
func (e *Encoder) Int(name string, v int32) {
	e.key(name)
	e.w.U1(tagInt)
	e.w.S4(v)
}

// Long adds a long property.
func (e *Encoder) Long(name string, v int64) {
	e.key(name)
	e.w.U1(tagLong)
	e.w.U8(uint64(v))
}

// Float adds a float property.
func (e *Encoder) Float(name string, v float32) {
	e.key(name)
	e.w.U1(tagFloat)
	e.w.U4(math.Float32bits(v))
}

// String adds a string property: UTF-8, cut at 32767 bytes as the
// framework cuts it.
func (e *Encoder) String(name, v string) {
	e.key(name)
	e.str(v)
}

func (e *Encoder) str(v string) {
	if len(v) > maxV2String {
		v = v[:maxV2String]
	}
	e.w.U1(tagString)
	e.w.U2(uint16(len(v)))
	e.w.B = append(e.w.B, v...)
}

// EndStream writes the property index and returns the stream.
func (e *Encoder) EndStream() []byte {
	e.w.U1(tagMap)
	e.String("__name__", "propertyIndex")
	for i, name := range e.names {
		e.w.U1(tagShort)
		e.w.S2(int16(i + 1))
		e.str(name)
	}
	e.EndObject()
	return e.w.B
}
