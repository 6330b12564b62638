package hprofref

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// knownSource is a Java program with a known heap structure: a static
// list holding a Leaky object (which owns a 100000-byte array and points
// at itself), a weakly and a softly held array, garbage, and three equal
// strings with arrays of their own.
const knownSource = `
import java.util.*;
public class Known {
    static class Leaky { byte[] payload = new byte[100000]; Object self; }
    static List<Object> sListeners = new ArrayList<>();
    static String[] sNames = new String[3];
    static java.lang.ref.WeakReference<byte[]> sWeak;
    static java.lang.ref.SoftReference<byte[]> sSoft;
    public static void main(String[] a) throws Exception {
        Leaky l = new Leaky();
        l.self = l;
        sListeners.add(l);
        l = null;
        sWeak = new java.lang.ref.WeakReference<>(new byte[77777]);
        sSoft = new java.lang.ref.SoftReference<>(new byte[55555]);
        byte[] garbage = new byte[33333];
        garbage = null;
        for (int i = 0; i < 3; i++) sNames[i] = new String("dup-me-please".toCharArray());
        System.out.println("READY");
        System.out.flush();
        Thread.sleep(120000);
    }
}
`

// A real peer: OpenJDK's own heap dump (jcmd GC.heap_dump -all: 1.0.2,
// 8-byte ids, internal class names, unreachable objects kept) analysed by
// the reference gives the structure the program built.
func TestJVMHeapDump(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a JVM")
	}
	java := testpeer.Require(t, "java")
	javac := testpeer.Require(t, "javac")
	jcmd := testpeer.Require(t, "jcmd")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Known.java"), []byte(knownSource), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(javac, "-d", dir, filepath.Join(dir, "Known.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	// A young generation large enough that no GC runs before the dump
	// (it would clear the weak referent and collect the garbage).
	cmd := exec.Command(java, "-Xms96m", "-Xmx96m", "-Xmn64m", "-XX:+UseSerialGC", "-Xshare:auto", "-cp", dir, "Known")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		ok := false
		for sc.Scan() {
			if sc.Text() == "READY" && !ok {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatal("the JVM ended before READY")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the JVM did not start")
	}
	file := filepath.Join(dir, "known.hprof")
	if out, err := exec.Command(jcmd, strconv.Itoa(cmd.Process.Pid), "GC.heap_dump", "-all", file).CombinedOutput(); err != nil {
		t.Fatalf("jcmd: %v\n%s", err, out)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	if d.Version != "JAVA PROFILE 1.0.2" || d.IDSize != 8 {
		t.Fatalf("header %s, %d-byte ids", d.Version, d.IDSize)
	}
	start := time.Now()
	a := d.Analyze()
	t.Logf("%d nodes, %d reachable, analysed in %v", len(d.Order), len(a.Depth), time.Since(start))

	var leaky, known uint64
	arrays := map[int][]uint64{}
	for _, id := range d.Order {
		n := d.Nodes[id]
		switch {
		case n.Kind == KindInstance && d.ClassName(n) == "Known$Leaky":
			leaky = id
		case n.Kind == KindClass && d.ClassNames[id] == "Known":
			known = id
		case n.Kind == KindPrimArray && d.ClassName(n) == "byte[]":
			arrays[n.Length] = append(arrays[n.Length], id)
		}
	}
	if leaky == 0 || known == 0 {
		t.Fatalf("Known$Leaky %#x, class Known %#x", leaky, known)
	}
	size := uint64(d.Classes[d.Nodes[leaky].Class].InstanceSize)
	if size != 16 || a.Retained[leaky] != size+100000 {
		t.Errorf("Leaky: shallow %d, retained %d; want 16 and %d", size, a.Retained[leaky], 16+100000)
	}
	path := a.Path(leaky)
	var fields []string
	for _, h := range path[1:] {
		fields = append(fields, *h.Field)
	}
	if uint64(path[0].ID) != known || strings.Join(fields, " ") != "sListeners elementData [0]" ||
		path[1].Class != "java.util.ArrayList" || path[2].Class != "java.lang.Object[]" {
		t.Errorf("path to Leaky: %s", hopsString(path))
	}
	if err := a.ValidPath(path); err != nil {
		t.Error(err)
	}
	for _, n := range []int{77777, 55555, 33333} {
		if len(arrays[n]) != 1 || a.Reachable(arrays[n][0]) {
			t.Errorf("byte[%d]: %d arrays, reachable %v; want one, unreachable (weak, soft, garbage)", n, len(arrays[n]),
				len(arrays[n]) == 1 && a.Reachable(arrays[n][0]))
		}
	}
	found := false
	for _, s := range a.Result().DuplicateStrings {
		if s.Value == "dup-me-please" {
			found = true
			if s.Count < 3 || s.Wasted != uint64(s.Count-1)*13 {
				t.Errorf("duplicate %+v: want 3 or more, each wasting a 13-byte array", s)
			}
		}
	}
	if !found {
		t.Error("no duplicate group for dup-me-please")
	}
}
