package savefile

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
)

// A heap graph is saved as received once it decodes; a truncated one, a
// trace without a heap graph (perfetto skipped the app) or one of another
// pid leaves nothing behind and says why.
func TestSaveHeapGraph(t *testing.T) {
	data, _, _, err := heapgraph.Scene(scene.Options{Seed: 2}, heapgraph.WriterOptions{API: 34, PID: 77, PacketBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "a.pftrace")
	var g *heapgraph.Graph
	if _, err := SaveBytes(context.Background(), path, data, HeapGraph(77, &g)); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, data) || g == nil || g.PID != 77 || g.NumObjects() == 0 {
		t.Fatalf("saved %d bytes, graph %v", len(got), g)
	}
	var other bytes.Buffer
	if err := heapgraph.WritePacket(&other, 1, 1, 47, []byte{0x0A, 0x00}); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct {
		data []byte
		pid  int32
		want string
	}{
		"truncated":     {data[:len(data)/2], 77, "data ends early"},
		"no heap graph": {other.Bytes(), 77, "neither debuggable nor profileable"},
		"another pid":   {data, 78, "no Java heap graph of pid 78"},
	} {
		p := filepath.Join(dir, "b.pftrace")
		_, err := SaveBytes(context.Background(), p, c.data, HeapGraph(c.pid, nil))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
		if _, serr := os.Stat(p); serr == nil {
			t.Errorf("%s: the file was saved", name)
		}
	}
	if names := entries(t, dir); len(names) != 1 {
		t.Errorf("left behind: %v", names)
	}
}
