package logcat

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/internal/budget"
)

// benchEntries is a busy phone's mix: framework and app tags, messages of
// 20 to 200 bytes, levels V to E.
func benchEntries(n int) []Entry {
	r := rand.New(rand.NewPCG(1, 2))
	tags := []string{"ActivityManager", "GalleryView", "okhttp.OkHttpClient", "chatty", "OpenGLRenderer", "art", "Sync Worker", "WindowManager"}
	words := []string{"loaded", "items", "frame", "decode", "sync", "thumbnail", "cache", "request", "größe", "画像", "ms", "done"}
	out := make([]Entry, n)
	t0 := time.Unix(1763900000, 0)
	for i := range out {
		var msg []byte
		for len(msg) < 20+r.IntN(180) {
			msg = append(msg, words[r.IntN(len(words))]...)
			msg = append(msg, ' ')
			msg = fmt.Appendf(msg, "%d ", r.IntN(10000))
		}
		out[i] = Entry{Time: t0.Add(time.Duration(i) * 300 * time.Microsecond), PID: int32(1000 + r.IntN(40)), TID: int32(1000 + r.IntN(400)),
			UID: 10000, Buffer: LogID([]LogID{Main, System}[r.IntN(2)]), Priority: Priority(2 + r.IntN(5)), Tag: tags[r.IntN(len(tags))], Message: string(msg)}
	}
	return out
}

func benchStream(b *testing.B, n int) []byte {
	var stream []byte
	for _, e := range benchEntries(n) {
		var err error
		if stream, err = AppendBinary(stream, &e, HeaderV4Size); err != nil {
			b.Fatal(err)
		}
	}
	return stream
}

const benchN = 100_000

var sink int

// BenchmarkByteScan is the baseline: one pass over the same bytes, adding
// them up (what any decoder must at least touch).
func BenchmarkByteScan(b *testing.B) {
	stream := benchStream(b, benchN)
	b.SetBytes(int64(len(stream)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := 0
		for _, c := range stream {
			s += int(c)
		}
		sink += s
	}
	b.ReportMetric(float64(benchN)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}

// BenchmarkDecodeFilter decodes binary v4 records from a reader (as from
// an adb stream) and applies a compiled query to each.
func BenchmarkDecodeFilter(b *testing.B) {
	stream := benchStream(b, benchN)
	q, err := Compile("level:D -tag:chatty (tag~:^(Gallery|okhttp) | message:thumbnail)", QueryOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	b.ResetTimer()
	now := time.Unix(1763900100, 0)
	for i := 0; i < b.N; i++ {
		d := NewBinaryDecoder(bytes.NewReader(stream), BinaryOptions{})
		var e Entry
		kept := 0
		for {
			err := d.Next(&e)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			if q.Match(&e, now) {
				kept++
			}
		}
		if kept == 0 || kept == benchN {
			b.Fatalf("query kept %d of %d", kept, benchN)
		}
		sink += kept
	}
	b.ReportMetric(float64(benchN)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}

// BenchmarkDecodeThreadtime is the text fallback: the same entries as
// threadtime lines, joined.
func BenchmarkDecodeThreadtime(b *testing.B) {
	var text []byte
	for _, e := range benchEntries(benchN) {
		text = AppendThreadtime(text, &e, time.UTC)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d := NewTextDecoder(bytes.NewReader(text), TextOptions{Location: time.UTC, Join: true, Now: func() time.Time { return time.Unix(1763900100, 0) }})
		var e Entry
		n := 0
		for d.Next(&e) == nil {
			n++
		}
		sink += n
	}
	b.ReportMetric(float64(benchN)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}

// BenchmarkRingRegexQuery200k: a full ring (200,000 entries, the default)
// read and filtered with a regular-expression query, as a view does when
// its query changes.
func BenchmarkRingRegexQuery200k(b *testing.B) {
	r := NewRing(DefaultRingSize)
	entries := benchEntries(DefaultRingSize)
	for _, e := range entries {
		r.Append(e)
	}
	q, err := Compile(`message~:"(decode|sync) [0-9]{3}\\b" level:I`, QueryOptions{})
	if err != nil {
		b.Fatal(err)
	}
	now := entries[len(entries)-1].Time
	var buf []Entry
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		first, _ := r.Bounds()
		buf, _, _ = r.Read(buf[:0], first, 0)
		kept := 0
		for j := range buf {
			if q.Match(&buf[j], now) {
				kept++
			}
		}
		sink += kept
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/refilter")
}

// BenchmarkRingRegexQueryChunk: the same query over 20,000 entries, the
// slice of a refilter a view can do in one 33 ms frame (devicelog.Cursor.Read
// with max) while the rest waits for the next frames.
func BenchmarkRingRegexQueryChunk(b *testing.B) {
	r := NewRing(DefaultRingSize)
	entries := benchEntries(DefaultRingSize)
	for _, e := range entries {
		r.Append(e)
	}
	q, err := Compile(`message~:"(decode|sync) [0-9]{3}\\b" level:I`, QueryOptions{})
	if err != nil {
		b.Fatal(err)
	}
	now := entries[len(entries)-1].Time
	var buf []Entry
	b.ResetTimer()
	from, _ := r.Bounds()
	for i := 0; i < b.N; i++ {
		var next uint64
		buf, next, _ = r.Read(buf[:0], from, 20_000)
		if _, end := r.Bounds(); next >= end {
			next, _ = r.Bounds()
		}
		from = next
		kept := 0
		for j := range buf {
			if q.Match(&buf[j], now) {
				kept++
			}
		}
		sink += kept
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/chunk")
}

// BenchmarkRingAppendAtBudget: a device flooding its ring while the rings'
// share of the process budget is spent, beside 32 other devices' rings:
// every entry drops the ring's own oldest (asking no one else, who rank
// the same).
func BenchmarkRingAppendAtBudget(b *testing.B) {
	process := budget.New(0)
	share := process.Child(1 << 20)
	var others []*Ring
	for i := range 32 {
		r := NewRing(1000)
		r.SetLimit(0, share, fmt.Sprint("dev", i))
		r.Append(Entry{Tag: "T", Message: "warm"})
		others = append(others, r)
	}
	flood := NewRing(100_000)
	flood.SetLimit(0, share, "flood")
	e := Entry{Tag: "Flood", Message: strings.Repeat("x", 100)}
	for share.Used() < 1<<20-200 {
		flood.Append(e)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		flood.Append(e)
	}
	b.StopTimer()
	if share.Used() > 1<<20 {
		b.Fatalf("share passed: %d", share.Used())
	}
	for _, r := range others {
		r.Close()
	}
	flood.Close()
}
