package heapdump

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
	"github.com/ddmtui/ddmtui/testkit/hprofref"
)

// The analyser against the reference (testkit/hprofref, D1–D16 read
// straight from the spec, sharing no code with it) on every form of dump
// the scenes write: ART at several API levels, Dalvik, Android 15 with
// bitmap pixels, a 64-bit JVM's standard form, and ART's after hprof-conv.
// Every number of the JSON report must agree, every path the analyser
// gives must be a valid shortest path, and the diff of two dumps must
// agree too.

type crossCase struct {
	name string
	opts scene.Options
	conv bool // run through hprof.Convert first
}

func crossCases() []crossCase {
	filler := []hprof.ClassCount{{Name: "java.lang.String", Instances: 40}, {Name: "int[]", Instances: 30},
		{Name: "java.lang.Object[]", Instances: 20}, {Name: "com.example.mail.data.Message", Instances: 25}}
	return []crossCase{
		{"art-34", scene.Options{Seed: 1}, false},
		{"art-34-filler", scene.Options{Seed: 2, Filler: filler}, false},
		{"art-34-converted", scene.Options{Seed: 3, Filler: filler}, true},
		{"art-23-mbuffer", scene.Options{Seed: 4, API: 23}, false},
		{"dalvik-19", scene.Options{Seed: 5, API: 19, Filler: filler}, false},
		{"art-35-png", scene.Options{Seed: 6, API: 35, BitmapFormat: "png"}, false},
		{"art-35-jpg", scene.Options{Seed: 7, API: 35, BitmapFormat: "jpg", Filler: filler}, false},
		{"standard", scene.Options{Seed: 8, Standard: true, Filler: filler}, false},
	}
}

func buildCase(t *testing.T, c crossCase) []byte {
	t.Helper()
	data, _, err := scene.Build(c.opts)
	if err != nil {
		t.Fatal(err)
	}
	if c.conv {
		var out bytes.Buffer
		if err := hprof.Convert(&out, bytes.NewReader(data), hprof.ConvertOptions{}); err != nil {
			t.Fatal(err)
		}
		data = out.Bytes()
	}
	return data
}

func reference(t *testing.T, data []byte) *hprofref.Analysis {
	t.Helper()
	d, err := hprofref.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return d.Analyze()
}

// viaJSON re-reads v's JSON as the reference's types, as a consumer of
// `--json` would.
func viaJSON(t *testing.T, v, into any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
}

func TestAgainstReference(t *testing.T) {
	for _, c := range crossCases() {
		t.Run(c.name, func(t *testing.T) {
			data := buildCase(t, c)
			ref := reference(t, data)
			h, err := Analyze(data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()

			got := checkReport(t, h, ref)
			if len(got.Leaks) == 0 || len(got.Classes) == 0 {
				t.Fatalf("nothing to compare: %d leaks, %d classes", len(got.Leaks), len(got.Classes))
			}

			// Paths: every leak's, and those of reachable objects picked at
			// random, are valid shortest paths; an unreachable object has none.
			rng := rand.New(rand.NewPCG(c.opts.Seed, 99))
			var ids []uint64
			for id := range ref.Depth {
				ids = append(ids, id)
			}
			var pick []uint64
			for i := 0; i < 60 && len(ids) > 0; i++ {
				pick = append(pick, ids[rng.IntN(len(ids))])
			}
			ps, err := h.Paths().Of(pick)
			if err != nil {
				t.Fatal(err)
			}
			var paths hprofref.Paths
			viaJSON(t, ps, &paths)
			if len(paths.Paths) != len(pick) {
				t.Fatalf("%d paths for %d ids", len(paths.Paths), len(pick))
			}
			for _, p := range paths.Paths {
				if err := ref.ValidPath(p.Path); err != nil {
					t.Errorf("path of %s: %v", fmt.Sprint(p.ID), err)
				}
			}
		})
	}
}

// The diff of two dumps (D16), as the analyser computes it from its two
// heaps and as the reference computes it from its two results.
func TestDiffAgainstReference(t *testing.T) {
	old := crossCase{"old", scene.Options{Seed: 11, Filler: []hprof.ClassCount{{Name: "int[]", Instances: 10}, {Name: "com.example.mail.data.Message", Instances: 5}}}, false}
	grown := crossCase{"new", scene.Options{Seed: 12, Filler: []hprof.ClassCount{{Name: "int[]", Instances: 10}, {Name: "com.example.mail.data.Message", Instances: 50},
		{Name: "java.lang.String", Instances: 30}}}, false}
	da, db := buildCase(t, old), buildCase(t, grown)
	ha, err := Analyze(da, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ha.Close()
	hb, err := Analyze(db, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer hb.Close()
	var got []hprofref.DiffRow
	viaJSON(t, Diff(ha.Histogram(), hb.Histogram()), &got)
	want := hprofref.Diff(reference(t, da).Result(), reference(t, db).Result())
	if len(want) == 0 {
		t.Fatal("the two dumps do not differ")
	}
	if len(got) != len(want) {
		t.Fatalf("%d diff rows, the reference has %d:\n got %+v\nwant %+v", len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %+v, the reference has %+v", i, got[i], want[i])
		}
	}
}

// checkReport compares h's whole report (--top large enough to hold every
// row) with the reference's answers.
func checkReport(t *testing.T, h *Heap, ref *hprofref.Analysis) *hprofref.Result {
	t.Helper()
	var got hprofref.Result
	viaJSON(t, h.Report(1<<30), &got)
	for i, d := range ref.Check(&got) {
		if i == 20 {
			t.Errorf("…")
			break
		}
		t.Error(d)
	}
	return &got
}

// A real JVM's dump (jcmd GC.heap_dump on OpenJDK 17: 8-byte ids, internal
// class names, thousands of JDK objects) agrees with the reference too.
func TestJVMDumpAgainstReference(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no JVM")
	}
	path := jvmDump(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ref := reference(t, data)
	h, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	got := checkReport(t, h, ref)
	if len(got.Classes) < 100 || len(ref.Depth) < 1000 {
		t.Fatalf("a JVM dump with %d classes and %d reachable objects: too small to be real", len(got.Classes), len(ref.Depth))
	}
}
