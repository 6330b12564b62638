package simpleperf

import "io"

// Load runs on two goroutines: one reads and decodes the stream into
// batches of records (decoding is most of a load's work), the other feeds
// them in order into the trees, so a load takes about as long as the
// plain decoding pass when a second core is free. Three batches circulate
// between them (a few MiB), so memory stays one stream position's worth.

// batchMethods and batchSamples bound a batch (a longer call chain
// than batchMethods still goes in, growing it).
const (
	batchMethods = 1 << 17
	batchSamples = 1 << 12
	batchesOut   = 3
)

// batchSample is a sample of a batch, its stack methods[start:end], root
// first.
type batchSample struct {
	thread     int32
	time       uint64
	eventCount uint64
	start, end int32
}

// batch is a run of records, decoded, in stream order for the samples;
// the other records, rare, are kept by kind (their order does not matter
// to Load).
type batch struct {
	samples  []batchSample
	methods  []int32
	lost     []Lost
	files    []File
	threads  []Thread
	meta     []MetaInfo
	switches int64
	records  int64 // records read before the batch's end, the stream's count
	bytes    int64 // stream bytes consumed by then
	err      error // the stream's end (nil) or what broke it, after the batch's records
	last     bool
}

func (b *batch) reset() {
	b.samples, b.methods = b.samples[:0], b.methods[:0]
	b.lost, b.files, b.threads, b.meta = b.lost[:0], nil, b.threads[:0], b.meta[:0]
	b.switches, b.err, b.last = 0, nil, false
}

// decodeBatches reads rd to its end into batches taken from free and sent
// to full in stream order; the last batch has last set (and err when the
// stream is broken). It returns when the stream is read or stop closes.
func decodeBatches(rd *Reader, c *chains, free <-chan *batch, full chan<- *batch, stop <-chan struct{}) {
	defer close(full)
	for {
		var b *batch
		select {
		case b = <-free:
		case <-stop:
			return
		}
		b.reset()
		if cap(b.methods) == 0 {
			b.methods = make([]int32, 0, batchMethods)
			b.samples = make([]batchSample, 0, batchSamples)
		}
		fillBatch(rd, c, b)
		select {
		case full <- b:
		case <-stop:
			return
		}
		if b.last {
			return
		}
	}
}

// fillBatch decodes records into b until it is full or the stream ends.
func fillBatch(rd *Reader, c *chains, b *batch) {
	for len(b.samples) < batchSamples && len(b.methods) < batchMethods {
		k, err := rd.Next()
		b.records, b.bytes = rd.Record(), rd.BytesRead()
		if err != nil {
			if err != io.EOF {
				b.err = err
			}
			b.last = true
			return
		}
		switch k {
		case KindSample:
			s := &rd.Sample
			off := len(b.methods)
			if b.methods, err = c.methods(rd, b.methods); err != nil {
				b.err, b.last = rd.fail(KindSample.String(), err), true
				return
			}
			b.samples = append(b.samples, batchSample{thread: s.ThreadID, time: s.Time, eventCount: s.EventCount, start: int32(off), end: int32(len(b.methods))})
		case KindLost:
			b.lost = append(b.lost, rd.Lost)
		case KindFile:
			b.files = append(b.files, rd.File)
		case KindThread:
			b.threads = append(b.threads, rd.Thread)
		case KindMeta:
			b.meta = append(b.meta, rd.Meta)
		case KindContextSwitch:
			b.switches++
		}
	}
}
