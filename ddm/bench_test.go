package ddm

import (
	"math/rand/v2"
	"sync"
	"testing"
)

// heapUnits is a 512 MiB heap in 8-byte allocation units (64 Mi units).
const heapUnits = 512 << 20 / 8

// heapAllocation draws one allocation (or free gap) with a size mix typical
// of a Java heap: mostly 16- and 24-byte objects, a tail of arrays, a few
// large arrays that need partial pairs, and small free gaps.
func heapAllocation(rng *rand.Rand) Run {
	p := rng.IntN(1000)
	switch {
	case p < 400:
		return Run{NewState(KindObject, SolidityHard), 2}
	case p < 620:
		return Run{NewState(KindObject, SolidityHard), 3}
	case p < 770:
		return Run{NewState(KindObject, SolidityHard), uint32(4 + rng.IntN(3))}
	case p < 870:
		return Run{NewState(Kind(2+rng.IntN(4)), SolidityHard), uint32(7 + rng.IntN(10))}
	case p < 930:
		return Run{NewState(Kind(2+rng.IntN(4)), SolidityHard), uint32(17 + rng.IntN(48))}
	case p < 945:
		return Run{NewState(Kind(1+rng.IntN(5)), SolidityHard), uint32(65 + rng.IntN(192))}
	case p < 948:
		return Run{NewState(Kind(2+rng.IntN(4)), SolidityHard), uint32(257 + rng.IntN(1792))}
	default:
		return Run{StateFree, uint32(1 + rng.IntN(32))}
	}
}

type heapFixture struct {
	bodies [][]byte // HPSG chunk bodies as a VM sends them
	bytes  int64
	runs   int
}

var (
	heapOnce sync.Once
	heapData heapFixture
)

// loadHeap encodes the 512 MiB heap once, split into chunks of at most
// MaxSegmentData bytes of pairs exactly as VMs split them.
func loadHeap(b *testing.B) *heapFixture {
	b.Helper()
	heapOnce.Do(func() {
		rng := rand.New(rand.NewPCG(0x12C00000, 512))
		w := NewSegmentWriter(TypeHPSG, 1, 8)
		w.Start(0x12C00000)
		left := uint64(heapUnits)
		for left > 0 {
			a := heapAllocation(rng)
			if uint64(a.Units) > left {
				a.Units = uint32(left)
			}
			if err := w.Append(a.State, a.Units); err != nil {
				panic(err)
			}
			left -= uint64(a.Units)
			heapData.runs++
		}
		for _, s := range w.Segments() {
			body := s.AppendBody(nil)
			heapData.bodies = append(heapData.bodies, body)
			heapData.bytes += int64(len(body))
		}
	})
	return &heapData
}

// BenchmarkHeapSegmentDecode decodes and validates every HPSG chunk of a
// 512 MiB heap and walks all its runs.
func BenchmarkHeapSegmentDecode(b *testing.B) {
	f := loadHeap(b)
	b.SetBytes(f.bytes)
	b.ReportAllocs()
	var units uint64
	for b.Loop() {
		units = 0
		for _, body := range f.bodies {
			seg, err := DecodeHeapSegment(TypeHPSG, body)
			if err != nil {
				b.Fatal(err)
			}
			for run := range seg.Runs {
				units += uint64(run.Units)
			}
		}
	}
	if units != heapUnits {
		b.Fatalf("walked %d units, want %d", units, heapUnits)
	}
	b.ReportMetric(float64(heapUnits)*float64(b.N)/b.Elapsed().Seconds(), "units/s")
	b.ReportMetric(float64(len(f.bodies)), "chunks")
	b.ReportMetric(float64(f.runs), "runs")
}

// BenchmarkHeapSegmentWalk walks already decoded segments: the loop a heap
// model runs, which must not allocate.
func BenchmarkHeapSegmentWalk(b *testing.B) {
	f := loadHeap(b)
	segs := make([]*HeapSegment, len(f.bodies))
	for i, body := range f.bodies {
		seg, err := DecodeHeapSegment(TypeHPSG, body)
		if err != nil {
			b.Fatal(err)
		}
		segs[i] = seg
	}
	b.SetBytes(f.bytes)
	b.ReportAllocs()
	var free uint64
	for b.Loop() {
		free = 0
		for _, seg := range segs {
			for run := range seg.Runs {
				if run.State.Solidity() == SolidityFree {
					free += uint64(run.Units)
				}
			}
		}
	}
	if free == 0 || free >= heapUnits {
		b.Fatalf("%d free units", free)
	}
	b.ReportMetric(float64(heapUnits)*float64(b.N)/b.Elapsed().Seconds(), "units/s")
}

// BenchmarkSegmentWriter encodes the 512 MiB heap as a simulated VM does.
func BenchmarkSegmentWriter(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	allocs := make([]Run, 0, 8<<20)
	for left := uint64(heapUnits); left > 0; {
		a := heapAllocation(rng)
		a.Units = uint32(min(uint64(a.Units), left))
		allocs = append(allocs, a)
		left -= uint64(a.Units)
	}
	b.ReportAllocs()
	for b.Loop() {
		w := NewSegmentWriter(TypeHPSG, 1, 8)
		w.Start(0x12C00000)
		for _, a := range allocs {
			if err := w.Append(a.State, a.Units); err != nil {
				b.Fatal(err)
			}
		}
		if len(w.Segments()) == 0 {
			b.Fatal("no segments")
		}
	}
	b.ReportMetric(float64(heapUnits)*float64(b.N)/b.Elapsed().Seconds(), "units/s")
}

// BenchmarkTHSTDecode200 decodes a THST reply for 200 threads, a large app.
func BenchmarkTHSTDecode200(b *testing.B) {
	tab := &ThreadStatusTable{HeaderLen: THSTHeaderLen, EntryLen: THSTEntryLen, Threads: make([]ThreadStatus, 200)}
	for i := range tab.Threads {
		tab.Threads[i] = ThreadStatus{ID: uint32(i + 1), Status: int8(i % 5), SysTID: uint32(4000 + i), UTime: uint32(i * 3), STime: uint32(i), Daemon: i > 10}
	}
	body := tab.AppendBody(nil)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		m, err := DecodeThreadStatusTable(body)
		if err != nil || len(m.Threads) != 200 {
			b.Fatal(err)
		}
	}
}

// BenchmarkREALDecode decodes a full ART allocation report: 65535 entries
// with 16 frames each.
func BenchmarkREALDecode(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	classes := make([]string, 2000)
	for i := range classes {
		classes[i] = "Lcom/example/pkg" + string(rune('a'+i%26)) + "/Class" + string(rune('A'+i%26)) + string(rune('a'+i/26%26)) + ";"
	}
	m := &Allocations{Entries: make([]Allocation, 0xFFFF)}
	for i := range m.Entries {
		e := &m.Entries[i]
		e.Size, e.ThreadID, e.Class = uint32(16+8*rng.IntN(64)), uint16(rng.IntN(200)), classes[rng.IntN(len(classes))]
		e.Frames = make([]AllocFrame, 16)
		for j := range e.Frames {
			c := classes[rng.IntN(len(classes))]
			e.Frames[j] = AllocFrame{Class: c, Method: "method" + string(rune('a'+rng.IntN(26))), File: c[1:4] + ".java", Line: int16(rng.IntN(2000))}
		}
	}
	body := m.AppendBody(nil)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		got, err := DecodeAllocations(body)
		if err != nil || len(got.Entries) != 0xFFFF {
			b.Fatal(err)
		}
	}
}

// BenchmarkHeapSegmentBaseline reads every byte of the same chunk bodies
// once (a sum): the memory-bandwidth floor that HeapSegmentDecode is
// reported against in docs/PERFORMANCE.md.
func BenchmarkHeapSegmentBaseline(b *testing.B) {
	f := loadHeap(b)
	b.SetBytes(f.bytes)
	var sum uint64
	for b.Loop() {
		sum = 0
		for _, body := range f.bodies {
			for _, c := range body {
				sum += uint64(c)
			}
		}
	}
	if sum == 0 {
		b.Fatal("empty heap data")
	}
}

// BenchmarkTHSTBaseline copies a 200-thread THST body: the floor for
// THSTDecode200.
func BenchmarkTHSTBaseline(b *testing.B) {
	tab := &ThreadStatusTable{}
	for i := 0; i < 200; i++ {
		tab.Threads = append(tab.Threads, ThreadStatus{ID: uint32(i + 1), Status: 1, SysTID: uint32(1000 + i), UTime: 5, STime: 1})
	}
	body := tab.AppendBody(nil)
	dst := make([]byte, len(body))
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		copy(dst, body)
	}
}
