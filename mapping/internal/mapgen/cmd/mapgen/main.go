// Command mapgen writes a realistic R8 mapping file of a given size
// (scripts/bench-mapping.sh); with -read it reads a file whole into memory
// and touches every page (the plain read the benchmark compares against);
// with -index it indexes a file with mapping.Open and prints its summary;
// with -frames N it writes an N-frame stack trace of the mapping it writes.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/mapping/internal/mapgen"
)

func main() {
	size := flag.Int64("size", 100<<20, "bytes to write")
	out := flag.String("o", "mapping.txt", "output file")
	read := flag.String("read", "", "read this file whole and exit (baseline)")
	index := flag.String("index", "", "index this mapping file and exit")
	frames := flag.String("frames", "", "also write a stack trace of 10,000 frames of the mapping to this file")
	flag.Parse()
	if *index != "" {
		m, err := mapping.Open(*index)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(m.Summary())
		return
	}
	if *read != "" {
		data, err := os.ReadFile(*read)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		sum := 0
		for i := 0; i < len(data); i += 4096 {
			sum += int(data[i])
		}
		fmt.Println(len(data), sum)
		return
	}
	f, err := os.Create(*out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sample, err := mapgen.Write(f, *size, 1)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if *frames != "" && len(sample) > 0 {
		var b strings.Builder
		for i := 0; i < 10000; i++ {
			if i%50 == 0 {
				fmt.Fprintf(&b, "java.lang.IllegalStateException: crash %d\n", i/50)
			}
			c := sample[i%len(sample)]
			fmt.Fprintf(&b, "\tat %s.%s(SourceFile:%d)\n", c.Obfuscated, c.Obf, c.Line)
		}
		if err := os.WriteFile(*frames, []byte(b.String()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if err := f.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
