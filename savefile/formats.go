package savefile

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
	"github.com/ddmtui/ddmtui/trace"
)

// HPROF is how a heap dump from a VM is saved: converted from Android's
// HPROF to standard HPROF as hprof-conv does (unless android), the output
// bounded to maxRatio times the dump's size and at least 16 MiB (maxRatio
// ≤ 0: no bound), and validated with hprof.Summarize, whose summary is
// stored in *sum when sum is not nil.
func HPROF(android bool, maxRatio float64, sum **hprof.Summary) Options {
	var o Options
	if !android {
		o.Convert = func(dst io.Writer, src io.Reader, size int64) error {
			var maxOut int64
			if maxRatio > 0 {
				maxOut = max(int64(maxRatio*float64(size)), 16<<20)
			}
			bw := bufio.NewWriterSize(dst, 1<<20)
			if err := hprof.Convert(bw, bufio.NewReaderSize(src, 1<<20), hprof.ConvertOptions{MaxOutput: maxOut}); err != nil {
				return fmt.Errorf("converting the dump to standard HPROF: %w", err)
			}
			return bw.Flush()
		}
	}
	o.Validate = func(r io.Reader, size int64) error {
		s, err := hprof.Summarize(bufio.NewReaderSize(r, 1<<20))
		if err != nil {
			return fmt.Errorf("the heap dump: %w", err)
		}
		if sum != nil {
			*sum = s
		}
		return nil
	}
	return o
}

// DefaultHPROFRatio is the conversion bound of the `hprof` and `hprof
// convert` commands (their --max-output-ratio default): real dumps grow by
// a few bytes at most, a hostile one is stopped long before it fills a
// disk. (The dashboard keeps Android's dump and converts nothing.)
const DefaultHPROFRatio = 16

// Trace is how a method trace is saved: as received, validated with
// trace.ReadProfile, whose profile is stored in *prof when prof is not nil
// (then with the call trees and call index the viewer's call-tree tabs
// show).
func Trace(prof **trace.Profile) Options {
	return Options{Validate: func(r io.Reader, size int64) error {
		p, err := trace.ReadProfile(bufio.NewReaderSize(r, 1<<20), trace.BuildOptions{CallTree: prof != nil, CallIndex: prof != nil})
		if err != nil {
			return fmt.Errorf("the trace: %w", err)
		}
		if prof != nil {
			*prof = p
		}
		return nil
	}}
}

// HeapGraph is how a Java heap graph (a Perfetto trace of the
// android.java_hprof data source, spec/perfetto-heapgraph.md) is saved:
// as received, validated by decoding it with heapgraph.Read, which must
// find a complete heap graph of pid (0: of any process); the dump is
// stored in *g when g is not nil. A trace without one says why it may
// be so: perfetto skips an app that is neither debuggable nor profileable
// without a word.
func HeapGraph(pid int32, g **heapgraph.Graph) Options {
	return Options{Validate: func(r io.Reader, size int64) error {
		tr, err := heapgraph.Read(r, heapgraph.Options{PID: pid, SizeHint: size})
		if errors.Is(err, heapgraph.ErrNoHeapGraph) {
			return fmt.Errorf("the heap graph: %w (perfetto skips an app that is neither debuggable nor profileable, and Android before 11 has no Java heap graphs)", err)
		}
		if err != nil {
			return fmt.Errorf("the heap graph: %w", err)
		}
		if g != nil {
			*g = tr.Dumps[len(tr.Dumps)-1]
		}
		return nil
	}}
}
