package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
	"github.com/ddmtui/ddmtui/savefile"
)

// The `hprof` command's Java heap graphs (spec/perfetto-heapgraph.md):
// where `am dumpheap` is refused (a profileable app that is not
// debuggable) the heap comes as a Perfetto trace through the same save
// path.

// Heap dump formats of `hprof --format`.
const (
	formatAuto      = "auto"
	formatHPROF     = "hprof"
	formatHeapGraph = "heapgraph"
)

var heapFormatFlag = &cli.StringFlag{Name: "format", Value: formatAuto,
	Usage: "hprof, heapgraph (a Perfetto trace of the Java heap: debuggable or profileable apps, Android 11+), or auto: a heap graph where am dumpheap is refused (profileable, not debuggable)"}

func heapFormat(c *cli.Context) (string, error) {
	switch f := c.String("format"); f {
	case formatAuto, formatHPROF, formatHeapGraph:
		if f == formatHeapGraph && c.Bool("android") {
			return "", errors.New("--android is for HPROF; a heap graph is saved as perfetto wrote it")
		}
		return f, nil
	default:
		return "", fmt.Errorf("--format %s: want auto, hprof or heapgraph", safetext.Terminal(f))
	}
}

// saveHeapGraph takes vm's heap as a heap graph into out through the one
// save path (a temporary file beside out, validated by decoding it, then
// renamed), and returns the decoded dump.
func saveHeapGraph(ctx context.Context, s *monitor.Session, vm monitor.VM, out string, timeout time.Duration, progress func(uint64)) (*heapgraph.Graph, error) {
	var g *heapgraph.Graph
	opts := savefile.HeapGraph(int32(vm.PID), &g)
	opts.Timeout, opts.Progress = timeout, progress
	_, err := savefile.Save(ctx, out, opts, func(ctx context.Context, w *savefile.Writer) error {
		if _, err := s.HeapGraphTo(ctx, w, w.Progress); err != nil {
			return fmt.Errorf("heap graph of pid %d: %w", vm.PID, err)
		}
		return nil
	})
	return g, err
}

// reportHeapGraph prints what a saved heap graph holds, and with
// --analyze its analysis (as `hprof analyze` does on the trace).
func reportHeapGraph(c *cli.Context, out string, g *heapgraph.Graph) error {
	fmt.Fprintf(c.App.Writer, "wrote %s: Java heap graph (Perfetto trace) of pid %d: %d objects, %d classes, %d roots in %d packets\n",
		safetext.Terminal(out), g.PID, g.NumObjects(), len(g.Types), len(g.Roots), g.Packets)
	heaps := map[heapgraph.HeapType][2]uint64{}
	for i, h := range g.Heap {
		v := heaps[h]
		heaps[h] = [2]uint64{v[0] + 1, v[1] + uint64(g.Size[i])}
	}
	for _, h := range []heapgraph.HeapType{heapgraph.HeapApp, heapgraph.HeapZygote, heapgraph.HeapBootImage, heapgraph.HeapUnknown} {
		if v, ok := heaps[h]; ok {
			fmt.Fprintf(c.App.Writer, "  heap %-8s %8d objects %10s\n", h.Name(), v[0], humanSize(v[1]))
		}
	}
	if c.Bool("analyze") {
		fmt.Fprintln(c.App.Writer)
		return analyzeHeap(c, out, out, c.Bool("json"), c.Int("top"), openHeapViewer, isTerminal)
	}
	return nil
}
