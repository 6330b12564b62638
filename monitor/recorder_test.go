package monitor

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/record"
)

// What a session pays per recorded input: a THST reply of 20 threads
// appended to the open block, and a block flushed (zstd) every 1,000.
func BenchmarkRecordChunk(b *testing.B) {
	tab := &ddm.ThreadStatusTable{}
	for i := range 20 {
		tab.Threads = append(tab.Threads, ddm.ThreadStatus{ID: uint32(i + 1), Status: 1, SysTID: uint32(1000 + i), UTime: uint32(i)})
	}
	raw := ddm.AppendMessage(nil, tab)
	c := ddm.Chunk{Type: ddm.TypeTHST, Data: raw[ddm.ChunkHeaderLen:]}
	r, err := NewRecorder(io.Discard, 0)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := range b.N {
		r.chunk(time.Now(), "local:8000", c)
		if i%1000 == 999 {
			r.Flush()
		}
	}
}

// The recorder writes what it is given, readable back in order; chunks of
// streamed data (HPDS, MPSE) are left out; a nil recorder records nothing.
func TestRecorderWrites(t *testing.T) {
	var buf bytes.Buffer
	r, err := NewRecorder(&buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	r.chunk(now, "k", ddm.Chunk{Type: ddm.TypeTHST, Data: []byte{1, 2}})
	r.chunk(now, "k", ddm.Chunk{Type: ddm.TypeHPDS, Data: []byte("hprof")})
	r.add(now.Add(time.Second), record.KindGone, "k", []byte("bye"))
	var nilRec *Recorder
	nilRec.chunk(now, "k", ddm.Chunk{Type: ddm.TypeTHST})
	if err := r.Flush(); err != nil {
		t.Fatal(err)
	}
	rec, err := ReadRecording(&buf)
	if err != nil || rec.Tail != nil || len(rec.Records) != 2 {
		t.Fatalf("%v %+v", err, rec)
	}
	if c := rec.Records[0]; c.Kind != record.KindChunk || string(c.Data) != "THST\x01\x02" || c.Key != "k" {
		t.Errorf("chunk record %+v", c)
	}
	if g := rec.Records[1]; g.Kind != record.KindGone || string(g.Data) != "bye" || g.Time-rec.Records[0].Time != time.Second {
		t.Errorf("gone record %+v", g)
	}
}
