package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// obfuscateDump turns a dump's app frames and lock lines into what a
// minified build of the app would show (R8 style: classes a.a, a.b, …,
// methods m0, m1, …, lines renumbered) and writes the mapping file that
// undoes it.
func obfuscateDump(t *testing.T, text, pkg string) (obfuscated, mapping string) {
	t.Helper()
	frame := regexp.MustCompile(`(` + regexp.QuoteMeta(pkg) + `[\w$.]*)\.([\w$<>]+)\((\w+\.java):(\d+)\)`)
	lock := regexp.MustCompile(`\(a (` + regexp.QuoteMeta(pkg) + `[\w$.]*)\)`)
	classes := map[string]string{}
	var order []string
	obfClass := func(c string) string {
		if o, ok := classes[c]; ok {
			return o
		}
		o := "a." + string(rune('a'+len(classes)))
		classes[c] = o
		order = append(order, c)
		return o
	}
	members := map[string][]string{}
	line := 0
	obfuscated = frame.ReplaceAllStringFunc(text, func(s string) string {
		m := frame.FindStringSubmatch(s)
		line++
		oc := obfClass(m[1])
		om := fmt.Sprintf("m%d", line)
		members[m[1]] = append(members[m[1]], fmt.Sprintf("    %d:%d:void %s():%s:%s -> %s", line, line, m[2], m[4], m[4], om))
		return oc + "." + om + "(SourceFile:" + strconv.Itoa(line) + ")"
	})
	obfuscated = lock.ReplaceAllStringFunc(obfuscated, func(s string) string {
		return "(a " + obfClass(lock.FindStringSubmatch(s)[1]) + ")"
	})
	var b strings.Builder
	b.WriteString("# compiler: R8\n")
	for _, c := range order {
		fmt.Fprintf(&b, "%s -> %s:\n", c, classes[c])
		for _, m := range members[c] {
			b.WriteString(m + "\n")
		}
	}
	if strings.Contains(obfuscated, pkg+".Ledger.post") || len(classes) < 5 {
		t.Fatalf("obfuscation did nothing: %d classes", len(classes))
	}
	return obfuscated, b.String()
}

// TestANRMapping: the dump of a minified app, read with --mapping, parses
// to exactly what the dump of the app as built from source parses to:
// frames, files, lines and the classes of held and awaited locks.
func TestANRMapping(t *testing.T) {
	src, err := os.ReadFile(anrTestdata("art14_deadlock3.txt"))
	if err != nil {
		t.Fatal(err)
	}
	obf, mp := obfuscateDump(t, string(src), "com.example.ledger.")
	dir := t.TempDir()
	dump, mapping := filepath.Join(dir, "traces.txt"), filepath.Join(dir, "mapping.txt")
	os.WriteFile(dump, []byte(obf), 0o644)
	os.WriteFile(mapping, []byte(mp), 0o644)
	want := anrJSON(t, anrTestdata("art14_deadlock3.txt"), "--json")
	plain := anrJSON(t, dump, "--json")
	if reflect.DeepEqual(plain, want) {
		t.Fatal("the obfuscated dump already reads like the source's")
	}
	got := anrJSON(t, dump, "--json", "--mapping", mapping)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("with --mapping the dump differs from the source build's")
		for k := range want {
			if !reflect.DeepEqual(got[k], want[k]) {
				t.Errorf("key %q:\n got %.600v\nwant %.600v", k, got[k], want[k])
			}
		}
	}
}
