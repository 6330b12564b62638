package hprof

import (
	"bufio"
	"bytes"
	"io"
	"sync"
	"testing"
)

// benchFile is a 20 MB Synth file in ART's layout (about 200,000 HEAP DUMP
// SEGMENTs of at most 4 KiB), made once.
var benchFile = sync.OnceValue(func() []byte {
	b, err := Synth{Seed: 1, Classes: 200, Instances: 420_000}.Bytes()
	if err != nil {
		panic(err)
	}
	return b
})

// BenchmarkConvert converts the file from memory to io.Discard.
func BenchmarkConvert(b *testing.B) {
	in := benchFile()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if err := Convert(io.Discard, bytes.NewReader(in), ConvertOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCopyBaseline is the floor for Convert: the same records read
// and written through the same buffers, unchanged and unparsed.
func BenchmarkCopyBaseline(b *testing.B) {
	in := benchFile()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		src := newSource(bytes.NewReader(in))
		if _, err := src.header(); err != nil {
			b.Fatal(err)
		}
		c := converter{out: bufio.NewWriterSize(io.Discard, 64<<10)}
		for {
			rh, err := src.record()
			if err == io.EOF {
				break
			}
			body, err := src.body(rh)
			if err != nil {
				b.Fatal(err)
			}
			c.record(rh.Tag, rh.Time, rh.Length)
			c.out.Write(body)
		}
		c.out.Flush()
	}
}

// BenchmarkRead decodes every record and sub-record.
func BenchmarkRead(b *testing.B) {
	in := benchFile()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(in))
		if err != nil {
			b.Fatal(err)
		}
		for {
			if _, err := r.Next(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
}

// BenchmarkSummarize is Summarize over the file.
func BenchmarkSummarize(b *testing.B) {
	in := benchFile()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Summarize(bytes.NewReader(in)); err != nil {
			b.Fatal(err)
		}
	}
}
