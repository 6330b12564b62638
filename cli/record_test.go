package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/record"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// simLocal serves n simulated VMs on free loopback ports and returns the
// --scan range.
func simLocal(t *testing.T, seed uint64, n int) string {
	t.Helper()
	dev := sim.NewDevice("emulator-rec")
	for _, spec := range sim.Scenario(seed, n) {
		dev.Add(sim.NewVM(spec))
	}
	base, err := freeLocalRange(39400, n)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dev.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go dev.Run(ctx, 200*time.Millisecond)
	t.Cleanup(func() {
		cancel()
		dev.Close()
	})
	return fmt.Sprintf("%d-%d", base, base+n-1)
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "512": 512, "4K": 4096, "1.5M": 3 << 19, "2GiB": 2 << 30, "3mb": 3 << 20} {
		got, err := parseSize(in)
		if err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "-1", "1Q", "M"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) accepted", bad)
		}
	}
}

// `record --duration` records the VMs headless; the file replays to the
// VMs that were there, and `--max-size` stops it with one line, the file
// within its limit and whole.
func TestRecordCommand(t *testing.T) {
	leakcheck.Check(t)
	ports := simLocal(t, 5, 3)
	dir := t.TempDir()
	path := filepath.Join(dir, "a.rec")
	_, stderr, err := runAppSplit(t, "record", "-o", path, "--scan", ports, "--scan-interval", "200ms", "--adb", "off",
		"--thread-interval", "200ms", "--duration", "2s")
	if err != nil || !strings.Contains(stderr, "recorded "+path) {
		t.Fatalf("%v %q", err, stderr)
	}
	out, stderr, err := runAppSplit(t, "replay", path, "--at", "1.8s")
	if err != nil || stderr != "" {
		t.Fatalf("%v %q", err, stderr)
	}
	var snap []headless.SnapshotEntry
	if err := json.Unmarshal([]byte(out), &snap); err != nil || len(snap) != 3 {
		t.Fatalf("%d VMs (%v)\n%s", len(snap), err, out)
	}
	for _, e := range snap {
		if e.DDM && (e.App == "" || len(e.Threads) == 0) {
			t.Errorf("replayed VM without identity or threads: %+v", e)
		}
	}

	small := filepath.Join(dir, "small.rec")
	_, stderr, err = runAppSplit(t, "record", "-o", small, "--scan", ports, "--scan-interval", "200ms", "--adb", "off",
		"--thread-interval", "100ms", "--max-size", "3K", "--duration", "20s")
	if err != nil || !strings.Contains(stderr, "recording stopped: "+small+" reached its size limit") {
		t.Fatalf("%v %q", err, stderr)
	}
	st, err := os.Stat(small)
	if err != nil || st.Size() > 3<<10 || st.Size() == 0 {
		t.Fatalf("size %v %v", st, err)
	}
	if _, stderr, err := runAppSplit(t, "replay", small, "--at", "1h"); err != nil || strings.Contains(stderr, "middle of a block") {
		t.Errorf("the stopped recording is not whole: %v %q", err, stderr)
	}
}

// `serve --record` records beside the debugger ports.
func TestServeRecord(t *testing.T) {
	leakcheck.Check(t)
	ports := simLocal(t, 6, 2)
	path := filepath.Join(t.TempDir(), "serve.rec")
	debug, err := freeLocalRange(39600, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := runAppSplit(t, "serve", "--record", path, "--scan", ports, "--scan-interval", "200ms", "--adb", "off",
		"--debug-base", fmt.Sprint(debug), "--selected-port", "0", "--duration", "1500ms"); err != nil {
		t.Fatal(err)
	}
	rec, err := loadRecording(path)
	if err != nil || rec.Tail != nil || len(rec.Records) == 0 {
		t.Fatalf("%v %v", err, rec)
	}
	vms := replayAt(rec, rec.Duration()/2)
	if len(vms) != 2 {
		t.Errorf("%d VMs replayed, want 2", len(vms))
	}
	if _, _, err := runAppSplit(t, "serve", "--max-size", "1M", "--scan", "off", "--adb", "off", "--duration", "10ms"); err == nil ||
		!strings.Contains(err.Error(), "--record") {
		t.Errorf("--max-size without --record: %v", err)
	}
}

// `record` follows the log of the device whose VMs it records (through the
// real adb server, from the simulated device's adbd): the replay's device
// log holds exactly the entries the device logged — time, pid, tid,
// priority, tag, message — in order; --logcat=false leaves them out.
func TestRecordDeviceLog(t *testing.T) {
	leakcheck.Check(t)
	specs := sim.Scenario(2, 3)
	specs[2].CrashAfter = 8
	r := startADBRig(t, specs)
	dir := t.TempDir()
	path := filepath.Join(dir, "log.rec")
	ctx, cancel := context.WithCancel(context.Background())
	devDone := make(chan struct{})
	go func() {
		defer close(devDone)
		r.dev.Run(ctx, 50*time.Millisecond)
	}()
	time.AfterFunc(2*time.Second, cancel) // the device logs for 2 s of the 4 recorded
	_, stderr, err := runAppSplit(t, "record", "-o", path, "--adb", r.server.Addr(), "--scan", "off",
		"--thread-interval", "200ms", "--duration", "4s")
	cancel()
	<-devDone
	if err != nil || !strings.Contains(stderr, "recorded "+path) {
		t.Fatalf("%v %q", err, stderr)
	}
	rec, err := loadRecording(path)
	if err != nil || rec.Tail != nil {
		t.Fatal(err, rec.Tail)
	}
	p := monitor.NewReplay(rec, monitor.NewStore(monitor.NewBus()))
	p.Seek(rec.Duration())
	dl, why := p.Log(monitor.VM{Source: "adb:" + r.adbd})
	if dl == nil {
		t.Fatal(why)
	}
	got, _, _ := dl.Ring().Read(nil, 1, 0)
	want, _, _ := r.dev.Logcat().Read(nil, 1, 0)
	if len(got) != len(want) || len(want) < 20 {
		t.Fatalf("replayed %d log entries, the device logged %d", len(got), len(want))
	}
	crashes := 0
	for i := range want {
		g, w := got[i], want[i]
		if !g.Time.Equal(w.Time) || g.PID != w.PID || g.TID != w.TID || g.Priority != w.Priority || g.Tag != w.Tag || g.Message != w.Message {
			t.Fatalf("entry %d:\n replayed %+v\n   device %+v", i, g, w)
		}
		if g.Has(logcat.FlagCrashStart) {
			crashes++
		}
	}
	if crashes == 0 {
		t.Error("the crash is not in the replayed log")
	}
	if l, _ := p.Log(monitor.VM{Source: "local:8000"}); l != nil {
		t.Error("a log for a VM of another source")
	}

	off := filepath.Join(dir, "nolog.rec")
	if _, stderr, err := runAppSplit(t, "record", "-o", off, "--adb", r.server.Addr(), "--scan", "off",
		"--logcat=false", "--duration", "1s"); err != nil {
		t.Fatalf("%v %q", err, stderr)
	}
	rec, err = loadRecording(off)
	if err != nil {
		t.Fatal(err)
	}
	vms := 0
	for _, x := range rec.Records {
		if x.Kind == record.KindLog {
			t.Fatal("a log record with --logcat=false")
		}
		if x.Kind == record.KindEndpoint {
			vms++
		}
	}
	if vms == 0 {
		t.Error("nothing recorded with --logcat=false")
	}
}

// The demo's Android 14 device (in-process, "sim:" source) recorded as the
// dashboard records it with --record: its log, which the dashboard's log
// pane reads live, replays into the replay's log pane source entry for
// entry — time, pid, tid, priority, tag, message, and the app and crash
// flags the routing gave them.
func TestDemoRecordingReplaysLog(t *testing.T) {
	leakcheck.Check(t)
	modern := sim.ModernDemoDevice(9)
	defer modern.Close()
	path := filepath.Join(t.TempDir(), "demo.rec")
	r, err := startRecording(path, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store := monitor.NewStore(monitor.NewBus())
	engine := monitor.NewEngine(store, monitor.SessionOptions{ThreadInterval: 300 * time.Millisecond, Recorder: r.rec})
	source := "sim:" + modern.Serial()
	d := monitor.Discovery{ADB: []monitor.Runner{&sim.Endpoints{Device: modern, Source: source}}}
	logs := devicelog.NewLogs(0) // the dashboard's: its log pane reads these
	stopLogs := recordLogs(true, store, d, r, logs)
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx, d) }()
	devDone := make(chan struct{})
	go func() {
		defer close(devDone)
		modern.Run(ctx, 100*time.Millisecond)
	}()
	time.Sleep(2500 * time.Millisecond)
	cancel()
	<-devDone
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	stopLogs()
	live, _ := deviceLog(logs, d, monitor.VM{Source: source})
	time.Sleep(300 * time.Millisecond) // the stream's last entries
	logs.Close()
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	want, _, _ := live.Ring().Read(nil, 1, 0)

	rec, err := loadRecording(path)
	if err != nil || rec.Tail != nil {
		t.Fatal(err, rec.Tail)
	}
	p := monitor.NewReplay(rec, monitor.NewStore(monitor.NewBus()))
	p.Seek(rec.Duration())
	replayed, why := p.Log(monitor.VM{Source: source})
	if replayed == nil {
		t.Fatal(why)
	}
	got, _, _ := replayed.Ring().Read(nil, 1, 0)
	if len(got) != len(want) || len(want) < 10 {
		t.Fatalf("replayed %d entries, %d seen live", len(got), len(want))
	}
	apps := 0
	for i := range want {
		g, w := got[i], want[i]
		if !g.Time.Equal(w.Time) || g.PID != w.PID || g.TID != w.TID || g.Priority != w.Priority || g.Tag != w.Tag ||
			g.Message != w.Message || g.App != w.App || g.Flags != w.Flags {
			t.Fatalf("entry %d:\n replayed %+v\n     live %+v", i, g, w)
		}
		if g.App != "" {
			apps++
		}
	}
	t.Logf("%d entries (%d with their app), recording of %d bytes", len(got), apps, r.rec.Written())
}
