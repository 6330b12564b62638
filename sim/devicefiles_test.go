package sim

import (
	"bytes"
	"context"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/threaddump"
)

func shellOut(t *testing.T, d *Device, cmd string) (string, int) {
	t.Helper()
	var out bytes.Buffer
	code, err := d.Shell(context.Background(), cmd, &out)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), code
}

// am dumpheap writes a real HPROF into the device's files: at once after
// "Waiting for dump to finish...", or growing after an early return; rm
// deletes it; debuggerd -j prints a modern VM's ART dump.
func TestDeviceCommands(t *testing.T) {
	d := NewDevice("t")
	defer d.Close()
	d.Add(NewVM(VMSpec{PID: 10, App: "com.example.a", Family: ART, Modern: true, Threads: 2, Seed: 1}))
	d.Add(NewVM(VMSpec{PID: 11, App: "com.example.b", Family: ART, Threads: 2, Seed: 2}))

	out, code := shellOut(t, d, "am dumpheap 10 /data/local/tmp/a.hprof")
	if code != 0 || out != "File: /data/local/tmp/a.hprof\nWaiting for dump to finish...\n" {
		t.Fatalf("am dumpheap: %d %q", code, out)
	}
	b, err := fs.ReadFile(d.Files(), "data/local/tmp/a.hprof")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hprof.Summarize(bytes.NewReader(b)); err != nil {
		t.Fatalf("the dump is not HPROF: %v", err)
	}

	d.SetDumpheapReturnsEarly(true)
	out, code = shellOut(t, d, "am dumpheap com.example.b /data/local/tmp/b.hprof")
	if code != 0 || out != "" {
		t.Fatalf("early am dumpheap: %d %q", code, out)
	}
	first, _ := fs.Stat(d.Files(), "data/local/tmp/b.hprof")
	var full []byte
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		full, _ = fs.ReadFile(d.Files(), "data/local/tmp/b.hprof")
		if _, err := hprof.Summarize(bytes.NewReader(full)); err == nil && len(full) > int(first.Size()) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if first == nil || first.Size() >= int64(len(full)) {
		t.Fatalf("the file did not grow after am returned: first %v, last %d bytes", first, len(full))
	}

	if out, code := shellOut(t, d, "rm -f /data/local/tmp/a.hprof /data/local/tmp/b.hprof"); code != 0 || out != "" {
		t.Fatalf("rm: %d %q", code, out)
	}
	if _, err := fs.Stat(d.Files(), "data/local/tmp/a.hprof"); err == nil {
		t.Fatal("rm left the file")
	}
	if out, _ := shellOut(t, d, "am dumpheap 99 /data/local/tmp/c.hprof"); !strings.Contains(out, "Unknown process: 99") {
		t.Errorf("unknown process: %q", out)
	}

	out, code = shellOut(t, d, "debuggerd -j 10")
	dump, err := threaddump.Parse(strings.NewReader(out))
	if code != 0 || err != nil || len(dump.Processes) != 1 || dump.Processes[0].PID != 10 {
		t.Fatalf("debuggerd -j 10: %d %v\n%.200s", code, err, out)
	}
	if out, code := shellOut(t, d, "debuggerd -j 11"); code == 0 || !strings.HasPrefix(out, "usage:") {
		t.Errorf("debuggerd -j on an old VM: %d %q", code, out)
	}
}
