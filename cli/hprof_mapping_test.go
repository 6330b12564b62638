package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
)

// `hprof analyze|diff --mapping` name a minified app's classes as its
// source does, with the numbers of the same analysis without the mapping;
// the report says how many classes the mapping knew.
func TestHprofAnalyzeMapping(t *testing.T) {
	dir := t.TempDir()
	file, _ := writeScene(t, dir, "a.hprof", scene.Options{Filler: []hprof.ClassCount{{Name: "a.b", Instances: 7}, {Name: "a.b[]", Instances: 2}}})
	mp := filepath.Join(dir, "mapping.txt")
	if err := os.WriteFile(mp, []byte("com.example.shop.Item -> a.b:\n    int count -> a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	report := func(args ...string) heapdump.Report {
		t.Helper()
		out, stderr, err := runAppSplit(t, append([]string{"hprof", "analyze", "--json"}, args...)...)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		if len(args) > 1 && !strings.Contains(stderr, "hprof analyze: mapping: 1 of ") {
			t.Errorf("no warning of a mapping for another build: %q", stderr)
		}
		var r heapdump.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return r
	}
	plain, named := report(file), report("--mapping", mp, file)
	if plain.Mapping != nil || named.Mapping == nil {
		t.Fatalf("mapping sections: %+v, %+v", plain.Mapping, named.Mapping)
	}
	// The scene's own app classes (com.example.mail.*) are not in this
	// mapping: 1 of them is known.
	if m := named.Mapping; m.Known != 1 || m.Total < 5 || !strings.Contains(m.Summary, "wrong build?") {
		t.Errorf("coverage %+v", m)
	}
	renamed := 0
	for i, r := range plain.Classes {
		switch r.Name {
		case "a.b":
			r.Name, renamed = "com.example.shop.Item", renamed+1
		case "a.b[]":
			r.Name, renamed = "com.example.shop.Item[]", renamed+1
		}
		if !reflect.DeepEqual(named.Classes[i], r) {
			t.Errorf("class row %d: %+v, want %+v", i, named.Classes[i], r)
		}
	}
	if renamed != 2 {
		t.Errorf("%d rows renamed", renamed)
	}
	named.Classes, plain.Classes, named.Mapping = nil, nil, nil
	pj, _ := json.Marshal(plain)
	nj, _ := json.Marshal(named)
	// The class objects among the dominators name their classes too.
	want := strings.NewReplacer(`"of":"a.b"`, `"of":"com.example.shop.Item"`, `"of":"a.b[]"`, `"of":"com.example.shop.Item[]"`).Replace(string(pj))
	if want == string(pj) || want != string(nj) {
		t.Errorf("the rest of the report differs:\n%s\n%s", pj, nj)
	}

	out, err := runApp(t, "hprof", "analyze", "--mapping", mp, file)
	if err != nil || !strings.Contains(out, "\nmapping: 1 of ") || !strings.Contains(out, "com.example.shop.Item") {
		t.Errorf("text: %v\n%s", err, out)
	}
	base, _ := writeScene(t, dir, "base.hprof", scene.Options{Seed: 2})
	out, err = runApp(t, "hprof", "diff", "--json", "--mapping", mp, base, file)
	if err != nil || !strings.Contains(out, `"com.example.shop.Item"`) || strings.Contains(out, `"a.b"`) {
		t.Errorf("diff: %v\n%s", err, out)
	}
	if _, err := runApp(t, "hprof", "path", "--mapping", filepath.Join(dir, "none.txt"), file, "0x1"); err == nil || !strings.Contains(err.Error(), "--mapping") {
		t.Errorf("a missing mapping file: %v", err)
	}
}
