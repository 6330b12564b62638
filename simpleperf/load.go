package simpleperf

import (
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"github.com/ddmtui/ddmtui/trace"
	"github.com/ianlancetaylor/demangle"
)

// Profile is a loaded report-sample stream: the call trees of its samples
// (Trace, trace's model: ClockCPU counts samples, ClockWall sums event
// counts; see trace.Sampling) and what the stream said about itself.
type Profile struct {
	Trace           *trace.Profile
	Meta            MetaInfo
	Lost            Lost
	Threads         []Thread
	Files           int   // file records read
	ContextSwitches int64 // context-switch records (with --trace-offcpu)
	// Frames naming a file or symbol the stream never described: shown as
	// unknown (never dropped), counted here.
	UnknownFiles, UnknownSymbols int64
}

// LoadOptions configure Load.
type LoadOptions struct {
	Limits Limits
	// CallIndex keeps each thread's frames by time, for the call chart and
	// trees over a time range (the viewer asks for it; exports do not).
	CallIndex bool
	// MaxIndexCalls bounds the call index (0: trace.DefaultMaxIndexCalls);
	// past it the index is dropped (trace.Sampling.IndexDropped).
	MaxIndexCalls int
	// Progress, when set, is called every 64 Ki records with the bytes
	// read so far.
	Progress func(bytes int64)
}

// frameMethod interns frames as profile method indexes while samples
// arrive: a frame with a symbol is its (file, symbol), one without is its
// (file, address). Names are given at the end, when the files are known
// (report-sample writes them after the samples).
type frameMethod struct {
	bySymbol [][]int32 // [file id][symbol id] → method index + 1 (file ids below maxDenseFiles)
	other    map[frameKey]int32
	keys     []frameKey // by method index − firstMethod
	java     []bool
}

type frameKey struct {
	file   uint32
	symbol int32  // -1: by address
	vaddr  uint64 // when symbol is -1
}

// maxDenseFiles and maxDenseSymbols bound the dense lookup tables; frames
// past them go through the map.
const (
	maxDenseFiles   = 1 << 16
	maxDenseSymbols = 1 << 20
)

// firstMethod is the first method index of a frame (trace's TopLevel and
// Unknown come first).
const firstMethod = 2

func (fm *frameMethod) of(f *Frame) int32 {
	if f.SymbolID >= 0 && f.FileID < maxDenseFiles && f.SymbolID < maxDenseSymbols {
		for int(f.FileID) >= len(fm.bySymbol) {
			fm.bySymbol = append(fm.bySymbol, nil)
		}
		row := fm.bySymbol[f.FileID]
		if int(f.SymbolID) >= len(row) {
			row = append(row, make([]int32, int(f.SymbolID)+1-len(row))...)
			fm.bySymbol[f.FileID] = row
		}
		if m := row[f.SymbolID]; m > 0 {
			return m - 1
		}
		m := fm.add(frameKey{file: f.FileID, symbol: f.SymbolID}, f.Exec.Java())
		row[f.SymbolID] = m + 1
		return m
	}
	k := frameKey{file: f.FileID, symbol: f.SymbolID}
	if f.SymbolID < 0 {
		k.symbol, k.vaddr = -1, f.VAddr
	}
	if m, ok := fm.other[k]; ok {
		return m
	}
	if fm.other == nil {
		fm.other = map[frameKey]int32{}
	}
	m := fm.add(k, f.Exec.Java())
	fm.other[k] = m
	return m
}

func (fm *frameMethod) add(k frameKey, java bool) int32 {
	fm.keys = append(fm.keys, k)
	fm.java = append(fm.java, java)
	return int32(firstMethod + len(fm.keys) - 1)
}

// Load reads a whole stream into a Profile, a record at a time, on two
// goroutines (batch.go): memory is the trees (a node per distinct call
// path per thread), the interned frames, the symbol names of frames used,
// the reader's one record, each thread's previous call chain and the
// batches in flight. A Java method seen in several Java files is one
// method (FileSeparator).
//
// Documented skips: a sample with no call chain counts at its thread's
// top level; a sample whose time is before the previous one of its thread
// is placed at the previous time (counted in Sampling.Backward); a frame
// of a file or symbol never described is named as unknown and counted.
func Load(r io.Reader, opt LoadOptions) (*Profile, error) {
	rd, err := NewReader(r, opt.Limits)
	if err != nil {
		return nil, err
	}
	p := &Profile{}
	b := trace.NewSampleBuilder(trace.SampleOptions{CallIndex: opt.CallIndex, MaxDepth: rd.lim.MaxCallChain, MaxIndexCalls: opt.MaxIndexCalls})
	rd.rawChains = true
	var cb chainBytes
	var c chainMethods
	files := map[uint32]*File{}
	var origin uint64
	var samples int64
	free, full, stop := make(chan *batch, batchesOut), make(chan *batch, batchesOut), make(chan struct{})
	for range batchesOut {
		free <- &batch{}
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		decodeBatches(rd, &cb, free, full, stop)
	}()
	// Nothing outlives Load: on an error the reading goroutine is stopped
	// and waited for (it finishes the record it is reading).
	defer func() {
		close(stop)
		<-done
	}()
	var progressed, read int64
	for bt := range full {
		for i := range bt.samples {
			s := &bt.samples[i]
			if samples == 0 {
				origin = s.time
			}
			samples++
			at := uint64(0) // a sample before the first is placed at it, and counted by the builder
			if s.time >= origin {
				at = (s.time - origin) / 1000
			}
			st, err := c.stack(s.thread, int(s.same), bt.raw[s.raw:s.rawEnd], bt.ends[s.ends:s.endsEnd])
			if err != nil {
				return nil, &FormatError{Record: s.record, Offset: s.offset, What: KindSample.String(), Err: err}
			}
			b.AddRootFirst(uint32(s.thread), st, at, s.eventCount/1000, s.eventCount)
		}
		for _, l := range bt.lost {
			p.Lost.SampleCount += l.SampleCount
			p.Lost.LostCount += l.LostCount
		}
		for i := range bt.files {
			p.Files++
			files[bt.files[i].ID] = &bt.files[i]
		}
		p.Threads = append(p.Threads, bt.threads...)
		if n := len(bt.meta); n > 0 {
			p.Meta = bt.meta[n-1]
		}
		p.ContextSwitches += bt.switches
		if opt.Progress != nil && bt.records>>16 > progressed {
			progressed = bt.records >> 16
			opt.Progress(bt.bytes)
		}
		read = bt.bytes
		if bt.last {
			if bt.err != nil {
				return nil, bt.err
			}
			break
		}
		free <- bt
	}
	if opt.Progress != nil {
		opt.Progress(read)
	}
	fm := &c.fm
	methods := make([]trace.Method, firstMethod+len(fm.keys))
	java := make([]bool, len(methods))
	// A Java method is one frame however it ran: simpleperf names it in
	// the file its code came from (interpreted from base.apk, compiled in
	// [JIT app cache] or an .oat), so the methods of one name in several
	// Java files are mapped to the first, whose File lists them all.
	var same []int32
	byName := map[string]int32{}
	for i, k := range fm.keys {
		mi := int32(firstMethod + i)
		m := &methods[mi]
		f := files[k.file]
		name, known := frameName(f, k)
		if f == nil {
			p.UnknownFiles++
		} else if !known {
			p.UnknownSymbols++
		}
		m.Class = name
		if f != nil {
			m.File = f.Path
		}
		java[mi] = fm.java[i] || (f != nil && JavaFile(f.Path))
		if !java[mi] || f == nil || !known || k.symbol < 0 {
			continue
		}
		first, ok := byName[name]
		if !ok {
			byName[name] = mi
			continue
		}
		if same == nil {
			same = make([]int32, len(methods))
			for j := range same {
				same[j] = int32(j)
			}
		}
		same[mi] = first
		if fm := &methods[first]; !slices.Contains(strings.Split(fm.File, FileSeparator), m.File) {
			fm.File += FileSeparator + m.File
		}
	}
	info := trace.Sampling{Event: p.Meta.event(), Lost: p.Lost.LostCount, JavaMethods: java, Unit: "events"}
	if clockEvent(info.Event) {
		info.Unit, info.Scale = "µs", 1000
	}
	names := map[uint32]string{}
	for _, t := range p.Threads {
		names[uint32(t.ThreadID)] = t.Name
	}
	p.Trace = b.Finish(methods, info, func(id uint32) string { return names[id] })
	if same != nil {
		p.Trace = p.Trace.Remap(func(m int32) int32 { return same[m] })
	}
	return p, nil
}

// FileSeparator separates the files of a Java method seen in several
// (interpreted and JIT-compiled) in its trace.Method.File.
const FileSeparator = ", "

// event is the first event type recorded ("cpu-clock" when none is named,
// simpleperf's default).
func (m *MetaInfo) event() string {
	if len(m.EventTypes) == 0 {
		return "cpu-clock"
	}
	return m.EventTypes[0]
}

// clockEvent reports whether an event's counts are nanoseconds.
func clockEvent(e string) bool {
	e, _, _ = strings.Cut(e, ":")
	return e == "cpu-clock" || e == "task-clock"
}

// frameName names a frame: its symbol, demangled where simpleperf gave a
// mangled one; else BASENAME+0xVADDR (as Android Studio names it). known
// is false when the frame's symbol id is past the file's table.
func frameName(f *File, k frameKey) (string, bool) {
	if f == nil {
		return fmt.Sprintf("[unknown file %d]+0x%x", k.file, k.vaddr), false
	}
	if k.symbol >= 0 {
		if int(k.symbol) < len(f.Symbols) {
			return Demangle(f.Symbols[k.symbol]), true
		}
		return fmt.Sprintf("%s+[unknown symbol %d]", path.Base(f.Path), k.symbol), false
	}
	return fmt.Sprintf("%s+0x%x", path.Base(f.Path), k.vaddr), true
}

// Demangle returns a C++ (Itanium ABI) or Rust symbol demangled, or s
// itself when it is not mangled.
func Demangle(s string) string {
	if !strings.HasPrefix(s, "_Z") && !strings.HasPrefix(s, "_R") {
		return s
	}
	return demangle.Filter(s)
}

// JavaFile reports whether frames of the file at path run Java code: an
// app's or the boot class path's dex, oat, odex, vdex, art image or jar,
// and the JIT code cache.
func JavaFile(p string) bool {
	if strings.HasPrefix(p, "[JIT") || strings.Contains(p, "dalvik-jit-code-cache") {
		return true
	}
	for _, ext := range []string{".apk", ".dex", ".odex", ".vdex", ".oat", ".art", ".jar"} {
		if strings.HasSuffix(p, ext) || strings.Contains(p, ext+"!") {
			return true
		}
	}
	return false
}
