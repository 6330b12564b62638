package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/savefile"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

func readHeader(t *testing.T, path string) hprof.Header {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := hprof.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return r.Header()
}

// A streamed dump (HPDS) is converted in-process exactly as Debian's
// hprof-conv converts the same Android file; a refused dump gives the VM's
// reason.
func TestHprofCommandStreamed(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewVM(sim.VMSpec{PID: 6101, App: "com.example.dump", Package: "com.example.dump", Family: sim.ART, HeapBytes: 2 << 20, Seed: 31})
	refusing := sim.NewVM(sim.VMSpec{PID: 6102, App: "com.example.nodump", Family: sim.ART, HeapDumpFails: "Out of memory: cannot allocate the dump buffer", Seed: 32})
	d := sim.NewDevice("t")
	d.Add(dev)
	d.Add(refusing)
	defer d.Close()
	base := freePorts(t, 2)
	if _, err := d.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	scanFlag := fmt.Sprintf("%d-%d", base, base+1)
	dir := t.TempDir()
	std, android := filepath.Join(dir, "std.hprof"), filepath.Join(dir, "android.hprof")
	out, err := runApp(t, "hprof", "--adb", "off", "--scan", scanFlag, "--pid", "6101", "-o", std)
	if err != nil || !strings.Contains(out, "wrote "+std) || !strings.Contains(out, "com.example.dump.data.Item") {
		t.Fatalf("hprof: %v\n%s", err, out)
	}
	if h := readHeader(t, std); h.Version != "JAVA PROFILE 1.0.2" {
		t.Fatalf("converted file is %q", h.Version)
	}
	if _, err := runApp(t, "hprof", "--adb", "off", "--scan", scanFlag, "--pid", "6101", "--android", "-o", android); err != nil {
		t.Fatal(err)
	}
	if h := readHeader(t, android); !h.Android() {
		t.Fatalf("--android file is %q", h.Version)
	}
	// The same conversion as hprof-conv, byte for byte.
	conv := testpeer.Require(t, "hprof-conv")
	peerOut := filepath.Join(dir, "peer.hprof")
	if out, err := exec.Command(conv, android, peerOut).CombinedOutput(); err != nil {
		t.Fatalf("hprof-conv: %v %s", err, out)
	}
	ours := filepath.Join(dir, "ours.hprof")
	raw, _ := os.ReadFile(android)
	if _, err := savefile.SaveBytes(context.Background(), ours, raw, savefile.HPROF(false, savefile.DefaultHPROFRatio, nil)); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(ours)
	b, _ := os.ReadFile(peerOut)
	if !bytes.Equal(a, b) {
		t.Fatalf("our conversion (%d bytes) differs from hprof-conv's (%d bytes)", len(a), len(b))
	}

	_, err = runApp(t, "hprof", "--adb", "off", "--scan", scanFlag, "--pid", "6102", "-o", filepath.Join(dir, "x.hprof"))
	if err == nil || !strings.Contains(err.Error(), "Out of memory: cannot allocate the dump buffer") {
		t.Fatalf("refused dump: %v", err)
	}
}

// A VM without streaming dumps writes the file on the device (HPDU); ddmtui
// reads it back through the real adb server.
func TestHprofToDeviceFileThroughRealADB(t *testing.T) {
	leakcheck.Check(t)
	r := startADBRig(t, []sim.VMSpec{{PID: 6201, App: "com.example.olddump", Package: "com.example.olddump", Family: sim.Dalvik, HeapBytes: 1 << 20, Seed: 33}})
	std := filepath.Join(t.TempDir(), "old.hprof")
	out, err := runApp(t, "hprof", "--adb", r.server.Addr(), "--scan", "off", "--pid", "6201", "-o", std)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if h := readHeader(t, std); h.Version != "JAVA PROFILE 1.0.2" {
		t.Fatalf("converted file is %q", h.Version)
	}
	if r.dev.VM(6201).File("/sdcard/com.example.olddump.hprof") == nil {
		t.Fatal("the VM did not write the dump on the device")
	}
}
