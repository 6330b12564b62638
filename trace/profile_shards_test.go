package trace

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// sequentialJSON profiles b on one builder (an OnCall callback keeps Build
// off the shards) and returns its JSON.
func sequentialJSON(t *testing.T, b []byte, opt BuildOptions) string {
	t.Helper()
	opt.OnCall = func(*Call) {}
	p, err := ReadProfile(bytes.NewReader(b), opt)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteJSON(&out, p); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

func shardedJSON(t *testing.T, r io.Reader, opt BuildOptions) string {
	t.Helper()
	p, err := ReadProfile(r, opt)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteJSON(&out, p); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// The shards give the one builder's profile, byte for byte, for every
// record layout, across many chunks (more than are in flight, so chunks are
// reused), with records cut between reads, unknown methods in several
// chunks, a truncated last record, and warnings past the kept limit.
func TestShardsEqualOneBuilder(t *testing.T) {
	for _, s := range []Synth{
		{Seed: 1, Records: chunkRecords*(chunksInFlight+3) + 17, Threads: 7, Methods: 60, UnknownMethods: 5, Unroll: 30},
		{Seed: 2, Records: chunkRecords*2 + 1, Version: 2, Clocks: CPUOnly, Threads: 3},
		{Seed: 3, Records: chunkRecords + 5, Version: 2, Clocks: WallOnly, Threads: 2},
		{Seed: 4, Records: chunkRecords*2 + 3, Version: 1, Clocks: CPUOnly, Threads: 5, UnknownMethods: 2},
	} {
		tr, err := s.Trace()
		if err != nil {
			t.Fatal(err)
		}
		b, err := tr.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, 1, 2, 3) // a partial record
		want := sequentialJSON(t, b, BuildOptions{})
		if got := shardedJSON(t, bytes.NewReader(b), BuildOptions{}); got != want {
			t.Errorf("seed %d: the shards' JSON differs from one builder's:\n%s\nwant\n%s", s.Seed, got, want)
		}
		lim := BuildOptions{Limits: Limits{MaxWarnings: 3}}
		wantLim := sequentialJSON(t, b, lim)
		for name, r := range map[string]io.Reader{
			"one byte": iotest.OneByteReader(bytes.NewReader(b)),
			"halves":   iotest.HalfReader(bytes.NewReader(b)),
		} {
			if got := shardedJSON(t, r, lim); got != wantLim {
				t.Errorf("seed %d, read in %s: differs from one builder's", s.Seed, name)
			}
		}
	}
}

// The partial record at the end is warned about at its offset, with its
// length, as the Reader does.
func TestShardsTruncatedTail(t *testing.T) {
	tr := &Trace{Header: Header{Version: 2, Methods: []Method{{ID: 4, Class: "a.A"}}},
		Events: []Event{{1, Enter, 4, [2]uint32{1}}, {1, Exit, 4, [2]uint32{2}}}}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	n := int64(len(b))
	p, err := ReadProfile(bytes.NewReader(append(b, 9, 9, 9, 9)), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Warning{{Kind: WarnTruncatedData, Offset: n, Message: "data ends 4 bytes into a 10-byte record; the partial record is ignored"}}
	if !equalWarnings(p.Warnings.List, want) || p.Records != 2 {
		t.Errorf("warnings %v, want %v; %d records", p.Warnings.List, want, p.Records)
	}
}

type failAfter struct {
	r   io.Reader
	n   int // bytes to pass before failing
	err error
}

func (f *failAfter) Read(b []byte) (int, error) {
	if f.n <= 0 {
		return 0, f.err
	}
	b = b[:min(len(b), f.n)]
	n, err := f.r.Read(b)
	f.n -= n
	return n, err
}

type zeroReader struct{}

func (zeroReader) Read([]byte) (int, error) { return 0, nil }

// A read error in the records is the profile's error; so is a reader that
// keeps returning nothing.
func TestShardsReadErrors(t *testing.T) {
	tr, err := Synth{Seed: 5, Records: chunkRecords * 3}.Trace()
	if err != nil {
		t.Fatal(err)
	}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	for _, at := range []int{len(b) / 2, len(b) - 3} {
		_, err := ReadProfile(&failAfter{r: bytes.NewReader(b), n: at, err: boom}, BuildOptions{})
		if !errors.Is(err, boom) {
			t.Errorf("error after %d of %d bytes: %v", at, len(b), err)
		}
	}
	keyEnd := bytes.Index(b, []byte("*end\n")) + 5 + 32
	_, err = ReadProfile(io.MultiReader(bytes.NewReader(b[:keyEnd+140]), zeroReader{}), BuildOptions{})
	if !errors.Is(err, io.ErrNoProgress) {
		t.Errorf("a reader making no progress: %v", err)
	}
}

// When both shards stop at an error, the one earlier in the file is the
// profile's: here a stack too deep on the second thread to appear, which
// goes to the second shard, before one on the first thread.
func TestShardsFirstErrorInFileOrder(t *testing.T) {
	var ev []Event
	for range 3 {
		ev = append(ev, Event{2, Enter, 4, [2]uint32{1}})
	}
	for range 3 {
		ev = append(ev, Event{1, Enter, 4, [2]uint32{1}})
	}
	ev = append([]Event{{1, Enter, 4, [2]uint32{0}}, {1, Exit, 4, [2]uint32{0}}}, ev...)
	tr := &Trace{Header: Header{Version: 2, Methods: []Method{{ID: 4, Class: "a.A"}}}, Events: ev}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	_, err = ReadProfile(bytes.NewReader(b), BuildOptions{Limits: Limits{MaxStackDepth: 2}})
	var fe *FormatError
	dataStart := int64(bytes.Index(b, []byte("*end\n")) + 5 + 32)
	if !errors.As(err, &fe) || !errors.Is(err, ErrLimit) || fe.Offset != dataStart+4*10 {
		t.Fatalf("%v, want the limit at offset %d (thread 2's third entry)", err, dataStart+4*10)
	}
	want := sequentialErr(t, b, BuildOptions{Limits: Limits{MaxStackDepth: 2}})
	if err.Error() != want {
		t.Errorf("%v, one builder: %s", err, want)
	}
}

func sequentialErr(t *testing.T, b []byte, opt BuildOptions) string {
	t.Helper()
	opt.OnCall = func(*Call) {}
	_, err := ReadProfile(bytes.NewReader(b), opt)
	if err == nil {
		t.Fatal("no error on one builder")
	}
	return err.Error()
}

// stutter returns nothing (0, nil) before every read that returns data,
// as some readers do once in a while: not an error.
type stutter struct {
	r    io.Reader
	zero bool
}

func (s *stutter) Read(b []byte) (int, error) {
	if s.zero = !s.zero; s.zero {
		return 0, nil
	}
	return s.r.Read(b)
}

func TestShardsSingleEmptyReads(t *testing.T) {
	tr, err := Synth{Seed: 6, Records: chunkRecords*2 + 9}.Trace()
	if err != nil {
		t.Fatal(err)
	}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := shardedJSON(t, &stutter{r: iotest.HalfReader(bytes.NewReader(b))}, BuildOptions{}), sequentialJSON(t, b, BuildOptions{}); got != want {
		t.Error("read with empty reads in between: the profile differs")
	}
}

// Records already read into the Reader's buffer with the header, to the
// end of the input, are all profiled, however many chunks they fill.
func TestShardsInputBufferedWithHeader(t *testing.T) {
	tr, err := Synth{Seed: 7, Records: chunkRecords*3 + 11}.Trace()
	if err != nil {
		t.Fatal(err)
	}
	b, err := tr.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b = append(b, 7, 7)
	rd, err := NewReader(bytes.NewReader(b), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if rd.src.fill(len(b)-int(rd.src.off)+1) || rd.src.err != io.EOF {
		t.Fatalf("the input is not all buffered: %v", rd.src.err)
	}
	p, err := Build(rd, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteJSON(&out, p); err != nil {
		t.Fatal(err)
	}
	if p.Records != int64(chunkRecords*3+11) || out.String() != sequentialJSON(t, b, BuildOptions{}) {
		t.Errorf("%d records; the profile differs from one builder's", p.Records)
	}
}
