package sim

import (
	"bytes"
	"context"
	"io/fs"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/testkit/hprofref"
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

// The simulated app's heap dump is a scene: its leaks are there. `am
// dumpheap -b png` is Android 15's: accepted from API 35 on, with the
// bitmaps' pixels in Bitmap.dumpData; older devices reject the option.
func TestDumpheapScene(t *testing.T) {
	d := NewDevice("t")
	defer d.Close()
	d.SetAPI(34)
	d.Add(NewVM(VMSpec{PID: 10, App: "com.example.a", Package: "com.example.a", Family: ART, API: 34, Threads: 2, Seed: 1}))
	if out, code := shellOut(t, d, "am dumpheap -b png 10 /data/local/tmp/p.hprof"); code != 255 || out != "Error: Unknown option: -b\n" {
		t.Fatalf("-b on API 34: %d %q", code, out)
	}
	analyse := func(path string) *hprofref.Result {
		t.Helper()
		b, err := fs.ReadFile(d.Files(), path)
		if err != nil {
			t.Fatal(err)
		}
		dump, err := hprofref.Read(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		return dump.Analyze().Result()
	}
	if out, code := shellOut(t, d, "am dumpheap 10 /data/local/tmp/a.hprof"); code != 0 {
		t.Fatalf("am dumpheap: %d %q", code, out)
	}
	r := analyse("data/local/tmp/a.hprof")
	var leaks []string
	for _, l := range r.Leaks {
		leaks = append(leaks, l.Class+" "+l.Reason)
	}
	sort.Strings(leaks)
	want := []string{"com.example.a.ComposeActivity finished", "com.example.a.InboxActivity destroyed",
		"com.example.a.SettingsActivity destroyed", "com.example.a.legacy.PrefsFragment detached",
		"com.example.a.ui.MessageListFragment detached"}
	if !reflect.DeepEqual(leaks, want) {
		t.Errorf("leaks %q, want %q", leaks, want)
	}
	if len(r.Bitmaps) != 2 || r.Bitmaps[0].PixelsInDump || r.Bitmaps[1].PixelsInDump {
		t.Errorf("API 34 bitmaps: %+v", r.Bitmaps)
	}

	d.SetAPI(35)
	for _, bad := range []string{"-b gif 10 /x", "-b"} {
		if out, code := shellOut(t, d, "am dumpheap "+bad); code != 255 || !strings.HasPrefix(out, "Error: ") {
			t.Errorf("am dumpheap %s: %d %q", bad, code, out)
		}
	}
	if out, code := shellOut(t, d, "am dumpheap -b png 10 /data/local/tmp/p.hprof"); code != 0 {
		t.Fatalf("-b png on API 35: %d %q", code, out)
	}
	r = analyse("data/local/tmp/p.hprof")
	if len(r.Bitmaps) != 2 || !r.Bitmaps[0].PixelsInDump || r.Bitmaps[0].Format != "png" || r.Bitmaps[0].Source != "dumpData" ||
		r.Bitmaps[1].PixelsInDump {
		t.Errorf("API 35 -b png bitmaps: %+v", r.Bitmaps)
	}
}
