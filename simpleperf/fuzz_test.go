package simpleperf

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/trace"
)

// FuzzLoad: any input loads or fails with a *FormatError, never panics,
// and what loads is consistent: each thread's root weighs its samples and
// its children's weights never exceed it. Seeds: testdata/fuzz/FuzzLoad
// and the ones added here.
func FuzzLoad(f *testing.F) {
	v, _ := hex.DecodeString(vectorHex)
	f.Add(v)
	var buf bytes.Buffer
	Gen(&buf, GenOptions{Threads: 2, Duration: 20 * time.Millisecond, Frequency: 1000, Depth: 6, Stacks: 3, OffCPU: true})
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:buf.Len()/2])
	f.Fuzz(func(t *testing.T, b []byte) {
		lim := Limits{MaxRecord: 1 << 20, MaxCallChain: 1 << 12, MaxSymbols: 1 << 12}
		p, err := Load(bytes.NewReader(b), LoadOptions{CallIndex: true, Limits: lim})
		// Load decodes only the frames a thread's previous sample did not
		// have: it fails where the plain decoder does, at the same record.
		frames, plain := decodeLimited(bytes.NewReader(b), lim)
		var fe, pe *FormatError
		if (err == nil) != (plain == nil) || (err != nil && (!errors.As(plain, &pe) || !errors.As(err, &fe) || fe.Record != pe.Record)) {
			t.Fatalf("Load: %v; plain decoding: %v", err, plain)
		}
		if err != nil {
			return
		}
		var loaded uint64
		for _, th := range p.Trace.Threads {
			th.Tree.Walk(func(n int32, depth int) bool {
				loaded += th.Tree.Self(n, trace.ClockCPU) * uint64(depth)
				return true
			})
		}
		if p.Trace.Sampling.Truncated == 0 && loaded != uint64(frames) {
			t.Fatalf("%d frames in the trees, %d decoded", loaded, frames)
		}
		var samples int64
		for _, th := range p.Trace.Threads {
			tr := th.Tree
			samples += th.Records
			if tr.Inclusive(0, trace.ClockCPU) != uint64(th.Records) {
				t.Fatalf("thread %d: root %d samples of %d", th.ID, tr.Inclusive(0, 0), th.Records)
			}
			var sum uint64
			for c := range tr.Children(0) {
				sum += tr.Inclusive(c, trace.ClockCPU)
			}
			if sum > uint64(th.Records) {
				t.Fatalf("thread %d: children %d samples of %d", th.ID, sum, th.Records)
			}
		}
		if samples != p.Trace.Sampling.Samples {
			t.Fatalf("threads %d samples, profile %d", samples, p.Trace.Sampling.Samples)
		}
	})
}

// FuzzFrame: the straight-line decoder of a call chain entry agrees with
// the general one (protowire's, field by field) on any bytes: the same
// frame, or an error from both.
func FuzzFrame(f *testing.F) {
	for _, e := range [][]byte{
		{0x08, 0x80, 0x40, 0x10, 0x01, 0x18, 0x05},                                                             // vaddr, file, symbol
		{0x08, 0x01, 0x10, 0x02, 0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x20, 0x02}, // symbol −1, execution type
		{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, 0x10, 0x00, 0x18, 0x00},             // a 10-byte address
		{0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x10, 0x00, 0x18, 0x00},             // a varint past 64 bits
		{0x08, 0x80, 0x80, 0x10, 0x00, 0x18, 0x00},                                                             // a varint cut short
		{0x10, 0x01, 0x08, 0x02, 0x18, 0x03},                                                                   // fields out of order
		{0x08, 0x01, 0x10, 0x02, 0x18, 0x03, 0x2a, 0x00},                                                       // an unknown field
	} {
		f.Add(e)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var got Frame
		err := decodeFrame(&got, b)
		want, werr := decodeFrameFields(b)
		if (err == nil) != (werr == nil) || (err == nil && got != want) {
			t.Fatalf("% x: straight line %+v, %v; general %+v, %v", b, got, err, want, werr)
		}
	})
}
