package cli

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"
)

// TestRecordNeverDropsHealthyVMs is issue 30 item 19, the recording's side
// of TestListNeverDropsHealthyVMs: the recording ends (the command's context
// is cancelled, as --duration or Ctrl-C does) the moment every VM has
// answered HELO, so each run's recording must replay, at its end, all
// three VMs with their identity.
func TestRecordNeverDropsHealthyVMs(t *testing.T) {
	runs := 60
	if testing.Short() {
		runs = 20
	}
	r := newStableRig(t)
	misses := 0
	for i := 0; i < runs; i++ {
		r.idle()
		before := make([]int64, len(r.dev.VMs()))
		for j, vm := range r.dev.VMs() {
			before[j] = vm.Stats().DDMRequests.Load()
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			defer cancel()
			for {
				done := 0
				for j, vm := range r.dev.VMs() {
					if vm.Stats().DDMRequests.Load()-before[j] >= 2 { // HELO and FEAT
						done++
					}
				}
				if done == len(before) || ctx.Err() != nil {
					return
				}
				time.Sleep(200 * time.Microsecond)
			}
		}()
		path := filepath.Join(t.TempDir(), "run.rec")
		app := NewApp()
		var out bytes.Buffer
		app.Writer, app.ErrWriter = &out, &out
		err := app.RunContext(ctx, []string{"ddmtui", "record", "-o", path, "--adb", "off", "--scan", r.scan, "--scan-interval", "10ms", "--duration", "1m"})
		cancel()
		if err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, out.String())
		}
		got, stderr, err := runAppSplit(t, "replay", path, "--at", "1h", "--json")
		if err != nil {
			t.Fatalf("run %d: replay: %v %s", i, err, stderr)
		}
		if complete, _ := r.count(t, got); complete != len(r.want) {
			misses++
			if misses <= 3 {
				t.Errorf("run %d: %d of %d VMs in the recording:\n%s\n%s", i, complete, len(r.want), got, stderr)
			}
		}
	}
	if misses > 0 {
		t.Fatalf("%d of %d recordings missed a VM that had answered HELO", misses, runs)
	}
}

// Back to back, the previous run's connections may still be held when the
// next run probes (a VM takes one JDWP connection at a time and closes a
// second one before the handshake): such a VM is busy, not absent, and is
// probed again soon, not at the next scan interval (2 s, past this
// recording's end). Before, the recording of six back-to-back runs held one
// VM of three.
func TestRecordRetriesBusyVMs(t *testing.T) {
	r := newStableRig(t)
	r.idle()
	var held []net.Conn
	for port := r.base; port < r.base+len(r.want); port++ {
		nc, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, nc)
	}
	for _, vm := range r.dev.VMs() {
		for !vm.Busy() {
			time.Sleep(time.Millisecond)
		}
	}
	go func() {
		time.Sleep(300 * time.Millisecond)
		for _, nc := range held {
			nc.Close()
		}
	}()
	path := filepath.Join(t.TempDir(), "busy.rec")
	if out, err := runApp(t, "record", "-o", path, "--adb", "off", "--scan", r.scan, "--duration", "1500ms"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got, stderr, err := runAppSplit(t, "replay", path, "--at", "1h", "--json")
	if err != nil {
		t.Fatalf("replay: %v %s", err, stderr)
	}
	if complete, _ := r.count(t, got); complete != len(r.want) {
		t.Errorf("%d of %d VMs in the recording:\n%s", complete, len(r.want), got)
	}
}
