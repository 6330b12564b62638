package hprof

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/internal/wire"
)

var writeCorpus = flag.Bool("write-fuzz-corpus", false, "rewrite the seed corpora in testdata/fuzz")

// readErr reads data to the end and returns the first error (nil for a
// well-formed file) and how many records it held.
func readErr(t *testing.T, data []byte) (int, error) {
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			if r2 := r.Offset(); r2 < 0 || r2 > int64(len(data)) {
				t.Fatalf("offset %d outside the data", r2)
			}
			return n, err
		}
		n++
	}
}

// checkFormatError requires err to be a *FormatError inside the data.
func checkFormatError(t *testing.T, err error, size int) {
	t.Helper()
	var fe *FormatError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v (%T) is not a *FormatError", err, err)
	}
	if fe.Offset < 0 || fe.Offset > size {
		t.Fatalf("error offset %d outside the %d-byte input: %v", fe.Offset, size, err)
	}
}

// FuzzRead: Reader never panics; on bad input it returns a FormatError
// with an offset inside the input; Summarize agrees with it.
func FuzzRead(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := readErr(t, data)
		if err != nil {
			checkFormatError(t, err, len(data))
		}
		_, serr := Summarize(bytes.NewReader(data))
		if (err == nil) != (serr == nil) {
			t.Fatalf("Reader: %v; Summarize: %v", err, serr)
		}
		checkFastEnd(t, data)
	})
}

// checkFastEnd walks every heap dump record of data: wherever Convert's
// fast path gives an end, the checked walk accepts the sub-record and ends
// at the same offset.
func checkFastEnd(t *testing.T, data []byte) {
	src := newSource(bytes.NewReader(data))
	h, err := src.header()
	if err != nil {
		return
	}
	lay := layouts[h.IDSize]
	for {
		rh, err := src.record()
		if err != nil {
			return
		}
		body, err := src.body(rh)
		if err != nil {
			return
		}
		if !rh.Tag.isHeapDump() {
			continue
		}
		for off := 0; off < len(body); {
			fast := lay.fastEnd(body, off)
			r := wire.NewReader(body[off:], 0)
			lay.skipSub(r, body[off:])
			if fast >= 0 && (r.Err() != nil || off+r.Offset() != fast) {
				t.Fatalf("fastEnd %d; checked walk: end %d, %v", fast, off+r.Offset(), r.Err())
			}
			if r.Err() != nil {
				break
			}
			off += r.Offset()
		}
	}
}

// limitWriter fails once more than n bytes are written: NODATA arrays can
// expand a few input bytes into gigabytes of zeros.
type limitWriter struct {
	buf bytes.Buffer
	n   int
}

var errTooBig = errors.New("output too big for the fuzz target")

func (w *limitWriter) Write(p []byte) (int, error) {
	if w.buf.Len()+len(p) > w.n {
		return 0, errTooBig
	}
	return w.buf.Write(p)
}

// FuzzConvert: Convert never panics; a file the Reader accepts converts
// without error (unless it is not Android's variant), and the result is a
// 1.0.2 file the Reader accepts, without Android-only sub-records.
func FuzzConvert(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed.data, seed.z)
	}
	f.Fuzz(func(t *testing.T, data []byte, z bool) {
		out := &limitWriter{n: 16 << 20}
		err := Convert(out, bytes.NewReader(data), ConvertOptions{ExcludeZygote: z})
		if errors.Is(err, errTooBig) || errors.Is(err, ErrRecordTooLarge) {
			return // NODATA zero fill beyond what the target (or HPROF) holds
		}
		_, rerr := readErr(t, data)
		android := bytes.HasPrefix(data, []byte(VersionAndroid+"\x00"))
		if rerr == nil && android && err != nil {
			t.Fatalf("Reader accepts the input; Convert: %v", err)
		}
		if err != nil {
			if !errors.Is(err, ErrNotAndroid) {
				checkFormatError(t, err, len(data))
			}
			return
		}
		if rerr != nil {
			return // Convert copies top-level records without checking them
		}
		h, recs, err := readAll(out.buf.Bytes())
		if err != nil {
			t.Fatalf("converted file unreadable: %v", err)
		}
		if h.Version != VersionStandard {
			t.Fatalf("converted version %q", h.Version)
		}
		for _, r := range recs {
			switch v := r.(type) {
			case *HeapDumpInfo:
				t.Fatal("HEAP DUMP INFO left")
			case *Root:
				if v.Kind.Android() {
					t.Fatalf("%v left", v.Kind)
				}
			case *PrimitiveArrayDump:
				if v.NoData {
					t.Fatal("NODATA left")
				}
			}
		}
	})
}

type fuzzSeed struct {
	name string
	data []byte
	z    bool
}

// fuzzSeeds are the seed inputs; testdata/fuzz holds the same, written by
// go test -run TestWriteFuzzCorpus -write-fuzz-corpus.
func fuzzSeeds(tb testing.TB) []fuzzSeed {
	tiny := func(s Synth) []byte {
		b, err := s.Bytes()
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	small := tiny(Synth{Seed: 1, Classes: 2, Instances: 6, Arrays: 4, MaxArrayLength: 3})
	var std bytes.Buffer
	if err := Convert(&std, bytes.NewReader(small), ConvertOptions{}); err != nil {
		tb.Fatal(err)
	}
	seeds := []fuzzSeed{
		{"synth-tiny", small, false},
		{"synth-tiny-z", small, true},
		{"synth-id8-nodata", tiny(Synth{Seed: 2, Classes: 3, Instances: 5, Arrays: 6, MaxArrayLength: 2, IDSize: 8, NoData: true}), false},
		{"synth-heap-list", tiny(Synth{Seed: 3, Heap: []ClassCount{{"a.B", 2}, {"char[]", 2}, {"a.B[]", 1}}, MaxArrayLength: 2}), true},
		{"standard-1.0.2", std.Bytes(), false},
		{"truncated-header", []byte(VersionAndroid + "\x00\x00\x00\x00\x04\x00"), false},
		{"huge-length", fileBytes(VersionAndroid, 4, newRaw().u1(0x1c).u4(0).u4(0xFFFFFFFF).u1(0xFF).bytes()), false},
		{"unknown-sub-record", fileBytes(VersionAndroid, 4, rec(TagHeapDumpSegment, 0, []byte{0xFF, 0, 0, 0, 1, 0x55, 1, 2, 3})), false},
		{"nodata-huge", fileBytes(VersionAndroid, 4, rec(TagHeapDumpSegment, 0, newRaw().u1(0xC3).u4(1).u4(0).u4(0xFFFFFFFF).u1(11).bytes())), false},
	}
	for _, v := range convertVectors() {
		name := strings.NewReplacer(" ", "-", ",", "", "/", "").Replace("vector-" + v.name)
		name = strings.ReplaceAll(name, "--", "-")
		seeds = append(seeds, fuzzSeed{name, v.in, v.opts.ExcludeZygote})
	}
	return seeds
}

// TestWriteFuzzCorpus writes the seeds in Go's corpus format when asked.
func TestWriteFuzzCorpus(t *testing.T) {
	if !*writeCorpus {
		t.Skip("run with -write-fuzz-corpus to rewrite testdata/fuzz")
	}
	for _, seed := range fuzzSeeds(t) {
		for target, extra := range map[string]string{"FuzzRead": "", "FuzzConvert": fmt.Sprintf("bool(%v)\n", seed.z)} {
			if target == "FuzzRead" && seed.z {
				continue // the same bytes as the seed without -z
			}
			dir := filepath.Join("testdata", "fuzz", target)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n%s", seed.data, extra)
			if err := os.WriteFile(filepath.Join(dir, seed.name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
