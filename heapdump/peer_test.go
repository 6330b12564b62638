package heapdump

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// heapShape is a Java program with a known heap: 37 Items, each holding a
// 100-byte payload, in a static array; a Lonely object that only a
// WeakReference holds; a 7-element int[][] in a static.
const heapShape = `
import java.lang.ref.WeakReference;

public class HeapShape {
    static class Item {
        int n;
        byte[] payload;
        Item(int n) { this.n = n; this.payload = new byte[100]; }
    }
    static class Lonely { long x = 42; }
    static Item[] ITEMS;
    static WeakReference<Lonely> WEAK;
    static int[][] GRID;

    public static void main(String[] args) throws Exception {
        ITEMS = new Item[37];
        for (int i = 0; i < ITEMS.length; i++) ITEMS[i] = new Item(i);
        GRID = new int[7][];
        WEAK = new WeakReference<>(new Lonely());
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(600000);
    }
}
`

// jvmDump runs HeapShape and dumps its heap with jcmd (with -all: no GC
// first, so the weakly held Lonely is still in the dump).
func jvmDump(t *testing.T) string {
	t.Helper()
	javac := testpeer.Require(t, "javac")
	java := testpeer.Require(t, "java")
	jcmd := testpeer.Require(t, "jcmd")
	dir := t.TempDir()
	src := filepath.Join(dir, "HeapShape.java")
	if err := os.WriteFile(src, []byte(heapShape), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, javac, "-d", dir, src).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	cmd := exec.CommandContext(ctx, java, "-Xms64m", "-XX:+UseSerialGC", "-cp", dir, "HeapShape")
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
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "READY" {
		t.Fatalf("HeapShape: %q %v", line, err)
	}
	out := filepath.Join(dir, "heap.hprof")
	if b, err := exec.CommandContext(ctx, jcmd, fmt.Sprint(cmd.Process.Pid), "GC.heap_dump", "-all", out).CombinedOutput(); err != nil {
		t.Fatalf("jcmd: %v\n%s", err, b)
	}
	return out
}

// A real OpenJDK 17 dump (8-byte ids, internal class names): the known
// structure is found, with retained sizes worked out by hand.
func TestJVMHeapDump(t *testing.T) {
	path := jvmDump(t)
	h, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if h.IDSize() != 8 || h.Version() != "JAVA PROFILE 1.0.2" {
		t.Fatalf("id size %d, version %q", h.IDSize(), h.Version())
	}
	// Item: an int and a reference (12 bytes of fields, the instance size
	// the JVM writes), dominating its byte[100].
	if r := row(t, h, "HeapShape$Item"); r.Instances != 37 || r.ReachableInstances != 37 || r.Shallow != 37*12 || r.Retained != 37*112 {
		t.Errorf("Item row %+v", r)
	}
	if r := row(t, h, "HeapShape$Item[]"); r.Instances != 1 || r.Shallow != 37*8 || r.Retained != 37*8+37*112 {
		t.Errorf("Item[] row %+v", r)
	}
	if r := row(t, h, "int[][]"); r.Instances != 1 || r.Shallow != 7*8 {
		t.Errorf("int[][] row %+v", r)
	}
	lonely := h.Instances("HeapShape$Lonely", "")
	if len(lonely) != 1 || h.Reachable(lonely[0]) {
		t.Errorf("Lonely: %d instances, reachable %v", len(lonely), len(lonely) == 1 && h.Reachable(lonely[0]))
	}
	if weak := h.Instances("java.lang.ref.WeakReference", ""); len(weak) == 0 {
		t.Error("no WeakReference")
	}
	items := h.Instances("HeapShape$Item", "")
	if len(items) != 37 {
		t.Fatalf("%d items", len(items))
	}
	p := h.Paths().ToRoot(items[0])
	if len(p) != 3 || h.ClassName(p[0].Node) != "java.lang.Class" || p[1].Field != "ITEMS" ||
		h.ClassName(p[1].Node) != "HeapShape$Item[]" || !strings.HasPrefix(p[2].Field, "[") {
		t.Errorf("path to an item: %+v", p)
	}
	checkPath(t, h, items[0], 3)
	for _, f := range h.Fields(p[0].Node) {
		if f.Name == "ITEMS" && f.Ref != p[1].Node {
			t.Errorf("HeapShape.ITEMS names %v, not the array", f.Ref)
		}
	}
	if h.Retained(items[0]) != 112 || h.Paths().Depth(items[0]) != 3 {
		t.Errorf("item retained %d depth %d", h.Retained(items[0]), h.Paths().Depth(items[0]))
	}
}

// After Debian's hprof-conv (the real peer), the analysis is the same as
// of the Android file, heaps and version aside.
func TestAfterHprofConv(t *testing.T) {
	conv := testpeer.Require(t, "hprof-conv")
	_, data := scenario(t, ScenarioOptions{})
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.hprof"), filepath.Join(dir, "out.hprof")
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if b, err := exec.CommandContext(ctx, conv, in, out).CombinedOutput(); err != nil {
		t.Fatalf("hprof-conv: %v %s", err, b)
	}
	report := func(path string) string {
		h, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		r := h.Report(0)
		// hprof-conv's file says it is converted; Android's does not.
		if (r.Converted == ConvertedNote) != (path == out) {
			t.Errorf("%s: converted %q", path, r.Converted)
		}
		r.Heaps, r.Version, r.Converted = nil, "", ""
		b, _ := json.Marshal(r)
		return string(b)
	}
	a, b := report(in), report(out)
	if a != b || !strings.Contains(a, `"reason":"destroyed"`) {
		t.Fatalf("after hprof-conv:\n%s\nbefore:\n%s", b, a)
	}
}
