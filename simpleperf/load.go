package simpleperf

import (
	"fmt"
	"io"
	"path"
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
	last     map[int32]*lastStack // by thread
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

// lastStack is a thread's previous call chain and its methods, root
// first, so that the frames a sample shares with the one before (most of
// them) need no lookup.
type lastStack struct {
	frames  []Frame
	methods []int32
}

// sameFrame: two frames are the same method.
func sameFrame(a, b *Frame) bool {
	return a.FileID == b.FileID && a.SymbolID == b.SymbolID && (a.SymbolID >= 0 || a.VAddr == b.VAddr)
}

// stack returns s's call chain as methods, leaf first, in buf.
func (fm *frameMethod) stack(s *Sample, buf []int32) []int32 {
	if fm.last == nil {
		fm.last = map[int32]*lastStack{}
	}
	ls := fm.last[s.ThreadID]
	if ls == nil {
		ls = &lastStack{}
		fm.last[s.ThreadID] = ls
	}
	n := len(s.Callchain)
	same := 0
	for same < n && same < len(ls.frames) && sameFrame(&ls.frames[same], &s.Callchain[n-1-same]) {
		same++
	}
	ls.frames, ls.methods = ls.frames[:same], ls.methods[:same]
	for d := same; d < n; d++ {
		f := &s.Callchain[n-1-d]
		ls.frames = append(ls.frames, *f)
		ls.methods = append(ls.methods, fm.of(f))
	}
	buf = buf[:0]
	for d := n - 1; d >= 0; d-- {
		buf = append(buf, ls.methods[d])
	}
	return buf
}

func (fm *frameMethod) add(k frameKey, java bool) int32 {
	fm.keys = append(fm.keys, k)
	fm.java = append(fm.java, java)
	return int32(firstMethod + len(fm.keys) - 1)
}

// Load reads a whole stream into a Profile, a record at a time: memory is
// the trees (a node per distinct call path per thread), the interned
// frames, the symbol names of frames used and the reader's one record.
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
	var fm frameMethod
	var stack []int32
	files := map[uint32]*File{}
	var origin uint64
	var samples int64
	for {
		k, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if opt.Progress != nil && rd.Record()&0xffff == 0 {
			opt.Progress(rd.BytesRead())
		}
		switch k {
		case KindSample:
			s := &rd.Sample
			if samples == 0 {
				origin = s.Time
			}
			samples++
			stack = fm.stack(s, stack)
			at := uint64(0) // a sample before the first is placed at it, and counted by the builder
			if s.Time >= origin {
				at = (s.Time - origin) / 1000
			}
			b.Add(uint32(s.ThreadID), stack, at, s.EventCount/1000, s.EventCount)
		case KindLost:
			p.Lost.SampleCount += rd.Lost.SampleCount
			p.Lost.LostCount += rd.Lost.LostCount
		case KindFile:
			f := rd.File
			p.Files++
			files[f.ID] = &f
		case KindThread:
			p.Threads = append(p.Threads, rd.Thread)
		case KindMeta:
			p.Meta = rd.Meta
		case KindContextSwitch:
			p.ContextSwitches++
		}
	}
	if opt.Progress != nil {
		opt.Progress(rd.BytesRead())
	}
	methods := make([]trace.Method, firstMethod+len(fm.keys))
	java := make([]bool, len(methods))
	for i, k := range fm.keys {
		m := &methods[firstMethod+i]
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
		java[firstMethod+i] = fm.java[i] || (f != nil && JavaFile(f.Path))
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
	return p, nil
}

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
