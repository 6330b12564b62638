package hprof

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// hprofConv runs Debian's hprof-conv on in and returns its output. It is
// run under a timeout: hprof-conv loops forever on some malformed input.
func hprofConv(t *testing.T, prog string, in []byte, z bool) []byte {
	t.Helper()
	dir := t.TempDir()
	inPath, outPath := filepath.Join(dir, "in.hprof"), filepath.Join(dir, "out.hprof")
	if err := os.WriteFile(inPath, in, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{inPath, outPath}
	if z {
		args = append([]string{"-z"}, args...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("hprof-conv %v: %v: %s", args, err, stderr.Bytes())
	}
	out, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// firstDiff describes where two byte strings first differ.
func firstDiff(a, b []byte) string {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return fmt.Sprintf("first difference at offset %d (%#02x, hprof-conv %#02x); lengths %d, %d", i, a[i], b[i], len(a), len(b))
		}
	}
	return fmt.Sprintf("lengths %d and %d, equal for %d bytes", len(a), len(b), n)
}

// Convert's output is byte-identical to Debian's hprof-conv on generated
// files of many shapes, with and without -z.
func TestConvertMatchesHprofConv(t *testing.T) {
	prog := testpeer.Require(t, "hprof-conv")
	type file struct {
		s    Synth
		opts ConvertOptions
	}
	var files []file
	for seed := uint64(1); seed <= 8; seed++ {
		s := Synth{Seed: seed, Classes: int(3 + seed*5), Instances: int(50 + seed*400), Arrays: int(seed * 60), MaxArrayLength: int(1 + seed*seed*10)}
		files = append(files, file{s, ConvertOptions{}}, file{s, ConvertOptions{ExcludeZygote: true}})
	}
	// NODATA arrays: hprof-conv's own rewrite.
	for seed := uint64(20); seed < 23; seed++ {
		s := Synth{Seed: seed, NoData: true, Instances: 800}
		files = append(files, file{s, ConvertOptions{NoData: NoDataAsHprofConv}},
			file{s, ConvertOptions{NoData: NoDataAsHprofConv, ExcludeZygote: true}})
	}
	// A simulator-style heap and a larger file.
	files = append(files,
		file{Synth{Seed: 30, Heap: []ClassCount{{"com.example.Foo", 300}, {"byte[]", 40}, {"java.lang.String", 100}, {"com.example.Bar[]", 7}}}, ConvertOptions{}},
		file{Synth{Seed: 31, Classes: 200, Instances: 60000, Arrays: 20000, MaxArrayLength: 500}, ConvertOptions{ExcludeZygote: true}},
	)
	for _, f := range files {
		name := fmt.Sprintf("seed%d-z%v-nodata%v", f.s.Seed, f.opts.ExcludeZygote, f.s.NoData)
		t.Run(name, func(t *testing.T) {
			in := synthBytes(t, f.s)
			want := hprofConv(t, prog, in, f.opts.ExcludeZygote)
			got := convert(t, in, f.opts)
			if !bytes.Equal(got, want) {
				t.Fatalf("Convert differs from hprof-conv on a %d-byte file: %s", len(in), firstDiff(got, want))
			}
			if bytes.Equal(in[18:], got[18:]) {
				t.Fatal("nothing was converted")
			}
		})
	}
}

// The hand-written vectors of convert_test.go are what hprof-conv writes.
func TestConvertVectorsAreHprofConvs(t *testing.T) {
	prog := testpeer.Require(t, "hprof-conv")
	for _, tc := range convertVectors() {
		t.Run(tc.name, func(t *testing.T) {
			got := hprofConv(t, prog, tc.in, tc.opts.ExcludeZygote)
			if tc.notHprofConv {
				// hprof-conv leaves NODATA elements out; that is our
				// NoDataAsHprofConv mode, and the zero-filled want differs.
				if bytes.Equal(got, tc.want) {
					t.Fatal("hprof-conv now zero-fills NODATA arrays: make it the only mode")
				}
				opts := tc.opts
				opts.NoData = NoDataAsHprofConv
				if ours := convert(t, tc.in, opts); !bytes.Equal(ours, got) {
					t.Fatalf("NoDataAsHprofConv: %s", firstDiff(ours, got))
				}
				return
			}
			if !bytes.Equal(got, tc.want) {
				t.Fatalf("hprof-conv wrote\n%x\nthe vector wants\n%x", got, tc.want)
			}
		})
	}
}

// Where Convert deliberately differs: hprof-conv assumes 4-byte identifiers
// and fails on a file with 8-byte ones, which Convert converts.
func TestHprofConvAssumesFourByteIDs(t *testing.T) {
	prog := testpeer.Require(t, "hprof-conv")
	in := synthBytes(t, Synth{Seed: 40, IDSize: 8, Instances: 50})
	dir := t.TempDir()
	inPath := filepath.Join(dir, "in.hprof")
	if err := os.WriteFile(inPath, in, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, prog, inPath, filepath.Join(dir, "out.hprof")).CombinedOutput()
	if err == nil {
		t.Fatalf("hprof-conv now converts 8-byte identifiers (%s): compare its output with Convert's", out)
	}
	if !bytes.Contains(out, []byte("unexpected subtype")) {
		t.Errorf("hprof-conv failed differently: %v: %s", err, out)
	}
	h, _, err := readAll(convert(t, in, ConvertOptions{}))
	if err != nil || h.IDSize != 8 || h.Version != VersionStandard {
		t.Fatalf("Convert: header %+v, %v", h, err)
	}
}
