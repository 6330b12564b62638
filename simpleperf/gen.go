package simpleperf

import (
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/ddmtui/ddmtui/internal/iocount"
)

// GenOptions describe a generated recording: Threads busy threads sampled
// at Frequency Hz for Duration, every call chain Depth frames deep, each
// thread's samples drawn from its Stacks distinct stacks (most samples
// repeat the previous stack, as a thread stays in a method for a while).
// Frames mix Java methods (base.apk, the JIT cache, the boot image) with
// native ones (libart.so with mangled symbols, libapp.so, some without a
// symbol). Deterministic from Seed.
//
// The frames are written as report-sample writes them for the capture
// (devshell: --show-callchain, no --show-execution-type): every entry
// carries vaddr_in_file, file_id and symbol_id and nothing else, with
// addresses and symbol ids in the ranges of real files (genFiles), about
// 10.5 bytes a frame with its tag and length. No frame can take less than
// 8 (four tags or lengths and three one-byte values), so a file cannot be
// made smaller than that without leaving out what simpleperf writes.
type GenOptions struct {
	Threads   int
	Duration  time.Duration
	Frequency int
	Depth     int
	Stacks    int
	Seed      uint64
	// Package and AppType go into the meta info.
	Package, AppType string
	// OffCPU marks the recording --trace-offcpu and writes context switches.
	OffCPU bool
	// MovingLeaf puts each sample's leaf frame, when it has a symbol, at
	// another address of its method, as a real thread's samples in one
	// method are; without it a repeated stack repeats its bytes.
	MovingLeaf bool
}

func (o GenOptions) withDefaults() GenOptions {
	if o.Threads <= 0 {
		o.Threads = 4
	}
	if o.Duration <= 0 {
		o.Duration = time.Second
	}
	if o.Frequency <= 0 {
		o.Frequency = 1000
	}
	if o.Depth <= 0 {
		o.Depth = 32
	}
	if o.Stacks <= 0 {
		o.Stacks = 64
	}
	if o.Package == "" {
		o.Package = "com.example.app"
	}
	if o.AppType == "" {
		o.AppType = "profileable"
	}
	return o
}

// The files of a generated recording, by id, with where their code lies
// (vaddr_in_file): a symbol's frames are at base + symbol × 0x400, plus a
// call site within its 1 KiB. The ranges are those of real files: dex
// code a few hundred KiB into an APK, the JIT cache's code, a boot image's
// and libart.so's text past their first megabytes, the kernel's addresses
// as kallsyms gives them (a 10-byte varint, as on a rooted or userdebug
// device that samples the kernel).
var genFiles = []struct {
	path  string
	vaddr uint64
}{
	{"/data/app/~~x/com.example.app-1/base.apk", 0x4_0000},
	{"[JIT app cache]", 0x1_0000},
	{"/system/framework/arm64/boot-framework.oat", 0x30_0000},
	{"/apex/com.android.art/lib64/libart.so", 0x20_0000},
	{"/data/app/~~x/com.example.app-1/lib/arm64/libapp.so", 0x2_0000},
	{"[kernel.kallsyms]", 0xffff_ffc0_0801_0000},
}

// genSymbols is the number of symbols of each generated file.
const genSymbols = 200

// genSymbol names symbol i of file f; mangled is the form simpleperf would
// keep in mangled_symbol (libart.so and libapp.so are C++).
func genSymbol(f, i int) (name, mangled string) {
	switch f {
	case 0, 1, 2:
		pkg := [...]string{"com.example.app", "com.example.app", "android.view"}[f]
		return fmt.Sprintf("%s.Class%d.method%d", pkg, i/8, i%8), ""
	case 3, 4:
		ns := [...]string{"art", "app"}[f-3]
		fn := fmt.Sprintf("Fn%d", i)
		return fmt.Sprintf("%s::%s(int)", ns, fn), fmt.Sprintf("_ZN%d%s%d%sEi", len(ns), ns, len(fn), fn)
	}
	return fmt.Sprintf("kernel_fn_%d", i), ""
}

// GenStats is what Gen wrote.
type GenStats struct {
	Samples int64
	Bytes   int64
}

// Gen writes a recording to w.
func Gen(w io.Writer, opt GenOptions) (GenStats, error) {
	opt = opt.withDefaults()
	cw := &iocount.Writer{W: w}
	wr := NewWriter(cw)
	rng := rand.New(rand.NewPCG(opt.Seed, 0x5eed))
	ev := "cpu-clock"
	if err := wr.Meta(&MetaInfo{EventTypes: []string{ev}, AppPackage: opt.Package, AppType: opt.AppType, SDKVersion: "34", BuildType: "user", TraceOffCPU: opt.OffCPU}); err != nil {
		return GenStats{}, err
	}
	// Each thread's stacks, leaf first: a walk down a tree of frames in
	// which a level's frame depends on the frame above, so stacks share
	// their outer frames as real ones do.
	stacks := make([][][]Frame, opt.Threads)
	for t := range stacks {
		stacks[t] = make([][]Frame, opt.Stacks)
		for s := range stacks[t] {
			st := make([]Frame, opt.Depth)
			for d := 0; d < opt.Depth; d++ {
				var fi int
				switch {
				case d < opt.Depth/2:
					fi = 2 - min(d, 2) // the boot image, then the app's code
				case d < opt.Depth-3:
					fi = rng.IntN(3)
				default:
					fi = 3 + rng.IntN(3) // native frames at the leaf
				}
				// No execution type: report-sample writes one only with
				// --show-execution-type, which the capture does not pass
				// (devshell); Java frames are known by their files.
				f := Frame{FileID: uint32(fi)}
				// The outer half varies little from stack to stack.
				spread := 2
				if d >= opt.Depth/2 {
					spread = genSymbols
				}
				f.SymbolID = int32((t*7 + d*13 + rng.IntN(spread)) % genSymbols)
				f.VAddr = genFiles[fi].vaddr + uint64(f.SymbolID)*0x400 + uint64(rng.IntN(0x400))
				if fi == 4 && rng.IntN(8) == 0 {
					f.SymbolID = -1 // no symbol: named by its address
				}
				st[opt.Depth-1-d] = f
			}
			stacks[t][s] = st
		}
	}
	period := uint64(time.Second) / uint64(opt.Frequency)
	n := int64(opt.Duration / time.Duration(period))
	cur := make([]int, opt.Threads)
	start := uint64(1_000_000_000)
	var st GenStats
	var s Sample
	for i := int64(0); i < n; i++ {
		for t := range opt.Threads {
			if rng.IntN(4) == 0 {
				cur[t] = rng.IntN(opt.Stacks)
			}
			jitter := uint64(rng.IntN(1000))
			s = Sample{Time: start + uint64(i)*period + uint64(t)*1000 + jitter%100, ThreadID: int32(1000 + t), EventCount: period - 500 + jitter, Callchain: stacks[t][cur[t]]}
			if leaf := &s.Callchain[0]; opt.MovingLeaf && leaf.SymbolID >= 0 {
				leaf.VAddr = genFiles[leaf.FileID].vaddr + uint64(leaf.SymbolID)*0x400 + uint64(rng.IntN(0x400))
			}
			if err := wr.Sample(&s); err != nil {
				return st, err
			}
			st.Samples++
		}
		if opt.OffCPU && i%100 == 50 {
			for _, on := range []bool{false, true} {
				if err := wr.ContextSwitch(ContextSwitch{SwitchOn: on, Time: start + uint64(i)*period + uint64(boolInt(on))*period/2, ThreadID: 1000}); err != nil {
					return st, err
				}
			}
		}
	}
	if err := wr.Lost(Lost{SampleCount: uint64(st.Samples), LostCount: uint64(st.Samples / 1000)}); err != nil {
		return st, err
	}
	for id, gf := range genFiles {
		f := File{ID: uint32(id), Path: gf.path}
		for i := range genSymbols {
			name, mangled := genSymbol(id, i)
			f.Symbols = append(f.Symbols, name)
			switch {
			case id == 4:
				// As if simpleperf had not demangled them: Load does.
				f.Symbols[len(f.Symbols)-1] = mangled
			case mangled != "":
				f.Mangled = append(f.Mangled, mangled)
			}
		}
		if err := wr.File(&f); err != nil {
			return st, err
		}
	}
	names := []string{"main", "RenderThread", "worker-1", "worker-2"}
	for t := range opt.Threads {
		name := fmt.Sprintf("worker-%d", t)
		if t < len(names) {
			name = names[t]
		}
		if err := wr.Thread(Thread{ThreadID: int32(1000 + t), ProcessID: 1000, Name: name}); err != nil {
			return st, err
		}
	}
	if err := wr.Close(); err != nil {
		return st, err
	}
	st.Bytes = cw.N
	return st, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
