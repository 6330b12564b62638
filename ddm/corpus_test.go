package ddm

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var writeCorpus = flag.Bool("ddm.write-corpus", false, "rewrite the seed corpora under testdata/fuzz from the test vectors")

// zlibHPIFChunk is the spec's HPIF example wrapped in a ZLIB chunk (zlib
// stream written once with compress/zlib at best compression).
var zlibHPIFChunk = hx(
	"5A 4C 49 42  00 00 00 2F", // ZLIB, 47 bytes
	"48 50 49 46  00 00 00 21", // original type HPIF, 33 bytes
	"78 DA 62 60 60 60 84 60 C6 70 5F A7 AD BF 99 05 18 18 18 18 0E 30 30 30 34 80 84 53 92 00 01 00 00 FF FF 40 98 04 B4",
)

// zlibBombChunk claims 256 bytes but inflates to 4096 zeros.
var zlibBombChunk = hx(
	"5A 4C 49 42  00 00 00 26",
	"48 50 44 53  00 00 01 00",
	"78 DA EC C0 01 0D 00 00 00 C2 20 FB A7 B6 C7 07 03 00 00 00 F2 1E 00 00 FF FF 10 00 00 01",
)

func TestZLIBSeeds(t *testing.T) {
	for _, seed := range [][]byte{zlibHPIFChunk, zlibBombChunk} {
		chunks, err := ParseChunks(seed, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) != 1 || chunks[0].Type != TypeZLIB || !bytes.Equal(chunks[0].Data, seed[ChunkHeaderLen:]) {
			t.Fatalf("ZLIB seed parsed to %+v, want it as it came", chunks)
		}
	}
}

// seed is one file of a fuzz target's seed corpus.
type seed struct {
	target string
	name   string
	args   []any // uint32 or []byte, in the target's parameter order
}

func seedName(prefix, s string) string {
	var b strings.Builder
	b.WriteString(prefix)
	dash := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return strings.TrimRight(b.String(), "-")
}

// fuzzSeeds builds every seed from the vectors and rejection cases, so the
// fuzzers start from every layout the spec describes.
func fuzzSeeds() []seed {
	var seeds []seed
	bodyTargets := map[Type]string{
		TypeTHST: "FuzzTHST", TypeHPSG: "FuzzHeapSegment", TypeHPSO: "FuzzHeapSegment", TypeNHSG: "FuzzHeapSegment",
		TypeREAL: "FuzzREAL", TypeHELO: "FuzzHELO", TypeSTKL: "FuzzSTKL", TypeNHGT: "FuzzNHGT", TypeHPIF: "FuzzHPIF",
	}
	add := func(dir direction, typ Type, name string, body []byte) {
		table := "FuzzDecodeFromVM"
		if dir == monitorToVM {
			table = "FuzzDecodeFromMonitor"
		}
		seeds = append(seeds, seed{table, name, []any{uint32(typ), body}})
		seeds = append(seeds, seed{"FuzzParseChunks", name, []any{AppendChunk(nil, typ, body)}})
		if target, ok := bodyTargets[typ]; ok && dir == vmToMonitor {
			seeds = append(seeds, seed{target, name, []any{body}})
		}
	}
	for _, v := range vectors {
		add(v.dir, v.typ, seedName("vec-", v.name), v.body)
	}
	for _, r := range rejectCases {
		add(r.dir, r.typ, seedName("bad-", r.name), r.body)
	}
	for _, s := range []struct {
		name string
		body []byte
	}{
		{"bad-hpsg-runs-short", hx("00 00 00 01  08  12 C0 00 00  00 00 00 00  00 00 01 3C", "01 01  19 03  00 09  91 FF  11 2A")},
		{"bad-hpsg-continuation", hx("00 00 00 01  08  12 C0 00 00  00 00 00 00  00 00 01 2C", "91 FF  19 2B")},
		{"bad-hpsg-odd-byte", hx("00 00 00 01  08  12 C0 00 00  00 00 00 00  00 00 00 02", "01 01  01")},
	} {
		add(vmToMonitor, TypeHPSG, s.name, s.body)
	}
	for _, p := range []struct {
		name string
		data []byte
	}{
		{"empty-reply", nil},
		{"two-chunks", hx("54 48 44 45  00 00 00 04  00 00 00 09", "48 50 47 43  00 00 00 00")},
		{"short-trailer", hx("57 41 49 54  00 00 00 01  00", "48 45 4C")},
		{"zlib-hpif", zlibHPIFChunk},
		{"zlib-bomb", zlibBombChunk},
	} {
		seeds = append(seeds, seed{"FuzzParseChunks", p.name, []any{p.data}})
	}
	return seeds
}

func corpusFile(args []any) []byte {
	var b bytes.Buffer
	b.WriteString("go test fuzz v1\n")
	for _, a := range args {
		switch v := a.(type) {
		case uint32:
			fmt.Fprintf(&b, "uint32(%d)\n", v)
		case []byte:
			fmt.Fprintf(&b, "[]byte(%q)\n", v)
		default:
			panic(fmt.Sprintf("unsupported seed argument %T", a))
		}
	}
	return b.Bytes()
}

// TestFuzzCorpus checks that every committed seed file matches what the
// vectors say; with -ddm.write-corpus it writes them instead.
func TestFuzzCorpus(t *testing.T) {
	seen := map[string]bool{}
	perTarget := map[string]int{}
	for _, s := range fuzzSeeds() {
		path := filepath.Join("testdata", "fuzz", s.target, s.name)
		if seen[path] {
			t.Fatalf("two seeds named %s", path)
		}
		seen[path] = true
		perTarget[s.target]++
		want := corpusFile(s.args)
		if *writeCorpus {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Errorf("%v (regenerate with: go test -run TestFuzzCorpus ./ddm/ -args -ddm.write-corpus)", err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale (regenerate with: go test -run TestFuzzCorpus ./ddm/ -args -ddm.write-corpus)", path)
		}
	}
	for _, target := range []string{"FuzzParseChunks", "FuzzDecodeFromVM", "FuzzDecodeFromMonitor", "FuzzTHST",
		"FuzzHeapSegment", "FuzzREAL", "FuzzHELO", "FuzzSTKL", "FuzzNHGT", "FuzzHPIF"} {
		if perTarget[target] == 0 {
			t.Errorf("no seeds for %s", target)
		}
	}
}
