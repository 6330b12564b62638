// Command hprofgen writes a deterministic Android HPROF file (see
// hprof.Synth), or converts one to standard HPROF with hprof.Convert, for
// benchmarks and manual comparisons with AOSP's hprof-conv:
//
//	go run ./hprof/internal/hprofgen -instances 2000000 -o /tmp/big.hprof
//	go run ./hprof/internal/hprofgen -convert /tmp/big.hprof -o /tmp/big-std.hprof [-z]
//	go run ./hprof/internal/hprofgen -android-objects 1000000 -o /tmp/app.hprof  # scene.Large
//	go run ./hprof/internal/hprofgen -scenario -o /tmp/leaks.hprof             # scene.Android (planted leaks)
//	go run ./hprof/internal/hprofgen -chain 3000000 -o /tmp/chain.hprof         # one linked list (issue 37 #13)
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
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
		android   = flag.Int("android-objects", 0, "write an Android-like app heap of about this many objects (scene.Large)")
		scenario  = flag.Bool("scenario", false, "write the small heap with planted leaks (scene.Android, API 34)")
		chain     = flag.Int("chain", 0, "write a dense dump: one linked list of this many nodes, its head a root (issue 37 #13)")
	)
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "hprofgen: -o is required")
		os.Exit(2)
	}
	if *chain > 0 {
		if err := runChain(*out, *chain); err != nil {
			fmt.Fprintln(os.Stderr, "hprofgen:", err)
			os.Exit(1)
		}
		return
	}
	if *android > 0 || *scenario {
		if err := runHeapgen(*out, *android, *seed, *scenario); err != nil {
			fmt.Fprintln(os.Stderr, "hprofgen:", err)
			os.Exit(1)
		}
		return
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

func runHeapgen(out string, objects int, seed uint64, scenario bool) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	if scenario {
		var data []byte
		if data, _, err = scene.Android(scene.Options{Seed: seed}); err == nil {
			_, err = w.Write(data)
		}
	} else {
		err = scene.Large(w, scene.LargeOptions{Objects: objects, Seed: seed})
	}
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// runChain writes n instances of one class whose one field refers to the
// next, the first a JNI global root: the densest dump per byte (21 bytes
// an object with 4-byte ids), with the deepest dominator tree and path.
func runChain(out string, n int) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	b, err := scene.NewBuilder(w, 4, "")
	if err != nil {
		return err
	}
	node := b.Class("com.example.Node", nil, scene.F("next", hprof.TypeObject))
	node.Dump()
	first := b.ID()
	b.Root(hprof.SubRootJNIGlobal, first)
	id := first
	for i := range n {
		next := uint64(0)
		if i < n-1 {
			next = b.ID()
		}
		b.InstanceWithID(id, node, scene.V{"next": next})
		id = next
	}
	if err := b.Close(); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
