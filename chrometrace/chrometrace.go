// Package chrometrace writes Chrome trace-event JSON: the JSON Object Format
// of the Trace Event Format, which Perfetto and chrome://tracing open. It is
// the one writer of that document: trace's method-call export
// (trace.ChromeWriter) and the recording export (`ddmtui replay --chrome`)
// both emit their events through a Writer, which owns the document's frame
// (displayTimeUnit, otherData, the traceEvents array and its separators),
// buffering and the first write error. It imports only the standard
// library.
package chrometrace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/ddmtui/ddmtui/internal/iocount"
)

// Event is one trace event, for producers that build events as values
// (Writer.Event encodes it with encoding/json). Ts and Dur are
// microseconds.
type Event struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  *float64       `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  uint64         `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// Writer writes one document, event by event. After the first error it
// writes nothing more; Close returns that error.
type Writer struct {
	cnt    iocount.Writer
	bw     *bufio.Writer
	events int
	err    error
	buf    bytes.Buffer
	enc    *json.Encoder
}

// NewWriter starts a document on w. otherData, when not nil, is a JSON
// object written as the document's "otherData" (producer, clock, …).
func NewWriter(w io.Writer, otherData []byte) *Writer {
	cw := &Writer{cnt: iocount.Writer{W: w}}
	cw.bw = bufio.NewWriterSize(&cw.cnt, 1<<16)
	cw.enc = json.NewEncoder(&cw.buf)
	cw.bw.WriteString(`{"displayTimeUnit":"ms",`)
	if otherData != nil {
		cw.bw.WriteString(`"otherData":`)
		cw.bw.Write(otherData)
		cw.bw.WriteByte(',')
	}
	cw.bw.WriteString("\"traceEvents\":[\n")
	return cw
}

// Raw appends one event already encoded as a JSON object (for producers
// that write many events and encode them by hand).
func (cw *Writer) Raw(obj []byte) {
	if cw.err != nil {
		return
	}
	if cw.events > 0 {
		cw.bw.WriteString(",\n")
	}
	cw.events++
	if _, err := cw.bw.Write(obj); err != nil {
		cw.err = err
	}
}

// Event appends e.
func (cw *Writer) Event(e Event) {
	if cw.err != nil {
		return
	}
	cw.buf.Reset()
	if err := cw.enc.Encode(e); err != nil {
		cw.err = err
		return
	}
	cw.Raw(bytes.TrimSuffix(cw.buf.Bytes(), []byte("\n")))
}

// Events is how many events were written.
func (cw *Writer) Events() int { return cw.events }

// Close ends the document and flushes it; it returns the bytes written to
// w and the first error.
func (cw *Writer) Close() (int64, error) {
	if cw.err == nil {
		cw.bw.WriteString("\n]}\n")
		cw.err = cw.bw.Flush()
	}
	return cw.cnt.N, cw.err
}
