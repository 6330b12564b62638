package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// A view dump taken while recording comes back from `replay --at T --json
// --views`, equal to the live one; without --views there is none.
func TestReplayCarriesViewDumps(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("t")
	dev.Add(sim.NewVM(sim.VMSpec{PID: 1950, App: "com.example.rec", Family: sim.ART, API: 34, Seed: 8}))
	defer dev.Close()
	base := freePorts(t, 1)
	if _, err := dev.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "views.rec")
	r, err := startRecording(path, "")
	if err != nil {
		t.Fatal(err)
	}
	store := monitor.NewStore(monitor.NewBus())
	engine := monitor.NewEngine(store, monitor.SessionOptions{Recorder: r.rec, MeminfoInterval: -1})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- engine.Run(ctx, monitor.Discovery{Local: &scan.Local{Ports: scan.PortRange{First: base, Last: base}, Interval: 50 * time.Millisecond}})
	}()
	key := fmt.Sprintf("local:%d", base)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if vm, ok := store.VM(key); ok && len(vm.Features) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no VM")
		}
		time.Sleep(20 * time.Millisecond)
	}
	live, err := engine.Session(key).Views().DumpAllWindows(ctx)
	if err != nil || len(live) == 0 {
		t.Fatal(err)
	}
	at := r.rec.Since()
	time.Sleep(50 * time.Millisecond)
	cancel()
	<-done
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	for _, views := range []bool{false, true} {
		args := []string{"replay", path, "--at", at.String(), "--json"}
		if views {
			args = append(args, "--views")
		}
		out, _, err := runAppSplit(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		var entries []struct {
			Views *struct {
				ViewCount int `json:"view_count"`
				Windows   []struct {
					Name      string `json:"name"`
					ViewCount int    `json:"view_count"`
				} `json:"windows"`
			} `json:"views"`
		}
		if err := json.Unmarshal([]byte(out), &entries); err != nil || len(entries) != 1 {
			t.Fatalf("%v\n%s", err, out)
		}
		v := entries[0].Views
		switch {
		case !views && v != nil:
			t.Errorf("views without --views: %+v", v)
		case views && (v == nil || len(v.Windows) != len(live) || v.Windows[0].Name != live[0].Name || v.Windows[0].ViewCount != live[0].ViewCount):
			t.Errorf("replayed views %+v, live %d windows of %d views", v, len(live), live[0].ViewCount)
		}
	}
}
