package monitor

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/devshell"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// hostileRunner hands one VM of a simulated device to the engine, with a
// shell that records every command line and a sync: service that, like
// adb's, refuses paths over 1024 bytes.
type hostileRunner struct {
	dev  *sim.Device
	pid  int
	mu   sync.Mutex
	cmds []string
}

func (r *hostileRunner) commands() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.cmds...)
}

func (r *hostileRunner) Run(ctx context.Context, h scan.Handler) error {
	nc, err := r.dev.OpenJDWP(r.pid)
	if err != nil {
		return err
	}
	run := func(ctx context.Context, cmd string) ([]byte, error) {
		r.mu.Lock()
		r.cmds = append(r.cmds, cmd)
		r.mu.Unlock()
		var b bytes.Buffer
		_, err := r.dev.Shell(ctx, cmd, &b)
		return b.Bytes(), err
	}
	return h(ctx, scan.Endpoint{Key: fmt.Sprintf("adb:hostile/%d", r.pid), Source: "adb:hostile", PID: r.pid, Conn: nc,
		Shell: run, Exec: run, Files: r.dev.SyncFiles()})
}

// Issue 30 item 1: a VM whose app name holds shell metacharacters and
// passes sync:'s path limit once made ddmtui read its HPDU dump with
// `shell:cat /sdcard/x;reboot;…`. The name is allow-listed into the device
// path, every command line holds only quoted data, and a path sync
// refuses never reaches the shell.
func TestHostileAppNameNeverReachesTheShell(t *testing.T) {
	leakcheck.Check(t)
	name := "x;reboot;{cd,sdcard};$(touch /sdcard/pwned)`id`|sh&" + strings.Repeat("A", 1100)
	dev := sim.NewDevice("hostile-1")
	dev.Add(sim.NewVM(sim.VMSpec{PID: 6301, App: name, Family: sim.Dalvik, HeapBytes: 1 << 20, Seed: 8}))
	defer dev.Close()
	r := &hostileRunner{dev: dev, pid: 6301}
	store := NewStore(NewBus())
	e := NewEngine(store, SessionOptions{ProbeTimeout: 200 * time.Millisecond, RequestTimeout: time.Second, MeminfoInterval: -1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.Run(ctx, Discovery{ADB: []Runner{r}}) }()
	defer func() {
		cancel()
		<-done
	}()
	var key string
	waitFor(t, "the hostile VM", 10*time.Second, func() bool {
		for _, vm := range store.VMs() {
			if vm.App == name {
				key = vm.Key
				return true
			}
		}
		return false
	})
	s := e.Session(key)
	var h heldBytes
	dctx, dcancel := context.WithTimeout(ctx, 20*time.Second)
	defer dcancel()
	n, err := s.HeapDumpTo(dctx, &h, nil)
	if err != nil || n == 0 || !bytes.HasPrefix(h.b, []byte("JAVA PROFILE 1.0")) {
		t.Fatalf("heap dump: %d bytes, %v", n, err)
	}
	base := "x_reboot__cd_sdcard____touch__sdcard_pwned__id__sh_"
	want := "/sdcard/" + base + strings.Repeat("A", devshell.MaxNameLen-len(base)) + ".hprof"
	if f := dev.VM(6301).File(want); f == nil || !bytes.Equal(f, h.b) {
		t.Errorf("the VM did not write %s, or the dump read back (%d bytes) differs from it", want, len(h.b))
	}
	for _, cmd := range r.commands() {
		if strings.ContainsAny(cmd, ";|&`$(){}<>") {
			t.Errorf("a command line carries shell syntax from the VM: %.120q", cmd)
		}
	}

	// The last guard: a path with shell syntax is refused before sync:
	// or the shell see it, whatever built it.
	before := len(r.commands())
	_, err = devshell.ReadFile(ctx, s.dev, "/sdcard/"+name+".trace", 0)
	if err == nil || !strings.Contains(err.Error(), "refused") || len(r.commands()) != before {
		t.Errorf("a hostile path was read: %v, commands %q", err, r.commands()[before:])
	}
	// And a path sync: refuses for its length is not read with the shell.
	_, err = devshell.ReadFile(ctx, s.dev, "/sdcard/"+strings.Repeat("a", 1100), 0)
	if err == nil || len(r.commands()) != before {
		t.Errorf("an over-long path was read: %v, commands %q", err, r.commands()[before:])
	}
}
