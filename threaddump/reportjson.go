package threaddump

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"sync"
)

// WriteJSON writes r exactly as a json.Encoder with SetIndent("", "  ") and
// SetEscapeHTML(false) would (the text `ddmtui anr --json` prints), but
// streams the large arrays (processes, and each process's threads, lock
// graph, deadlocks and CPU ranking) an element at a time: the text of a
// dump with 100,000 threads is several times the dump, and is never held.
func (r *Report) WriteJSON(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	shell := *r
	var arrays []streamedArray
	if len(r.Processes) > 0 {
		shell.Processes = nil
		arrays = append(arrays, streamedArray{"processes", len(r.Processes), func(w *bufio.Writer, i int, prefix string) error {
			return r.Processes[i].writeJSON(w, prefix)
		}})
	}
	if err := writeObject(bw, &shell, "", arrays); err != nil {
		return err
	}
	if err := bw.WriteByte('\n'); err != nil {
		return err
	}
	return bw.Flush()
}

func (p *ProcessReport) writeJSON(w *bufio.Writer, prefix string) error {
	shell := *p
	shell.lazyThreads = nil
	var arrays []streamedArray
	switch {
	case p.lazyN > 0:
		arrays = append(arrays, streamedArray{"threads", p.lazyN, func(w *bufio.Writer, i int, prefix string) error {
			return writeValue(w, p.lazyThreads(i), prefix)
		}})
	case len(p.Threads) > 0:
		shell.Threads = nil
		arrays = append(arrays, elements("threads", p.Threads))
	}
	if len(p.LockGraph) > 0 {
		shell.LockGraph = nil
		arrays = append(arrays, elements("lock_graph", p.LockGraph))
	}
	if len(p.Deadlocks) > 0 {
		shell.Deadlocks = nil
		arrays = append(arrays, streamedArray{"deadlocks", len(p.Deadlocks), func(w *bufio.Writer, i int, prefix string) error {
			if len(p.Deadlocks[i]) == 0 {
				return writeValue(w, p.Deadlocks[i], prefix)
			}
			return writeArray(w, prefix, elements("", p.Deadlocks[i]))
		}})
	}
	if len(p.CPURanking) > 0 {
		shell.CPURanking = nil
		arrays = append(arrays, elements("cpu_ranking", p.CPURanking))
	}
	return writeObject(w, &shell, prefix, arrays)
}

// streamedArray is a non-empty array field written an element at a time.
type streamedArray struct {
	key  string
	n    int
	elem func(w *bufio.Writer, i int, prefix string) error
}

func elements[T any](key string, s []T) streamedArray {
	return streamedArray{key, len(s), func(w *bufio.Writer, i int, prefix string) error {
		return writeValue(w, s[i], prefix)
	}}
}

// writeValue writes v as the encoder would at the nesting given by prefix
// (the indentation of the line v starts on), without a trailing newline.
func writeValue(w *bufio.Writer, v any, prefix string) error {
	e := valueEncoders.Get().(*valueEncoder)
	defer valueEncoders.Put(e)
	e.buf.Reset()
	e.enc.SetIndent(prefix, "  ")
	if err := e.enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(bytes.TrimSuffix(e.buf.Bytes(), []byte("\n")))
	return err
}

// valueEncoder is an encoder over its own buffer, reused from element to
// element: an Encoder keeps its indentation buffer, so writing 100,000
// threads makes a few buffers the size of the largest, not a new pair each.
type valueEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

var valueEncoders = sync.Pool{New: func() any {
	e := &valueEncoder{}
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

// writeObject writes shell, whose streamed array fields are nil (encoded
// as null), and writes each of those arrays in the place of its null. Keys
// are fixed and string values escape their quotes, so `"key": null` at the
// start of a field line is that field.
func writeObject(w *bufio.Writer, shell any, prefix string, arrays []streamedArray) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(shell); err != nil {
		return err
	}
	text := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	type place struct {
		at int
		a  streamedArray
	}
	places := make([]place, 0, len(arrays))
	for _, a := range arrays {
		marker := []byte("\n" + prefix + "  \"" + a.key + "\": null")
		at := bytes.Index(text, marker)
		if at < 0 {
			return fmt.Errorf("threaddump: JSON field %q not found", a.key)
		}
		places = append(places, place{at + len(marker) - len("null"), a})
	}
	sort.Slice(places, func(i, j int) bool { return places[i].at < places[j].at })
	from := 0
	for _, pl := range places {
		if _, err := w.Write(text[from:pl.at]); err != nil {
			return err
		}
		if err := writeArray(w, prefix+"  ", pl.a); err != nil {
			return err
		}
		from = pl.at + len("null")
	}
	_, err := w.Write(text[from:])
	return err
}

// writeArray writes a non-empty array whose opening bracket ends a line
// indented by prefix.
func writeArray(w *bufio.Writer, prefix string, a streamedArray) error {
	inner := prefix + "  "
	if _, err := w.WriteString("["); err != nil {
		return err
	}
	for i := 0; i < a.n; i++ {
		sep := "\n"
		if i > 0 {
			sep = ",\n"
		}
		if _, err := w.WriteString(sep + inner); err != nil {
			return err
		}
		if err := a.elem(w, i, inner); err != nil {
			return err
		}
	}
	_, err := w.WriteString("\n" + prefix + "]")
	return err
}
