package hprof

import (
	"bytes"
	"errors"
	"runtime"
	"testing"
)

// hostileNoData is a ~14 KB Android HPROF whose NODATA arrays claim 512 MiB
// of zero elements (issue 16 item 5).
func hostileNoData() []byte {
	r := newRaw()
	for i := 0; i < 1024; i++ {
		// PRIMITIVE ARRAY NODATA: id, stack serial, 65536 longs (512 KiB).
		r.u1(0xC3).u4(uint32(0x1000 + i)).u4(0).u4(65536).u1(uint8(TypeLong))
	}
	return fileBytes(VersionAndroid, 4, rec(TagHeapDumpSegment, 0, r.bytes()))
}

// sizeWriter counts what it is given and keeps nothing.
type sizeWriter struct{ n int64 }

func (w *sizeWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// Issue 16 item 5: a 14 KB file cannot make the in-memory conversion hold
// 512 MiB: ToStandard is bounded by DefaultMaxOutput.
func TestToStandardBoundsHostileNoData(t *testing.T) {
	in := hostileNoData()
	if len(in) > 16<<10 {
		t.Fatalf("the hostile file is %d bytes", len(in))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := ToStandard(in)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrOutputTooLarge) || out != nil {
		t.Fatalf("ToStandard: %d bytes, %v; want ErrOutputTooLarge", len(out), err)
	}
	var fe *FormatError
	if !errors.As(err, &fe) || fe.Offset != 31 {
		t.Errorf("error %v: want a FormatError at the heap dump record (offset 31)", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2*uint64(DefaultMaxOutput(int64(len(in)))) {
		t.Errorf("ToStandard allocated %d bytes for a %d-byte input", alloc, len(in))
	}
}

// MaxOutput stops Convert before a record that would pass it: the output
// holds only the records before, and never more than the bound.
func TestConvertMaxOutput(t *testing.T) {
	small, err := Synth{Seed: 4, Classes: 3, Instances: 20, Arrays: 10, MaxArrayLength: 50}.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	var full bytes.Buffer
	if err := Convert(&full, bytes.NewReader(small), ConvertOptions{}); err != nil {
		t.Fatal(err)
	}
	// Exactly the size converts; one byte less fails without passing it.
	var exact bytes.Buffer
	if err := Convert(&exact, bytes.NewReader(small), ConvertOptions{MaxOutput: int64(full.Len())}); err != nil || !bytes.Equal(exact.Bytes(), full.Bytes()) {
		t.Fatalf("bound equal to the output: %v", err)
	}
	var cut sizeWriter
	err = Convert(&cut, bytes.NewReader(small), ConvertOptions{MaxOutput: int64(full.Len() - 1)})
	if !errors.Is(err, ErrOutputTooLarge) || cut.n >= int64(full.Len()) {
		t.Fatalf("bound one byte short: wrote %d of %d, %v", cut.n, full.Len(), err)
	}
	// The hostile file, streamed: the bound holds, whatever the writer.
	var w sizeWriter
	err = Convert(&w, bytes.NewReader(hostileNoData()), ConvertOptions{MaxOutput: 1 << 20})
	if !errors.Is(err, ErrOutputTooLarge) || w.n > 1<<20 {
		t.Fatalf("hostile file with a 1 MiB bound: wrote %d, %v", w.n, err)
	}
	// Without a bound Convert streams the zero fill: 512 MiB out, little held.
	if testing.Short() {
		return
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	w = sizeWriter{}
	if err := Convert(&w, bytes.NewReader(hostileNoData()), ConvertOptions{}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if w.n < 512<<20 {
		t.Fatalf("unbounded conversion wrote %d bytes", w.n)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Errorf("streaming 512 MiB of zero fill allocated %d bytes", alloc)
	}
}
