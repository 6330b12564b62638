package simpleperf

import "io"

// Load runs on two goroutines: one reads the stream into batches of
// records, each sample with the bytes of the frames its thread's previous
// sample did not have (chainBytes), the other decodes those frames
// (chainMethods) and feeds the samples in order into the trees, so a load
// can take less than the plain decoding pass when a second core is free.
// Three batches circulate between them (a few MiB), so memory stays one
// stream position's worth.

// batchBytes and batchSamples bound a batch (a longer call chain than
// batchBytes still goes in, growing it).
const (
	batchBytes   = 1 << 20
	batchSamples = 1 << 12
	batchesOut   = 3
)

// batchSample is a sample of a batch: its first same frames from the root
// are its thread's previous sample's, the others are the entries
// raw[raw:rawEnd], leaf first, ending at ends[ends:endsEnd] (from raw).
type batchSample struct {
	thread         int32
	same           int32
	time           uint64
	eventCount     uint64
	raw, rawEnd    int32
	ends, endsEnd  int32
	record, offset int64 // for errors
}

// batch is a run of records, read, in stream order for the samples;
// the other records, rare, are kept by kind (their order does not matter
// to Load).
type batch struct {
	samples  []batchSample
	raw      []byte
	ends     []int32
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
	b.samples, b.raw, b.ends = b.samples[:0], b.raw[:0], b.ends[:0]
	b.lost, b.files, b.threads, b.meta = b.lost[:0], nil, b.threads[:0], b.meta[:0]
	b.switches, b.err, b.last = 0, nil, false
}

// decodeBatches reads rd to its end into batches taken from free and sent
// to full in stream order; the last batch has last set (and err when the
// stream is broken). It returns when the stream is read or stop closes.
func decodeBatches(rd *Reader, c *chainBytes, free <-chan *batch, full chan<- *batch, stop <-chan struct{}) {
	defer close(full)
	for {
		var b *batch
		select {
		case b = <-free:
		case <-stop:
			return
		}
		b.reset()
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
func fillBatch(rd *Reader, c *chainBytes, b *batch) {
	for len(b.samples) < batchSamples && len(b.raw) < batchBytes {
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
			same := c.split(rd)
			k := len(rd.chainEnds) - same
			bs := batchSample{thread: s.ThreadID, same: int32(same), time: s.Time, eventCount: s.EventCount,
				raw: int32(len(b.raw)), ends: int32(len(b.ends)), record: rd.Record(), offset: rd.Offset()}
			b.raw = append(b.raw, rd.chainBytes[:entryStart(rd.chainEnds, k)]...)
			b.ends = append(b.ends, rd.chainEnds[:k]...)
			bs.rawEnd, bs.endsEnd = int32(len(b.raw)), int32(len(b.ends))
			b.samples = append(b.samples, bs)
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
