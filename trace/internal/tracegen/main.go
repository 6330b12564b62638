// Command tracegen writes a deterministic synthetic method trace (see
// trace.Synth) for benchmarks and manual comparisons with dmtracedump:
//
//	go run ./trace/internal/tracegen -records 10000000 -o /tmp/10m.trace
package main

import (
	"bufio"
	"flag"
	"fmt"
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
	n, err := s.WriteTo(bw)
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
	fmt.Fprintf(os.Stderr, "tracegen: wrote %d bytes, %d records to %s\n", n, *records, *out)
}
