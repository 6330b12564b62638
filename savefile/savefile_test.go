package savefile

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/trace"
)

// entries lists dir's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func writeChunks(data []byte, size int) func(ctx context.Context, w *Writer) error {
	return func(ctx context.Context, w *Writer) error {
		for len(data) > 0 {
			n := min(size, len(data))
			if _, err := w.Write(data[:n]); err != nil {
				return err
			}
			data = data[n:]
		}
		return nil
	}
}

func TestSavePlain(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.trace")
	data := bytes.Repeat([]byte("0123456789"), 100000)
	res, err := Save(context.Background(), path, Options{}, writeChunks(data, 4096))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, data) || res.Size != int64(len(data)) || res.Received != int64(len(data)) || res.Path != path {
		t.Fatalf("saved %d bytes, result %+v", len(got), res)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", fi.Mode())
	}
	if names := entries(t, dir); len(names) != 1 || names[0] != "a.trace" {
		t.Errorf("directory holds %q", names)
	}
}

func synthDump(t *testing.T) []byte {
	t.Helper()
	b, err := hprof.Synth{Seed: 7, Classes: 4, Instances: 30, Arrays: 12, MaxArrayLength: 40, NoData: true}.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A heap dump is converted as hprof-conv does, byte for byte, validated,
// and summarised.
func TestSaveHPROF(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.hprof")
	dump := synthDump(t)
	want, err := hprof.ToStandard(dump)
	if err != nil {
		t.Fatal(err)
	}
	var sum *hprof.Summary
	res, err := Save(context.Background(), path, HPROF(false, DefaultHPROFRatio, &sum), writeChunks(dump, 1000))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, want) || res.Size != int64(len(want)) || res.Received != int64(len(dump)) {
		t.Fatalf("saved %d bytes (result %+v), want %d", len(got), res, len(want))
	}
	if sum == nil || sum.Size != int64(len(want)) || sum.Header.Version != hprof.VersionStandard {
		t.Fatalf("summary %+v", sum)
	}
	// --android keeps the dump as it came.
	raw := filepath.Join(dir, "raw.hprof")
	if _, err := Save(context.Background(), raw, HPROF(true, 0, nil), writeChunks(dump, 1000)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(raw); !bytes.Equal(got, dump) {
		t.Fatal("android dump changed")
	}
	if names := entries(t, dir); len(names) != 2 {
		t.Errorf("directory holds %q", names)
	}
	// Original keeps the dump as it came beside the converted file.
	conv, orig := filepath.Join(dir, "conv.hprof"), filepath.Join(dir, "orig.hprof")
	o := HPROF(false, DefaultHPROFRatio, nil)
	o.Original = orig
	if _, err := Save(context.Background(), conv, o, writeChunks(dump, 1000)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(orig); !bytes.Equal(got, dump) {
		t.Error("the original is not the dump as received")
	}
	if got, _ := os.ReadFile(conv); !bytes.Equal(got, want) {
		t.Error("the converted file is not the standard dump")
	}
	if names := entries(t, dir); len(names) != 4 {
		t.Errorf("directory holds %q", names)
	}
}

// When the converted file cannot take its name, the original saved just
// before it is removed again: a save is whole or nothing.
func TestSaveOriginalRemovedWhenTargetFails(t *testing.T) {
	dir := t.TempDir()
	path, orig := filepath.Join(dir, "x.hprof"), filepath.Join(dir, "x-android.hprof")
	o := HPROF(false, DefaultHPROFRatio, nil)
	o.Original = orig
	_, err := Save(context.Background(), path, o, func(ctx context.Context, w *Writer) error {
		// Checked already: the target turns into a non-empty directory
		// while the dump arrives, so the final rename fails.
		if err := os.MkdirAll(filepath.Join(path, "in"), 0o755); err != nil {
			return err
		}
		_, err := w.Write(synthDump(t))
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "cannot write "+path) {
		t.Fatalf("error %v", err)
	}
	if _, err := os.Stat(orig); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the original stayed: %v", err)
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("left behind: %q", names)
	}
}

// hostileHPROF is a small Android HPROF whose NODATA arrays claim 512 MiB.
func hostileHPROF() []byte {
	var body []byte
	for i := 0; i < 1024; i++ {
		body = append(body, 0xC3)
		body = binary.BigEndian.AppendUint32(body, uint32(0x1000+i))
		body = binary.BigEndian.AppendUint32(body, 0)
		body = binary.BigEndian.AppendUint32(body, 65536)
		body = append(body, byte(hprof.TypeLong))
	}
	b := append([]byte(hprof.VersionAndroid), 0)
	b = binary.BigEndian.AppendUint32(b, 4)
	b = binary.BigEndian.AppendUint64(b, 0)
	b = append(b, byte(hprof.TagHeapDumpSegment))
	b = binary.BigEndian.AppendUint32(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(len(body)))
	return append(b, body...)
}

// Every way a save can fail leaves the target as it was and nothing
// beside it.
func TestSaveFailureLeavesTargetAlone(t *testing.T) {
	old := []byte("the previous dump")
	boom := errors.New("VM connection ended")
	cases := []struct {
		name  string
		o     Options
		fetch func(ctx context.Context, w *Writer) error
		ctx   func() (context.Context, context.CancelFunc)
		check func(error) bool
	}{
		{"fetch error", HPROF(false, DefaultHPROFRatio, nil), func(ctx context.Context, w *Writer) error {
			w.Write([]byte("JAVA PROFILE 1.0.3\x00partial"))
			return boom
		}, nil, func(err error) bool { return errors.Is(err, boom) }},
		{"does not convert", HPROF(false, DefaultHPROFRatio, nil), writeChunks(hostileHPROF(), 512), nil,
			func(err error) bool { return errors.Is(err, hprof.ErrOutputTooLarge) }},
		{"does not parse", Trace(nil), writeChunks([]byte("not a trace at all"), 5), nil,
			func(err error) bool { return err != nil && strings.Contains(err.Error(), "does not parse") }},
		{"timeout", Options{Timeout: 50 * time.Millisecond}, func(ctx context.Context, w *Writer) error {
			w.Write([]byte("some"))
			<-ctx.Done()
			return ctx.Err()
		}, nil, func(err error) bool { return errors.Is(err, ErrTimeout) }},
		{"cancelled", Options{}, func(ctx context.Context, w *Writer) error {
			w.Write([]byte("some"))
			<-ctx.Done()
			return ctx.Err()
		}, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(30*time.Millisecond, cancel)
			return ctx, cancel
		}, func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"fetch ignores the cancel", Options{}, func(ctx context.Context, w *Writer) error {
			w.Write([]byte("some"))
			<-ctx.Done()
			return nil
		}, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(30*time.Millisecond, cancel)
			return ctx, cancel
		}, func(err error) bool { return errors.Is(err, context.Canceled) }},
		{"cancelled while converting", HPROF(false, 0, nil), writeChunks(synthDump(t), 100), func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			return &cancelAfterValue{Context: ctx, cancel: cancel}, cancel
		}, func(err error) bool { return errors.Is(err, context.Canceled) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "x.out")
			if err := os.WriteFile(path, old, 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.Background(), context.CancelFunc(func() {})
			if c.ctx != nil {
				ctx, cancel = c.ctx()
			}
			defer cancel()
			c.o.Original = filepath.Join(dir, "x.orig") // never saved alone
			_, err := Save(ctx, path, c.o, c.fetch)
			if !c.check(err) {
				t.Fatalf("error %v", err)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, old) {
				t.Errorf("target now holds %q", got)
			}
			if names := entries(t, dir); len(names) != 1 {
				t.Errorf("left behind: %q", names)
			}
			if strings.Contains(err.Error(), ".ddmtui-") {
				t.Errorf("error names a temporary file: %v", err)
			}
		})
	}
}

// cancelAfterValue cancels itself once fetching is over and Save asks it
// for its cause again (during the conversion).
type cancelAfterValue struct {
	context.Context
	cancel context.CancelFunc
	calls  int
}

func (c *cancelAfterValue) Err() error {
	c.calls++
	if c.calls > 1 {
		c.cancel()
	}
	return c.Context.Err()
}

// The output directory is checked before any work: a missing one fails at
// once, naming the user's path, and fetch never runs.
func TestCheckBeforeWork(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plain")
	os.WriteFile(file, nil, 0o644)
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "nonexistent", "x.hprof"), "does not exist"},
		{dir, "is a directory"},
		{filepath.Join(file, "x.hprof"), "not a directory"},
		{"", "no file name"},
	} {
		ran := false
		_, err := Save(context.Background(), c.path, Options{}, func(context.Context, *Writer) error { ran = true; return nil })
		if err == nil || !strings.Contains(err.Error(), c.want) || ran {
			t.Errorf("%q: %v (fetch ran: %v)", c.path, err, ran)
			continue
		}
		if c.path != "" && !strings.Contains(err.Error(), c.path) || strings.Contains(err.Error(), ".ddmtui-") {
			t.Errorf("%q: the error does not name the user's path: %v", c.path, err)
		}
	}
	if os.Getuid() != 0 {
		ro := filepath.Join(dir, "ro")
		os.Mkdir(ro, 0o555)
		if err := Check(filepath.Join(ro, "x")); err == nil || !strings.Contains(err.Error(), filepath.Join(ro, "x")) || strings.Contains(err.Error(), ".ddmtui-") {
			t.Errorf("read-only directory: %v", err)
		}
	}
	if names := entries(t, dir); len(names) > 2 {
		t.Errorf("left behind: %q", names)
	}
}

// A source read again starts the file over.
func TestRewind(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x")
	_, err := Save(context.Background(), path, Options{}, func(ctx context.Context, w *Writer) error {
		w.Write([]byte("partial partial partial"))
		if err := w.Rewind(); err != nil {
			return err
		}
		_, err := w.Write([]byte("whole"))
		return err
	})
	if got, _ := os.ReadFile(path); err != nil || string(got) != "whole" {
		t.Fatalf("%q, %v", got, err)
	}
}

// Progress goes out at most once per interval while bytes arrive, and
// once more with the total.
func TestProgressThrottled(t *testing.T) {
	var calls []uint64
	data := make([]byte, 1<<20)
	_, err := Save(context.Background(), filepath.Join(t.TempDir(), "x"),
		Options{Progress: func(n uint64) { calls = append(calls, n) }, ProgressEvery: time.Hour},
		func(ctx context.Context, w *Writer) error {
			w.Progress(10) // bytes seen before they are written
			return writeChunks(data, 1024)(ctx, w)
		})
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 2 || calls[0] != 10 || calls[1] != uint64(len(data)) {
		t.Fatalf("progress calls %v, want [10 %d]", calls, len(data))
	}

	now := time.Unix(0, 0)
	var got []uint64
	th := newThrottle(250*time.Millisecond, func(n uint64) { got = append(got, n) })
	th.now = func() time.Time { return now }
	for i := uint64(1); i <= 100; i++ {
		th.report(i)
		now = now.Add(10 * time.Millisecond) // 100 reports a second
	}
	if len(got) != 4 || got[0] != 1 || got[1] != 26 || got[2] != 51 || got[3] != 76 {
		t.Fatalf("throttled to %v, want [1 26 51 76]", got)
	}
}

// A non-terminal gets one line and no carriage return; a terminal a line
// rewritten in place.
func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p, done := ProgressLine(&b, false, "heap dump of pid 42")
	for i := 0; i < 9; i++ {
		p(uint64(i) << 20)
	}
	done()
	if b.String() != "heap dump of pid 42…\n" {
		t.Fatalf("non-terminal: %q", b.String())
	}
	b.Reset()
	p, done = ProgressLine(&b, true, "heap dump")
	p(0)
	p(1 << 20)
	p(3 << 20)
	done()
	if want := "\r\x1b[Kheap dump: waiting…\r\x1b[Kheap dump: 1.0 MiB received…\r\x1b[Kheap dump: 3.0 MiB received…\r\x1b[K"; b.String() != want {
		t.Fatalf("terminal: %q", b.String())
	}
}

func TestSaveTrace(t *testing.T) {
	var buf bytes.Buffer
	if _, err := (trace.Synth{Seed: 3, Threads: 2, Methods: 5, Records: 50}).WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	var prof *trace.Profile
	path := filepath.Join(t.TempDir(), "a.trace")
	if _, err := SaveBytes(context.Background(), path, data, Trace(&prof)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, data) || prof == nil {
		t.Fatalf("trace saved %d bytes, profile %v", len(got), prof != nil)
	}
}

var _ io.Writer = (*Writer)(nil)

// Issue 16 item 5: a heap dump converts straight into its file, with the
// output bounded; a hostile dump leaves nothing behind, a real one is
// byte for byte the in-memory conversion.
func TestWriteHPROFStreamsAndBounds(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.hprof")
	_, err := SaveBytes(context.Background(), path, hostileHPROF(), HPROF(false, DefaultHPROFRatio, nil))
	if !errors.Is(err, hprof.ErrOutputTooLarge) {
		t.Fatalf("hostile dump: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("left behind: %v", ents)
	}
	// A real dump converts as in memory, byte for byte.
	good, err := hprof.Synth{Seed: 7, Classes: 4, Instances: 30, Arrays: 12, MaxArrayLength: 40, NoData: true}.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	want, err := hprof.ToStandard(good)
	if err != nil {
		t.Fatal(err)
	}
	var sum *hprof.Summary
	_, err = SaveBytes(context.Background(), path, good, HPROF(false, DefaultHPROFRatio, &sum))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, want) || sum.Size != int64(len(want)) {
		t.Fatalf("file %d bytes (summary %d), in-memory conversion %d", len(got), sum.Size, len(want))
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("directory holds %v", ents)
	}
}
