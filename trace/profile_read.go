package trace

import (
	"io"
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
