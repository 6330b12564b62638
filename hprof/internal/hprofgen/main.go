// Command hprofgen writes a deterministic Android HPROF file (see
// hprof.Synth), or converts one to standard HPROF with hprof.Convert, for
// benchmarks and manual comparisons with AOSP's hprof-conv:
//
//	go run ./hprof/internal/hprofgen -instances 2000000 -o /tmp/big.hprof
//	go run ./hprof/internal/hprofgen -convert /tmp/big.hprof -o /tmp/big-std.hprof [-z]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/ddmtui/ddmtui/hprof"
)

func main() {
	var (
		out       = flag.String("o", "", "output file (required)")
		convert   = flag.String("convert", "", "convert this Android HPROF file instead of generating one")
		z         = flag.Bool("z", false, "with -convert: exclude the zygote and image heaps (hprof-conv -z)")
		seed      = flag.Uint64("seed", 1, "random seed")
		classes   = flag.Int("classes", 200, "app classes")
		instances = flag.Int("instances", 100000, "app instances")
		arrays    = flag.Int("arrays", 0, "app arrays (default instances/4)")
		maxArray  = flag.Int("max-array", 32, "maximum array length")
		noData    = flag.Bool("nodata", false, "write some primitive arrays as PRIMITIVE ARRAY NODATA")
	)
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "hprofgen: -o is required")
		os.Exit(2)
	}
	if err := run(*out, *convert, *z, hprof.Synth{Seed: *seed, Classes: *classes, Instances: *instances,
		Arrays: *arrays, MaxArrayLength: *maxArray, NoData: *noData}); err != nil {
		fmt.Fprintln(os.Stderr, "hprofgen:", err)
		os.Exit(1)
	}
}

func run(out, convert string, z bool, s hprof.Synth) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	if convert != "" {
		in, err := os.Open(convert)
		if err != nil {
			return err
		}
		defer in.Close()
		if err := hprof.Convert(f, in, hprof.ConvertOptions{ExcludeZygote: z}); err != nil {
			return err
		}
		return f.Close()
	}
	w := bufio.NewWriterSize(f, 1<<20)
	if _, err := s.WriteTo(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
