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
		p, err := Load(bytes.NewReader(b), LoadOptions{CallIndex: true, Limits: Limits{MaxRecord: 1 << 20, MaxCallChain: 1 << 12, MaxSymbols: 1 << 12}})
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v is not a *FormatError", err)
			}
			return
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
