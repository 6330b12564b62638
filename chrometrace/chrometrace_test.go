package chrometrace

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
)

// The document's bytes, exactly: the frame, the separators, an encoded
// Event (no HTML escaping needed, omitted fields left out) and a Raw one.
func TestWriterBytes(t *testing.T) {
	var b bytes.Buffer
	w := NewWriter(&b, []byte(`{"producer":"p"}`))
	d := 2.5
	w.Event(Event{Name: "a<b", Ph: "X", Ts: 1, Dur: &d, Pid: 7, Tid: 3})
	w.Raw([]byte(`{"name":"m","ph":"M","pid":7,"tid":0}`))
	w.Event(Event{Name: "c", Cat: "k", Ph: "C", Ts: 0.5, Pid: 7, Args: map[string]any{"v": 1}})
	n, err := w.Close()
	want := `{"displayTimeUnit":"ms","otherData":{"producer":"p"},"traceEvents":[
{"name":"a\u003cb","ph":"X","ts":1,"dur":2.5,"pid":7,"tid":3},
{"name":"m","ph":"M","pid":7,"tid":0},
{"name":"c","cat":"k","ph":"C","ts":0.5,"pid":7,"tid":0,"args":{"v":1}}
]}
`
	if err != nil || b.String() != want || n != int64(len(want)) || w.Events() != 3 {
		t.Fatalf("%d bytes, %d events, %v:\n%s\nwant\n%s", n, w.Events(), err, b.String(), want)
	}
	var doc struct {
		TraceEvents []Event `json:"traceEvents"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || len(doc.TraceEvents) != 3 || doc.TraceEvents[0].Name != "a<b" {
		t.Fatalf("round trip: %+v, %v", doc, err)
	}
}

// A document without events or otherData is still valid JSON.
func TestWriterEmpty(t *testing.T) {
	var b bytes.Buffer
	n, err := NewWriter(&b, nil).Close()
	const want = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n\n]}\n"
	if err != nil || b.String() != want || n != int64(len(want)) || !json.Valid(b.Bytes()) {
		t.Fatalf("%q (%d bytes, %v)", b.String(), n, err)
	}
}

type failAfter struct {
	n   int
	err error
}

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, f.err
	}
	f.n -= len(p)
	return len(p), nil
}

// The first write error is Close's, with the bytes that did reach w; an
// unencodable Event is an error too.
func TestWriterErrors(t *testing.T) {
	boom := errors.New("disk full")
	fw := &failAfter{n: 100, err: boom}
	w := NewWriter(fw, nil)
	big := bytes.Repeat([]byte("x"), 1<<17)
	w.Raw(append(append([]byte(`{"name":"`), big...), `"}`...))
	w.Event(Event{Name: "after"})
	// The failed Raw is the last event counted: nothing is appended after
	// the first error.
	if w.Events() != 1 {
		t.Fatalf("Events after a failed write = %d, want 1", w.Events())
	}
	if n, err := w.Close(); !errors.Is(err, boom) || n != 100 {
		t.Fatalf("Close = %d, %v; want 100, %v", n, err, boom)
	}
	w = NewWriter(&bytes.Buffer{}, nil)
	w.Event(Event{Name: "bad", Args: map[string]any{"f": func() {}}})
	w.Event(Event{Name: "next"})
	if _, err := w.Close(); err == nil || w.Events() != 0 {
		t.Fatalf("an unencodable event: %v, %d events", err, w.Events())
	}
}
