package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/record"
	"github.com/ddmtui/ddmtui/testkit/testpeer"
	"github.com/ddmtui/ddmtui/trace"
)

// writeManyVMRecording writes a recording of n VMs with identities,
// lasting an hour: the replay dashboard keeps playing it. Each VM sends
// its HELO again `again` times over the hour, so seeking through it takes
// a while.
func writeManyVMRecording(t *testing.T, path string, n, again int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := record.NewWriter(f, record.CompressZstd, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		key := fmt.Sprintf("local:%d", 10000+i)
		hello := ddm.AppendMessage(nil, &ddm.Hello{ClientVersion: 1, PID: uint32(100 + i), VMIdent: "Dalvik v2.1.0", AppName: fmt.Sprintf("com.example.app%04d", i)})
		hello = append(hello[:4:4], hello[ddm.ChunkHeaderLen:]...)
		for _, r := range []record.Record{
			{Time: time.Duration(i) * time.Microsecond, Kind: record.KindEndpoint, Key: key, Data: []byte(`{"source":"` + key + `","pid":0}`)},
			{Time: time.Duration(i)*time.Microsecond + time.Millisecond, Kind: record.KindChunk, Key: key, Data: hello},
		} {
			if err := w.Add(r); err != nil {
				t.Fatal(err)
			}
		}
	}
	for j := 1; j <= again; j++ {
		for i := 0; i < n; i++ {
			key := fmt.Sprintf("local:%d", 10000+i)
			hello := ddm.AppendMessage(nil, &ddm.Hello{ClientVersion: 1, PID: uint32(100 + i), VMIdent: "Dalvik v2.1.0", AppName: fmt.Sprintf("com.example.app%04d", i)})
			hello = append(hello[:4:4], hello[ddm.ChunkHeaderLen:]...)
			if err := w.Add(record.Record{Time: time.Duration(j) * time.Hour / time.Duration(again+1), Kind: record.KindChunk, Key: key, Data: hello}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Add(record.Record{Time: time.Hour, Kind: record.KindGone, Key: "local:10000", Data: []byte("bye")}); err != nil {
		t.Fatal(err)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// Issue 30 item 7: the replay dashboard on a recording of very many VMs
// ends when its terminal goes away (the tmux server killed: before, it went
// on for 80 s) and on SIGTERM; so does the demo's dashboard, which took no
// signal at all.
func TestDashboardsEndWithTheirTerminal(t *testing.T) {
	tmux := testpeer.Require(t, "tmux")
	bin := buildBinary(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "many.rec")
	writeManyVMRecording(t, file, 3000, 100)
	port, err := freeLocalRange(23400, 7)
	if err != nil {
		t.Fatal(err)
	}
	tracePath, _ := writeSynthTrace(t, trace.Synth{Seed: 7, Records: 3000})
	for i, tc := range []struct{ name, cmd, ready, end string }{
		{"replay, tmux killed", "replay " + file, "VMs (3000)", "kill-server"},
		{"replay, SIGTERM", "replay " + file, "VMs (3000)", "SIGTERM"},
		{"replay, SIGHUP", "replay " + file, "VMs (3000)", "SIGHUP"},
		{"demo, SIGTERM", fmt.Sprintf("demo --port %d --interval 200ms", port), "VMs (10)", "SIGTERM"},
		{"demo, SIGHUP", fmt.Sprintf("demo --port %d --interval 200ms", port), "VMs (10)", "SIGHUP"},
		{"trace viewer, SIGTERM", "trace " + tracePath, "Incl CPU ms", "SIGTERM"},
		{"trace viewer, tmux killed", "trace " + tracePath, "Incl CPU ms", "kill-server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &tmuxSession{t: t, tmux: tmux, socket: fmt.Sprintf("ddmtui-hangup-%d-%d", os.Getpid(), i)}
			t.Cleanup(func() { s.run("kill-server") })
			pidFile := filepath.Join(dir, "pid")
			os.Remove(pidFile)
			// The shell says how the command ended: a run that ends
			// itself restores the terminal and exits 0; one killed by
			// the signal's default action exits 128+signal.
			cmdline := fmt.Sprintf("sh -c 'echo $$ > %s; NO_COLOR=1 exec %s %s'; echo ended-with-$?; sleep 60", pidFile, bin, tc.cmd)
			if out, err := s.run("new-session", "-d", "-s", "demo", "-x", "100", "-y", "30", cmdline); err != nil {
				t.Fatalf("tmux new-session: %v %s", err, out)
			}
			s.waitText(tc.ready)
			raw, err := os.ReadFile(pidFile)
			if err != nil {
				t.Fatal(err)
			}
			pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
			if err != nil {
				t.Fatal(err)
			}
			switch tc.end {
			case "kill-server":
				s.run("kill-server")
			case "SIGTERM":
				syscall.Kill(pid, syscall.SIGTERM)
			case "SIGHUP":
				syscall.Kill(pid, syscall.SIGHUP)
			}
			start := time.Now()
			defer func() { t.Logf("%s: ended %v after %s", tc.cmd, time.Since(start).Round(time.Millisecond), tc.end) }()
			deadline := time.Now().Add(15 * time.Second)
			for syscall.Kill(pid, 0) == nil {
				if time.Now().After(deadline) {
					syscall.Kill(pid, syscall.SIGKILL)
					t.Fatalf("%s still runs 15 s after %s", tc.cmd, tc.end)
				}
				time.Sleep(50 * time.Millisecond)
			}
			if tc.end != "kill-server" {
				scr := s.waitText("ended-with-")
				if !strings.Contains(scr, "ended-with-0") || strings.Contains(scr, tc.ready) {
					t.Errorf("after %s the run did not end by itself with the terminal restored:\n%s", tc.end, scr)
				}
			}
		})
	}
}
