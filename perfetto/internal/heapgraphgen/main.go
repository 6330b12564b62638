// Command heapgraphgen writes a Java heap graph (a Perfetto trace of the
// android.java_hprof data source) for benchmarks and manual checks, in
// ART's encoding of a given API level, from the same heaps hprofgen
// writes as HPROF (so both forms of one heap can be compared):
//
//	go run ./perfetto/internal/heapgraphgen -objects 1000000 -o /tmp/app.pftrace [-hprof /tmp/app.hprof]
//	go run ./perfetto/internal/heapgraphgen -scenario -api 31 -o /tmp/leaks.pftrace   # hprof/scene's planted heap
//	go run ./perfetto/internal/heapgraphgen -read /tmp/app.pftrace   # one plain decoding pass; lists the dumps
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"

	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
)

func main() {
	var (
		out      = flag.String("o", "", "output trace (required)")
		hp       = flag.String("hprof", "", "also keep the HPROF form of the heap here")
		objects  = flag.Int("objects", 1000000, "about this many objects (scene.Large)")
		scenario = flag.Bool("scenario", false, "write the small heap with planted leaks (hprof/scene) instead")
		api      = flag.Int("api", 34, "the Android API level whose encoding to write (30, 31, 34…)")
		pid      = flag.Int("pid", 4242, "the dumped process's pid")
		seed     = flag.Uint64("seed", 1, "random seed")
		read     = flag.String("read", "", "decode this trace once (heapgraph.Read) and list its dumps instead")
	)
	flag.Parse()
	if *read != "" {
		if err := decode(*read); err != nil {
			fmt.Fprintln(os.Stderr, "heapgraphgen:", err)
			os.Exit(1)
		}
		return
	}
	if *out == "" {
		fmt.Fprintln(os.Stderr, "heapgraphgen: -o is required")
		os.Exit(2)
	}
	if err := run(*out, *hp, *objects, *scenario, *api, int32(*pid), *seed); err != nil {
		fmt.Fprintln(os.Stderr, "heapgraphgen:", err)
		os.Exit(1)
	}
}

func run(out, hpPath string, objects int, scenario bool, api int, pid int32, seed uint64) error {
	wo := heapgraph.WriterOptions{API: api, PID: pid, Timestamp: 1_700_000_000_000_000_000 + seed}
	if scenario {
		g, h, _, err := heapgraph.Scene(scene.Options{Seed: seed, API: api}, wo)
		if err != nil {
			return err
		}
		if hpPath != "" {
			if err := os.WriteFile(hpPath, h, 0o644); err != nil {
				return err
			}
		}
		return os.WriteFile(out, g, 0o644)
	}
	// The HPROF form first (a file: FromHPROF reads it twice).
	keep := hpPath != ""
	if !keep {
		f, err := os.CreateTemp("", "heapgraphgen-*.hprof")
		if err != nil {
			return err
		}
		hpPath = f.Name()
		f.Close()
		defer os.Remove(hpPath)
	}
	if err := writeLarge(hpPath, objects, seed); err != nil {
		return err
	}
	return Convert(hpPath, out, wo)
}

func writeLarge(path string, objects int, seed uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := scene.Large(w, scene.LargeOptions{Objects: objects, Seed: seed}); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// Convert writes the HPROF file in as a heap graph to out.
func Convert(in, out string, wo heapgraph.WriterOptions) error {
	src, err := os.Open(in)
	if err != nil {
		return err
	}
	defer src.Close()
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	if err := heapgraph.FromHPROF(src, w, wo); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

// decode reads a trace's heap graphs once and lists them.
func decode(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	tr, err := heapgraph.Read(f, heapgraph.Options{})
	if err != nil {
		return err
	}
	for _, g := range tr.Dumps {
		fmt.Println(g)
	}
	return nil
}
