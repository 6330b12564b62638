package ddm

import (
	"encoding/hex"
	"runtime"
	"strings"
)

// hx turns hex written field by field ("00 00 00 01", "01 FF") into bytes.
// It panics on malformed hex: the vectors are constants of the test.
func hx(fields ...string) []byte {
	s := strings.Join(fields, "")
	s = strings.NewReplacer(" ", "", "\n", "", "\t", "").Replace(s)
	b, err := hex.DecodeString(s)
	if err != nil {
		panic("bad hex in test vector: " + err.Error())
	}
	return b
}

// direction says which table decodes a vector.
type direction int

const (
	monitorToVM direction = iota // a request: DecodeFromMonitor
	vmToMonitor                  // a reply or unsolicited chunk: DecodeFromVM
)

func (d direction) String() string {
	if d == monitorToVM {
		return "M→V"
	}
	return "V→M"
}

func decodeIn(d direction, c Chunk) (Message, error) {
	if d == monitorToVM {
		return DecodeFromMonitor(c)
	}
	return DecodeFromVM(c)
}

// runtimeMem samples the bytes allocated so far by the whole program.
type runtimeMem struct{ bytes uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.bytes = s.TotalAlloc
}

// plain returns m without what validation adds beyond the wire value (a
// segment's Summary), for comparisons with reflect.DeepEqual.
func plain(m any) any {
	if s, ok := m.(*HeapSegment); ok && s != nil {
		c := *s
		c.sum, c.summed = SegmentSummary{}, false
		return &c
	}
	return m
}
