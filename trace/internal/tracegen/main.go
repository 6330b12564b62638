// Command tracegen writes a deterministic synthetic method trace (see
// trace.Synth) for benchmarks and manual comparisons with dmtracedump:
//
//	go run ./trace/internal/tracegen -records 10000000 -o /tmp/10m.trace
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/ddmtui/ddmtui/trace"
)

func main() {
	var (
		out       = flag.String("o", "", "output file (required)")
		records   = flag.Int("records", 1000000, "number of records")
		seed      = flag.Uint64("seed", 1, "random seed")
		version   = flag.Int("version", 3, "trace version: 1, 2 or 3")
		clock     = flag.String("clock", "", "thread-cpu, wall or dual (default: dual for version 3, else thread-cpu)")
		threads   = flag.Int("threads", 4, "threads")
		methods   = flag.Int("methods", 300, "methods")
		depth     = flag.Int("depth", 40, "maximum stack depth")
		unknown   = flag.Int("unknown", 0, "called methods left out of the key")
		streaming = flag.Bool("streaming", false, "ART streaming format")
		formatV2  = flag.Bool("v2", false, "ART's format V2 (version 4 single clock, 5 dual; builds the trace in memory)")
	)
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "tracegen: -o is required")
		os.Exit(2)
	}
	s := trace.Synth{Seed: *seed, Records: *records, Version: *version, Threads: *threads, Methods: *methods,
		MaxDepth: *depth, UnknownMethods: *unknown, Streaming: *streaming}
	if *clock != "" {
		c, ok := trace.ParseClocks(*clock)
		if !ok {
			fmt.Fprintf(os.Stderr, "tracegen: unknown clock %q\n", *clock)
			os.Exit(2)
		}
		s.Clocks = c
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracegen:", err)
		os.Exit(1)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	var n int64
	if *formatV2 {
		err = writeV2(bw, s, *streaming)
	} else {
		n, err = s.WriteTo(bw)
	}
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tracegen:", err)
		os.Exit(1)
	}
	if *formatV2 {
		if st, serr := os.Stat(*out); serr == nil {
			n = st.Size()
		}
	}
	fmt.Fprintf(os.Stderr, "tracegen: wrote %d bytes, %d records to %s\n", n, *records, *out)
}

// writeV2 writes the synthetic trace in ART's format V2, method ids
// renumbered as a V2 reader numbers them (index << 2).
func writeV2(w io.Writer, s trace.Synth, streaming bool) error {
	s.Streaming = false
	tr, err := s.Trace()
	if err != nil {
		return err
	}
	re := make(map[uint32]uint32, len(tr.Methods))
	for i := range tr.Methods {
		re[tr.Methods[i].ID] = uint32(i) << 2
		tr.Methods[i].ID = uint32(i) << 2
	}
	for i := range tr.Events {
		if id, ok := re[tr.Events[i].MethodID]; ok {
			tr.Events[i].MethodID = id
		}
	}
	return trace.EncodeV2(w, tr, trace.V2Options{Streaming: streaming})
}
