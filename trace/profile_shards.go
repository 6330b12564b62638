package trace

import (
	"cmp"
	"encoding/binary"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// profileShards is how many goroutines profile a trace's threads (each
// thread belongs to one, in turn by first appearance).
const profileShards = 2

// Raw record chunks handed to the shards: chunkRecords records each, and
// chunksInFlight of them between the reading goroutine and the shards.
const (
	chunkRecords   = 8192
	chunksInFlight = 6
)

// collectAfterRecords is the trace size (records) from which buildSharded
// collects garbage between the shards and the merge.
const collectAfterRecords = 1 << 20

// buildSharded profiles a trace of fixed-size records (versions 1–3, not
// streaming) on profileShards goroutines. The calling goroutine only reads:
// it fills chunks of raw records and checks their method ids (so that
// unknown ids are warned about in file order, as the Reader does). Every
// shard sees every chunk, decodes the records of its own threads (every
// profileShards-th thread to appear) and profiles them; per-thread work
// needs nothing from other threads, and each shard's tables are half as
// large. When the records end, the threads' profiles and trees are built
// on profileShards goroutines, largest first (finishThreads). The
// threads and warnings are then merged in file order, so the profile is
// the one a single builder makes. (Calls reported to OnCall would come out
// of order, so that option stays on one builder.)
func buildSharded(rd *Reader, opt BuildOptions) (*Profile, error) {
	rs := rd.hdr.RecordSize
	lay := recordLayout{size: rs, methodAt: 2, timeAt: 6, dual: rd.dual, timeField: rd.timeField}
	if rs == recordSizeV1 && rd.hdr.DataVersion == 1 {
		lay.methodAt, lay.timeAt, lay.thread8 = 1, 5, true
	}
	var shards [profileShards]*shard
	var wg sync.WaitGroup
	for k := range shards {
		b := NewProfileBuilder(rd.Header(), opt)
		b.part = rd.part
		s := &shard{k: k, b: b, lay: lay, methods: rd.methods, in: make(chan rawChunk, chunksInFlight), free: make(chan []byte, chunksInFlight)}
		shards[k] = s
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.run()
		}()
	}
	// Read here: each chunk goes to every shard, and is reused when every
	// shard has handed it back (they do so in the order they got them).
	made := 0
	carry := 0 // bytes of a partial record at the end of the input
	// The header may have been read to the end of the input already.
	eof := rd.src.err != nil
	readErr := rd.src.readErr()
	zeros := 0
	for {
		var buf []byte
		if made < chunksInFlight {
			buf = make([]byte, chunkRecords*rs)
			made++
		} else {
			for k := range shards {
				buf = <-shards[k].free
			}
		}
		// First what the header left in the Reader's buffer (it may hold
		// several chunks, and the end of the input), then straight from
		// the input. Only the input's end leaves a chunk short.
		off := rd.src.off
		n := copy(buf, rd.src.buffered())
		rd.src.consume(n)
		for n < len(buf) && !eof {
			m, err := rd.src.r.Read(buf[n:])
			n += m
			switch {
			case err == io.EOF:
				eof = true
			case err != nil:
				readErr, eof = err, true
			case m == 0:
				// A reader returning 0, nil repeatedly is broken.
				if zeros++; zeros > 1 {
					readErr, eof = io.ErrNoProgress, true
				}
			default:
				zeros = 0
			}
		}
		whole := n / rs * rs
		carry = n - whole
		rd.src.off = off + int64(whole) // the partial record is warned about below
		if readErr == nil {
			rd.checkMethods(buf[:whole], off, lay)
		}
		if whole > 0 && readErr == nil {
			for _, s := range shards {
				s.in <- rawChunk{b: buf[:whole], off: off}
			}
		}
		if eof && len(rd.src.buffered()) == 0 {
			break
		}
	}
	for _, s := range shards {
		close(s.in)
	}
	wg.Wait()
	finishThreads(shards[:])
	if records := int64(0); true {
		for _, s := range shards {
			records += s.b.records
		}
		if records >= collectAfterRecords {
			// The shards' working tables, most of the heap, are garbage
			// now: collected before the merge allocates, they leave the
			// peak near the live size (a few ms for a third less peak
			// on the 10 M-record anchor trace).
			runtime.GC()
		}
	}
	if readErr != nil {
		rd.err = readErr
		return nil, readErr
	}
	if carry > 0 {
		rd.warn(WarnTruncatedData, rd.src.off, "data ends %d bytes into a %d-byte record; the partial record is ignored", carry, rs)
		rd.src.off += int64(carry)
	}
	rd.done = true
	// The first error in file order, as one builder would have stopped at.
	var first error
	var firstOff int64
	for _, s := range shards {
		if s.err == nil {
			continue
		}
		off := int64(-1)
		if fe, ok := s.err.(*FormatError); ok {
			off = fe.Offset
		}
		if first == nil || off < firstOff {
			first, firstOff = s.err, off
		}
	}
	if first != nil {
		return nil, first
	}
	m := NewProfileBuilder(rd.Header(), opt)
	m.part = rd.part
	ws := *rd.Warnings()
	for _, s := range shards {
		m.threads = append(m.threads, s.b.threads...)
		m.records += s.b.records
		ws = mergeWarnings(&ws, s.b.ws)
	}
	slices.SortStableFunc(m.threads, func(a, b *threadState) int { return cmp.Compare(a.firstAt, b.firstAt) })
	m.ws = &ws
	p := m.Finish()
	p.UnknownMethodIDs = rd.UnknownMethodIDs()
	return p, nil
}

// recordLayout is where the fields of a fixed-size record are.
type recordLayout struct {
	size      int
	thread8   bool // a one-byte thread id (version 1), else two bytes
	methodAt  int
	timeAt    int
	dual      bool
	timeField Clock // where a single time goes
}

type rawChunk struct {
	b   []byte // whole records
	off int64  // file offset of b[0]
}

// checkMethods resolves the method ids of the records in b that are not in
// the key, for their warnings (file order, once per id).
func (rd *Reader) checkMethods(b []byte, off int64, lay recordLayout) {
	mt := rd.methods
	dense, base := mt.dense, mt.base
	for p := 0; p+lay.size <= len(b); p += lay.size {
		id := binary.LittleEndian.Uint32(b[p+lay.methodAt:]) &^ 3
		if s := (id - base) >> 2; s < uint32(len(dense)) && dense[s] >= 0 {
			continue
		}
		if mt.lookup(id) < 0 {
			rd.resolve(id, off+int64(p))
		}
	}
}

// shard profiles the threads that fall to it, from raw chunks.
type shard struct {
	k       int
	b       *ProfileBuilder
	lay     recordLayout
	methods *methodTable
	in      chan rawChunk
	free    chan []byte
	err     error
	// owner of each thread id seen: 0 none yet, else 1 + its shard.
	owner [1 << 16]uint8
	seen  int
}

func (s *shard) run() {
	for c := range s.in {
		if s.err == nil {
			s.err = s.profile(c)
		}
		s.free <- c.b[:cap(c.b)]
	}
	if s.err != nil {
		return
	}
	s.b.closeOpen()
}

// finishThreads builds the threads' profiles and lays out their trees once
// every shard has read its records: the largest first, on profileShards
// goroutines taking the next thread as they are free, so that the shards'
// shares of the work need not be even. A shard that failed is left out.
func finishThreads(shards []*shard) {
	var threads []*threadState
	for _, s := range shards {
		if s.err == nil {
			threads = append(threads, s.b.threads...)
		}
	}
	size := func(ts *threadState) int64 {
		if ts.tree != nil {
			return int64(ts.tree.Len())
		}
		return ts.records
	}
	slices.SortStableFunc(threads, func(a, b *threadState) int { return cmp.Compare(size(b), size(a)) })
	var next atomic.Int32
	var wg sync.WaitGroup
	for range min(profileShards, len(threads)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var layout layoutBuffer
			for {
				i := int(next.Add(1)) - 1
				if i >= len(threads) {
					return
				}
				threads[i].finish(&layout)
			}
		}()
	}
	wg.Wait()
}

// profile decodes and profiles the records of the shard's threads in c.
func (s *shard) profile(c rawChunk) error {
	lay := s.lay
	mt := s.methods
	dense, base := mt.dense, mt.base
	b := s.b
	lastThread, mine := uint32(0), false
	haveLast := false
	var n int64
	for p := 0; p+lay.size <= len(c.b); p += lay.size {
		r := c.b[p : p+lay.size]
		var th uint32
		if lay.thread8 {
			th = uint32(r[0])
		} else {
			th = uint32(binary.LittleEndian.Uint16(r))
		}
		if th != lastThread || !haveLast {
			o := s.owner[th]
			if o == 0 {
				o = uint8(1 + s.seen%profileShards)
				s.owner[th] = o
				s.seen++
			}
			lastThread, mine, haveLast = th, int(o-1) == s.k, true
		}
		if !mine {
			continue
		}
		w := binary.LittleEndian.Uint32(r[lay.methodAt:])
		id := w &^ 3
		m := int32(-1)
		if i := (id - base) >> 2; i < uint32(len(dense)) {
			m = dense[i]
		} else {
			m = mt.lookup(id)
		}
		if m < 0 {
			m = Unknown
		} else {
			m += firstKeyMethod
		}
		var t [2]uint64
		if lay.dual {
			t = [2]uint64{uint64(binary.LittleEndian.Uint32(r[lay.timeAt:])), uint64(binary.LittleEndian.Uint32(r[lay.timeAt+4:]))}
		} else {
			t[lay.timeField] = uint64(binary.LittleEndian.Uint32(r[lay.timeAt:]))
		}
		n++
		if err := b.add(th, m, t, Action(w&3), c.off+int64(p)); err != nil {
			b.records += n
			return err
		}
	}
	b.records += n
	return nil
}
