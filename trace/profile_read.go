package trace

import (
	"cmp"
	"io"
	"slices"
	"sync"
)

// recordBatch is how many records ReadProfile decodes at a time.
const recordBatch = 1024

// Build reads every record of rd into a profile. For a trace whose header
// is complete before the records (not streaming), decoding runs on its own
// goroutine, a few batches ahead of the profile, so two cores share the
// work; the result is the same as reading and profiling in turn.
func Build(rd *Reader, opt BuildOptions) (*Profile, error) {
	if !rd.hdr.Streaming && rd.v2 == nil {
		return buildPipelined(rd, opt)
	}
	b := NewProfileBuilder(rd.Header(), opt)
	b.part = rd.part
	b.ws = rd.Warnings()
	batch := make([]Record, recordBatch)
	for {
		n, err := rd.Read(batch)
		if n > 0 {
			if berr := b.Add(batch[:n]); berr != nil {
				return nil, berr
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	p := b.Finish()
	p.UnknownMethodIDs = rd.UnknownMethodIDs()
	return p, nil
}

// pipelineBatches is how many record batches are in flight between the
// decoding goroutine and the profile.
const pipelineBatches = 4

type decodedBatch struct {
	recs []Record
	n    int
	err  error
}

func buildPipelined(rd *Reader, opt BuildOptions) (*Profile, error) {
	if opt.OnCall == nil {
		return buildSharded(rd, opt)
	}
	b := NewProfileBuilder(rd.Header(), opt)
	b.part = rd.part
	free := make(chan []Record, pipelineBatches)
	full := make(chan decodedBatch, pipelineBatches)
	done := make(chan struct{})
	for range pipelineBatches {
		free <- make([]Record, recordBatch)
	}
	go func() {
		defer close(full)
		for {
			var recs []Record
			select {
			case recs = <-free:
			case <-done:
				return
			}
			n, err := rd.Read(recs)
			full <- decodedBatch{recs: recs, n: n, err: err}
			if err != nil {
				return
			}
		}
	}()
	stop := func() {
		close(done)
		for range full { // let the decoder finish its batch and exit
		}
	}
	for d := range full {
		if d.n > 0 {
			if err := b.Add(d.recs[:d.n]); err != nil {
				stop()
				return nil, err
			}
		}
		if d.err == io.EOF {
			break
		}
		if d.err != nil {
			stop()
			return nil, d.err
		}
		free <- d.recs
	}
	p := b.Finish()
	p.Warnings = mergeWarnings(rd.Warnings(), &p.Warnings)
	p.UnknownMethodIDs = rd.UnknownMethodIDs()
	return p, nil
}

// profileShards is how many goroutines profile a trace's threads (each
// thread belongs to one, in turn by first appearance).
const profileShards = 2

// buildSharded decodes on one goroutine and profiles on profileShards
// others, each owning every profileShards-th thread to appear: per-thread
// work needs nothing from other threads, and each goroutine's tables are
// half as large. The shards' threads and warnings are merged in file order,
// so the profile is the one a single builder makes. (Calls reported to
// OnCall would come out of order, so that option stays on one builder.)
func buildSharded(rd *Reader, opt BuildOptions) (*Profile, error) {
	type shardBatch struct {
		recs []Record
		n    int
	}
	var builders [profileShards]*ProfileBuilder
	var in [profileShards]chan shardBatch
	var free [profileShards]chan []Record
	var errs [profileShards]error
	done := make(chan struct{})
	var wg sync.WaitGroup
	for k := range builders {
		b := NewProfileBuilder(rd.Header(), opt)
		b.part = rd.part
		builders[k] = b
		in[k] = make(chan shardBatch, pipelineBatches)
		free[k] = make(chan []Record, pipelineBatches)
		for range pipelineBatches {
			free[k] <- make([]Record, recordBatch)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sb := range in[k] {
				if errs[k] == nil {
					errs[k] = b.Add(sb.recs[:sb.n])
				}
				free[k] <- sb.recs
			}
		}()
	}
	// Decode here, and deal each record to its thread's shard.
	batch := make([]Record, recordBatch)
	shardOf := make(map[uint32]int)
	var out [profileShards][]Record
	send := func(k int) bool {
		select {
		case in[k] <- shardBatch{recs: out[k], n: len(out[k])}:
			out[k] = nil
			return true
		case <-done:
			return false
		}
	}
	var readErr error
	lastThread, lastShard := uint32(0), -1
	for readErr == nil {
		n, err := rd.Read(batch)
		for i := range batch[:n] {
			r := &batch[i]
			k := lastShard
			if r.Thread != lastThread || k < 0 {
				var ok bool
				if k, ok = shardOf[r.Thread]; !ok {
					k = len(shardOf) % profileShards
					shardOf[r.Thread] = k
				}
				lastThread, lastShard = r.Thread, k
			}
			if out[k] == nil {
				out[k] = (<-free[k])[:0]
			}
			out[k] = append(out[k], *r)
			if len(out[k]) == recordBatch {
				send(k)
			}
		}
		if err != nil {
			if err != io.EOF {
				readErr = err
			}
			break
		}
	}
	for k := range out {
		if len(out[k]) > 0 {
			send(k)
		}
		close(in[k])
	}
	wg.Wait()
	close(done)
	if readErr != nil {
		return nil, readErr
	}
	// The first error in file order, as one builder would have stopped at.
	var first error
	var firstOff int64
	for _, err := range errs {
		if err == nil {
			continue
		}
		off := int64(-1)
		if fe, ok := err.(*FormatError); ok {
			off = fe.Offset
		}
		if first == nil || off < firstOff {
			first, firstOff = err, off
		}
	}
	if first != nil {
		return nil, first
	}
	m := NewProfileBuilder(rd.Header(), opt)
	m.part = rd.part
	ws := *rd.Warnings()
	for _, b := range builders {
		m.threads = append(m.threads, b.threads...)
		m.records += b.records
		ws = mergeWarnings(&ws, b.ws)
	}
	slices.SortStableFunc(m.threads, func(a, b *threadState) int { return cmp.Compare(a.firstAt, b.firstAt) })
	m.ws = &ws
	p := m.Finish()
	p.UnknownMethodIDs = rd.UnknownMethodIDs()
	return p, nil
}

// mergeWarnings combines two sets of warnings (the reader's and a
// profile's, or two profile shards') into one list in file order, keeping
// the first few of each kind as one set would: key warnings first, then
// data warnings by offset, r's first at equal offsets.
func mergeWarnings(r, b *Warnings) Warnings {
	out := Warnings{limit: r.limit}
	for k := range out.Counts {
		out.Counts[k] = r.Counts[k] + b.Counts[k]
	}
	out.List = make([]Warning, 0, len(r.List)+len(b.List))
	lim := out.limit
	if lim == 0 {
		lim = PerKindLimit
	}
	var kept [warnKinds]int
	keep := func(w Warning) {
		if int(w.Kind) < len(kept) && kept[w.Kind] < lim {
			kept[w.Kind]++
			out.List = append(out.List, w)
		}
	}
	i, j := 0, 0
	for i < len(r.List) || j < len(b.List) {
		switch {
		case j == len(b.List):
			keep(r.List[i])
			i++
		case i == len(r.List):
			keep(b.List[j])
			j++
		case r.List[i].Part != b.List[j].Part || r.List[i].Offset <= b.List[j].Offset:
			keep(r.List[i])
			i++
		default:
			keep(b.List[j])
			j++
		}
	}
	return out
}

// ReadProfile parses a trace file (key and data, or a streaming trace) and
// profiles it.
func ReadProfile(r io.Reader, opt BuildOptions) (*Profile, error) {
	rd, err := NewReader(r, opt.Limits)
	if err != nil {
		return nil, err
	}
	return Build(rd, opt)
}

// ReadProfileSplit profiles a trace whose key and data are separate files.
func ReadProfileSplit(key, data io.Reader, opt BuildOptions) (*Profile, error) {
	rd, err := NewSplitReader(key, data, opt.Limits)
	if err != nil {
		return nil, err
	}
	return Build(rd, opt)
}
