package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/heapdump"
	"github.com/ddmtui/ddmtui/mapping"
	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

const heapMappingDemo = `package com.example.shop;

public class Main {
    static class Item {
        int count;
        byte[] data;
        Item(int count) { this.count = count; this.data = new byte[100 + count]; }
    }
    static class Cart {
        Item[] items;
        Cart previous;
    }

    static Cart current;

    static Cart build() {
        Cart c = new Cart();
        c.items = new Item[25];
        for (int i = 0; i < c.items.length; i++) {
            c.items[i] = new Item(i);
        }
        c.previous = new Cart();
        return c;
    }

    static int total() {
        int sum = 0;
        for (Item it : current.items) {
            sum += it.count + it.data.length;
        }
        return sum;
    }

    public static void main(String[] args) throws Exception {
        current = build();
        int sum = total();
        System.out.println("READY " + sum + " " + (current.previous != null));
        System.out.flush();
        Thread.sleep(600000);
    }
}
`

// TestHprofMappingProGuardPeer: a program obfuscated by ProGuard holds a
// cart of items; jcmd dumps its heap; `hprof analyze --json --mapping`
// names its classes and `hprof path --mapping` its fields as the source
// does, with the numbers of the analysis without the mapping.
func TestHprofMappingProGuardPeer(t *testing.T) {
	javac := testpeer.Require(t, "javac")
	java := testpeer.Require(t, "java")
	jcmd := testpeer.Require(t, "jcmd")
	proguard := testpeer.Require(t, "proguard")
	dir := t.TempDir()
	lib := filepath.Join(dir, "rt8.jar")
	writeJava8Library(t, javac, lib)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "Main.java"), []byte(heapMappingDemo), 0o644); err != nil {
		t.Fatal(err)
	}
	run(javac, "--release", "8", "-d", "classes", "Main.java")
	if err := zipDir(filepath.Join(dir, "in.jar"), filepath.Join(dir, "classes"), nil); err != nil {
		t.Fatal(err)
	}
	conf := "-injars in.jar\n-outjars out.jar\n-libraryjars " + lib + "\n-printmapping mapping.txt\n-dontoptimize\n" +
		"-keep public class com.example.shop.Main { public static void main(java.lang.String[]); }\n"
	if err := os.WriteFile(filepath.Join(dir, "pg.pro"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	run(proguard, "@pg.pro")
	mp := filepath.Join(dir, "mapping.txt")

	cmd := exec.CommandContext(ctx, java, "-Xms32m", "-XX:+UseSerialGC", "-cp", filepath.Join(dir, "out.jar"), "com.example.shop.Main")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || !strings.HasPrefix(line, "READY ") {
		t.Fatalf("the program: %q %v", line, err)
	}
	file := filepath.Join(dir, "heap.hprof")
	run(jcmd, fmt.Sprint(cmd.Process.Pid), "GC.heap_dump", file)

	analyze := func(args ...string) heapdump.Report {
		t.Helper()
		out, stderr, err := runAppSplit(t, append([]string{"hprof", "analyze", "--json"}, append(args, file)...)...)
		if err != nil {
			t.Fatalf("%v\n%s", err, stderr)
		}
		var r heapdump.Report
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	plain, named := analyze(), analyze("--mapping", mp)
	rows := map[string]heapdump.ClassRow{}
	for _, r := range named.Classes {
		rows[r.Name] = r
	}
	if r := rows["com.example.shop.Main$Item"]; r.Instances != 25 || r.ReachableInstances != 25 {
		t.Errorf("Item: %+v", r)
	}
	if r := rows["com.example.shop.Main$Item[]"]; r.Instances != 1 {
		t.Errorf("Item[]: %+v", r)
	}
	if r := rows["com.example.shop.Main$Cart"]; r.Instances != 2 {
		t.Errorf("Cart: %+v", r)
	}
	if named.Mapping == nil || named.Mapping.Known < 3 {
		t.Errorf("mapping section %+v", named.Mapping)
	}
	// The same rows in the same order; only the app's names differ.
	if len(plain.Classes) != len(named.Classes) {
		t.Fatalf("%d rows, %d without the mapping", len(named.Classes), len(plain.Classes))
	}
	renamed := 0
	for i, p := range plain.Classes {
		n := named.Classes[i]
		if p.Name != n.Name {
			renamed++
			if strings.HasPrefix(p.Name, "com.example.shop.Main$") || !strings.HasPrefix(n.Name, "com.example.shop.Main") {
				t.Errorf("row %d: %q named %q", i, p.Name, n.Name)
			}
		}
		p.Name = n.Name
		if p != n {
			t.Errorf("row %d: %+v, %+v without the mapping", i, n, p)
		}
	}
	if renamed != 3 {
		t.Errorf("%d rows renamed, want Item, Item[] and Cart", renamed)
	}

	// The path to the items' array (found by its obfuscated name): Main's
	// static current, Cart's items.
	m, err := mapping.Open(mp)
	if err != nil {
		t.Fatal(err)
	}
	obf, ok := m.Obfuscated("com.example.shop.Main$Item")
	if !ok {
		t.Fatalf("the mapping does not name Item:\n%s", m.Summary())
	}
	h, err := heapdump.Open(file, heapdump.Options{})
	if err != nil {
		t.Fatal(err)
	}
	arrays := h.Instances(obf+"[]", "")
	if len(arrays) != 1 {
		h.Close()
		t.Fatalf("%d arrays of %s", len(arrays), obf)
	}
	array := heapdump.HexID(h.ID(arrays[0]))
	h.Close()
	out, err := runApp(t, "hprof", "path", "--json", "--mapping", mp, file, array)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var ps heapdump.PathsJSON
	if err := json.Unmarshal([]byte(out), &ps); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var steps []string
	for _, p := range ps.Paths {
		for _, s := range p.Path {
			f := ""
			if s.Field != nil {
				f = *s.Field
			}
			steps = append(steps, f+">"+s.Class+s.Of)
		}
	}
	if want := []string{">java.lang.Classcom.example.shop.Main", "current>com.example.shop.Main$Cart", "items>com.example.shop.Main$Item[]"}; !reflect.DeepEqual(steps, want) {
		t.Errorf("path %q, want %q\n%s", steps, want, out)
	}
}
