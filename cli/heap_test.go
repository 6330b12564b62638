package cli

import (
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

func TestHeapCommandPictureAndSummary(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("t")
	art := sim.NewVM(sim.VMSpec{PID: 5101, App: "com.example.heap", Family: sim.ART, HeapBytes: 3 << 20, Fragmented: true, Seed: 21})
	dalvik := sim.NewVM(sim.VMSpec{PID: 5102, App: "com.example.native", Family: sim.Dalvik, HeapBytes: 1 << 20, Seed: 22})
	dev.Add(art)
	dev.Add(dalvik)
	defer dev.Close()
	base := freePorts(t, 2)
	if _, err := dev.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	scanFlag := fmt.Sprintf("%d-%d", base, base+1)
	run := func(args ...string) headless.HeapMap {
		t.Helper()
		out, err := runApp(t, append([]string{"heap", "--adb", "off", "--scan", scanFlag, "--json"}, args...)...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		var r headless.HeapMap
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return r
	}

	pic := filepath.Join(t.TempDir(), "heap.png")
	r := run("--pid", "5101", "--png", pic)
	byKind, bySolid := art.SegmentTruth() // the map was taken at the GC the command caused; the VM does not step here
	if r.Type != "HPSG" || !reflect.DeepEqual(r.UnitsBySolidity, headless.UnitsBySolidity(bySolid)) {
		t.Fatalf("summary %+v, truth by solidity %v", r, bySolid)
	}
	if !reflect.DeepEqual(r.UnitsByKind, headless.UnitsByKind(byKind)) || len(r.UnitsByKind) < 4 || r.Fragmentation <= 0 {
		t.Fatalf("by kind %v (truth %v), fragmentation %v", r.UnitsByKind, byKind, r.Fragmentation)
	}
	f, err := os.Open(pic)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(f)
	f.Close()
	if err != nil || img.Bounds().Dx() < 512 {
		t.Fatalf("picture: %v %v", err, img)
	}

	obj := run("--pid", "5101", "--objects")
	var objects uint64
	for _, b := range obj.Histogram {
		objects += b.Count
	}
	if obj.Type != "HPSO" || objects != uint64(len(art.ObjectTruth())) {
		t.Fatalf("objects: type %s, histogram counts %d, VM has %d", obj.Type, objects, len(art.ObjectTruth()))
	}

	nat := run("--pid", "5102", "--native")
	used, free := dalvik.NativeTruth()
	if nat.Type != "NHSG" || nat.UsedBytes != used*8 || nat.FreeBytes != free*8 || nat.Segments < 3 {
		t.Fatalf("native: %+v, truth used %d free %d units", nat, used, free)
	}
	// Without --png or --json: the summary as text (issue 29 #13).
	text, err := runApp(t, "heap", "--adb", "off", "--scan", scanFlag, "--pid", "5102", "--native")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(text, "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[0], "com.example.native (pid 5102), native heap (NHSG): ") ||
		!strings.HasPrefix(lines[1], "used "+bytesOf(used*8)+", free "+bytesOf(free*8)) || !strings.HasPrefix(lines[2], "by kind:") {
		t.Fatalf("text summary:\n%s", text)
	}
}

// bytesOf is headless's byte text, written out here for the test.
func bytesOf(n uint64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%dB", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1fK", float64(n)/1024)
	}
	return fmt.Sprintf("%.1fM", float64(n)/(1<<20))
}
