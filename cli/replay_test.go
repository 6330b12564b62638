package cli

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/headless"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/record"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// runAppSplit runs the app with standard output and standard error apart.
func runAppSplit(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	app := NewApp()
	var out, errOut bytes.Buffer
	app.Writer, app.ErrWriter = &out, &errOut
	err = Run(app, append([]string{"ddmtui"}, args...))
	return out.String(), errOut.String(), err
}

// liveSnap is a snapshot of the live store and the recording time it was
// taken at.
type liveSnap struct {
	at  time.Duration
	doc string
}

func snapshotDoc(t testing.TB, vms []monitor.VM) string {
	t.Helper()
	var b bytes.Buffer
	if err := headless.WriteJSON(&b, headless.Snapshot(vms)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// recordSimulated records the demo's simulated VMs (ART, Dalvik, a non-DDM
// JVM, on local ports) and its Android 14 device (reached in-process as
// through adb: /proc and dumpsys) for about d, and returns the recording's
// path and the live snapshots taken at instants when the model was still
// (the same document twice, 25 ms apart).
func recordSimulated(t testing.TB, d time.Duration) (string, []liveSnap) {
	t.Helper()
	return recordSimulatedVMs(t, d, waitingScenario())
}

// waitingScenario is the demo's seven VMs with three of the ART ones
// waiting for a debugger from their start (issue 30 item 18: the heap
// numbers of such VMs replayed stale), not one.
func waitingScenario() []sim.VMSpec {
	specs := sim.Scenario(3, 7)
	for i := range specs {
		switch specs[i].App {
		case "com.android.systemui", "com.example.gallery":
			specs[i].WaitingForDebugger = true
		}
	}
	return specs
}

// recordSimulatedVMs is recordSimulated with the local device's VMs.
func recordSimulatedVMs(t testing.TB, d time.Duration, specs []sim.VMSpec) (string, []liveSnap) {
	t.Helper()
	dev := sim.NewDevice("emulator-rec")
	for _, spec := range specs {
		dev.Add(sim.NewVM(spec))
	}
	t.Cleanup(func() { dev.Close() })
	base, err := freeLocalRange(39300, len(specs))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dev.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	modern := sim.ModernDemoDevice(3)
	t.Cleanup(func() { modern.Close() })

	path := filepath.Join(t.TempDir(), "session.rec")
	r, err := startRecording(path, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go dev.Run(ctx, 300*time.Millisecond)
	go modern.Run(ctx, 300*time.Millisecond)
	store := monitor.NewStore(monitor.NewBus())
	engine := monitor.NewEngine(store, monitor.SessionOptions{ThreadInterval: 400 * time.Millisecond,
		JDWPThreadInterval: 400 * time.Millisecond, MeminfoInterval: 500 * time.Millisecond,
		ProbeTimeout: 300 * time.Millisecond, RequestTimeout: time.Second, Recorder: r.rec})
	disc := monitor.Discovery{
		Local: &scan.Local{Ports: scan.PortRange{First: base, Last: base + len(specs) - 1}, Interval: 200 * time.Millisecond},
		ADB:   []monitor.Runner{&sim.Endpoints{Device: modern, Source: "sim:" + modern.Serial()}},
	}
	done := make(chan error, 1)
	go func() { done <- engine.Run(ctx, disc) }()

	var snaps []liveSnap
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		time.Sleep(60 * time.Millisecond)
		at := r.rec.Since()
		a := snapshotDoc(t, store.VMs())
		time.Sleep(15 * time.Millisecond)
		b := snapshotDoc(t, store.VMs())
		if a == b && a != "[]\n" {
			snaps = append(snaps, liveSnap{at: at, doc: a})
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := r.stop(); err != nil {
		t.Fatal(err)
	}
	return path, snaps
}

// A recording of the simulated VMs replays, through the same decoders and
// model, to the very document `snapshot --json` showed live at the same
// instants: identity, threads (DDM, JDWP and /proc, with CPU percentages),
// heaps, process memory and capabilities.
func TestRecordReplayEqualsLive(t *testing.T) {
	leakcheck.Check(t)
	path, snaps := recordSimulated(t, 5*time.Second)
	if len(snaps) < 3 {
		t.Fatalf("only %d still instants in 5 s", len(snaps))
	}
	var last []headless.SnapshotEntry
	if err := json.Unmarshal([]byte(snaps[len(snaps)-1].doc), &last); err != nil {
		t.Fatal(err)
	}
	families, sources := map[string]bool{}, map[string]bool{}
	memory := false
	for _, e := range last {
		families[e.Family] = true
		for _, th := range e.Threads {
			sources[th.Source] = true
		}
		memory = memory || e.Memory != nil
	}
	for _, f := range []string{"art", "dalvik", "jvm"} {
		if !families[f] {
			t.Errorf("no %s VM in the recording: %v", f, families)
		}
	}
	for _, s := range []string{"ddm", "jdwp", "proc"} {
		if !sources[s] {
			t.Errorf("no thread from %s: %v", s, sources)
		}
	}
	if !memory {
		t.Error("no VM with dumpsys memory")
	}
	// Three VMs wait for a debugger, with heaps, and the instants compared
	// include waiting VMs' heaps after an update (a GC's HPIF).
	waiting, updated := 0, false
	for _, e := range last {
		if e.Debugger == "waiting" && len(e.Heaps) > 0 {
			waiting++
		}
	}
	for _, s := range snaps {
		var doc []headless.SnapshotEntry
		if err := json.Unmarshal([]byte(s.doc), &doc); err != nil {
			t.Fatal(err)
		}
		for _, e := range doc {
			updated = updated || (e.Debugger == "waiting" && len(e.Heaps) > 0 && e.Heaps[0].GCCount > 0)
		}
	}
	if waiting < 3 || !updated {
		t.Errorf("%d VMs waiting for a debugger with heaps at the end (want 3); a waiting VM's heap updated at a compared instant: %v", waiting, updated)
	}
	mismatches := 0
	for _, s := range snaps {
		got, stderr, err := runAppSplit(t, "replay", path, "--at", s.at.String(), "--json")
		if err != nil || stderr != "" {
			t.Fatalf("replay --at %s: %v %s", s.at, err, stderr)
		}
		if got != s.doc {
			mismatches++
			if mismatches <= 2 {
				t.Errorf("replay --at %s differs from the live snapshot\n%s", s.at, firstDiff(s.doc, got))
			}
		}
	}
	if mismatches > 0 {
		t.Errorf("%d of %d instants differ", mismatches, len(snaps))
	}

	t.Run("past the end", func(t *testing.T) { testReplayPastTheEnd(t, path, last) })
	t.Run("truncated", func(t *testing.T) { testTruncatedReplay(t, path) })
	t.Run("chrome", func(t *testing.T) { testChrome(t, path) })
}

func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) && i < len(gl); i++ {
		if wl[i] != gl[i] {
			lo := max(i-3, 0)
			return fmt.Sprintf("line %d:\n live: %s\nreplay: %s\ncontext:\n%s", i+1, wl[i], gl[i], strings.Join(wl[lo:i+1], "\n"))
		}
	}
	return fmt.Sprintf("lengths %d and %d lines", len(wl), len(gl))
}

// A recording cut anywhere (a kill -9 mid-block) replays up to its last
// whole block, says so, and gives there what the whole file gives.
func testTruncatedReplay(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := monitor.ReadRecording(bytes.NewReader(data))
	if err != nil || whole.Tail != nil {
		t.Fatalf("%v %v", err, whole.Tail)
	}
	withRecords := 0
	for _, cut := range []int{len(data) - 1, len(data) * 9 / 10, len(data) * 3 / 4, len(data) / 2, len(data) / 4, 20} {
		cutPath := filepath.Join(t.TempDir(), "cut.rec")
		if err := os.WriteFile(cutPath, data[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		part, err := monitor.ReadRecording(bytes.NewReader(data[:cut]))
		if err != nil {
			t.Fatal(err)
		}
		if !errors.Is(part.Tail, record.ErrTruncated) {
			t.Fatalf("cut at %d: tail %v", cut, part.Tail)
		}
		if len(part.Records) >= len(whole.Records) {
			t.Fatalf("cut at %d: %d of %d records", cut, len(part.Records), len(whole.Records))
		}
		if len(part.Records) > 0 {
			withRecords++
		}
		at := part.Duration()
		got, stderr, err := runAppSplit(t, "replay", cutPath, "--at", at.String())
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(stderr, "recording ends in the middle of a block") || !strings.Contains(stderr, "replaying up to its last whole block") {
			t.Errorf("cut at %d: message %q", cut, stderr)
		}
		// The whole file at the same instant: the records of the cut's
		// last instant that spill into the next block are its only
		// difference, so compare up to the instant before.
		prev := at
		for i := len(part.Records) - 1; i >= 0; i-- {
			if part.Records[i].Time < at {
				prev = part.Records[i].Time
				break
			}
		}
		a := snapshotDoc(t, replayAt(part, prev))
		b := snapshotDoc(t, replayAt(whole, prev))
		if a != b {
			t.Errorf("cut at %d: the cut file at %s differs from the whole one\n%s", cut, prev, firstDiff(b, a))
		}
		if got == "" {
			t.Error("no snapshot printed")
		}
	}
	if withRecords < 3 {
		t.Errorf("only %d cuts kept records", withRecords)
	}

	// A damaged byte in the last block: replayed up to the block before,
	// with the offset said.
	bad := bytes.Clone(data)
	bad[len(bad)-5] ^= 0x40
	badPath := filepath.Join(t.TempDir(), "bad.rec")
	if err := os.WriteFile(badPath, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := runAppSplit(t, "replay", badPath, "--at", "1s")
	if err != nil || !strings.Contains(stderr, "damaged block at offset") || !strings.Contains(stderr, "replaying up to its last whole block") {
		t.Errorf("damaged file: %v %q", err, stderr)
	}
}

// The Chrome trace parses, has a thread-state slice track per thread and
// heap and memory counters per VM, in time order per track.
func testChrome(t *testing.T, path string) {
	out := filepath.Join(t.TempDir(), "trace.json")
	if _, stderr, err := runAppSplit(t, "replay", path, "--chrome", out); err != nil || stderr != "" {
		t.Fatalf("%v %s", err, stderr)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []struct {
			Name string          `json:"name"`
			Cat  string          `json:"cat"`
			Ph   string          `json:"ph"`
			Ts   *float64        `json:"ts"`
			Dur  *float64        `json:"dur"`
			Pid  *int            `json:"pid"`
			Tid  *uint64         `json:"tid"`
			Args map[string]any  `json:"args"`
			Rest json.RawMessage `json:"-"`
		} `json:"traceEvents"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	states := map[string]bool{"running": true, "sleeping": true, "monitor": true, "wait": true, "initializing": true,
		"starting": true, "native": true, "vmwait": true, "suspended": true, "zombie": true, "timed_wait": true, "unknown": true}
	type track struct {
		pid int
		tid uint64
	}
	lastEnd := map[track]float64{}
	slices, heapCounters, memCounters, names := 0, 0, 0, 0
	procNames := map[int]string{}
	for _, e := range doc.TraceEvents {
		if e.Pid == nil || e.Tid == nil || e.Ts == nil || e.Name == "" {
			t.Fatalf("event without pid, tid, ts or name: %+v", e)
		}
		switch e.Ph {
		case "X":
			slices++
			if e.Dur == nil || *e.Dur < 0 || e.Cat != "thread_state" || *e.Tid == 0 {
				t.Fatalf("bad slice %+v", e)
			}
			if !states[e.Name] && !strings.HasPrefix(e.Name, "S") && len(e.Name) > 0 {
				// /proc states are named by procfs (sleeping, running, disk, ...)
				states[e.Name] = true
			}
			k := track{*e.Pid, *e.Tid}
			if *e.Ts < lastEnd[k]-0.001 {
				t.Fatalf("slices overlap on %v: %+v starts before %v", k, e, lastEnd[k])
			}
			lastEnd[k] = *e.Ts + *e.Dur
		case "C":
			if len(e.Args) == 0 {
				t.Fatalf("counter without values: %+v", e)
			}
			for _, v := range e.Args {
				if _, ok := v.(float64); !ok {
					t.Fatalf("counter value %v is not a number", v)
				}
			}
			switch {
			case strings.HasPrefix(e.Name, "heap "):
				heapCounters++
				if _, ok := e.Args["size"]; !ok {
					t.Fatalf("heap counter without size: %+v", e)
				}
			case e.Name == "memory (KiB)":
				memCounters++
				if _, ok := e.Args["pss"]; !ok {
					t.Fatalf("memory counter without pss: %+v", e)
				}
			default:
				t.Fatalf("unknown counter %q", e.Name)
			}
		case "M":
			names++
			if e.Name == "process_name" {
				procNames[*e.Pid], _ = e.Args["name"].(string)
			}
		default:
			t.Fatalf("unexpected phase %q", e.Ph)
		}
	}
	if slices < 50 || heapCounters < 5 || memCounters < 2 || len(procNames) < 8 {
		t.Errorf("%d slices, %d heap counters, %d memory counters, %d processes", slices, heapCounters, memCounters, len(procNames))
	}
	if py, err := exec.LookPath("python3"); err == nil {
		if out, err := exec.Command(py, "-m", "json.tool", out).CombinedOutput(); err != nil {
			t.Errorf("python3 -m json.tool: %v %s", err, out[:min(len(out), 300)])
		}
	} else if os.Getenv("CI") != "" {
		t.Error("python3 not found")
	}
}

// A replay session leaves no goroutine behind, whether it plays to the
// end or is stopped while playing.
func TestReplayRunLeaks(t *testing.T) {
	leakcheck.Check(t)
	rec := syntheticRecording(t, 50)
	store := monitor.NewStore(monitor.NewBus())
	p := monitor.NewReplay(rec, store)
	p.SetSpeed(1024)
	p.Play()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx) }()
	deadline := time.Now().Add(5 * time.Second)
	for p.Playing() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if p.Position() != rec.Duration() {
		t.Errorf("stopped at %v of %v", p.Position(), rec.Duration())
	}
	if len(store.VMs()) != 0 {
		t.Errorf("%d VMs left at the end (every one went)", len(store.VMs()))
	}
	p.Seek(rec.Duration() / 2)
	if len(store.VMs()) == 0 {
		t.Error("seeking back to the middle shows no VM")
	}
	// Paused, the position stays.
	p.Pause()
	at := p.Position()
	time.Sleep(120 * time.Millisecond)
	if p.Position() != at {
		t.Errorf("paused at %v, moved to %v", at, p.Position())
	}
	if p.SetSpeed(1e9); p.Speed() != 1024 {
		t.Errorf("speed %v, want the bound 1024", p.Speed())
	}
	if p.SetSpeed(0); p.Speed() != 1.0/16 {
		t.Errorf("speed %v, want the bound 1/16", p.Speed())
	}
	cancel()
	<-done
	p.Close()
	if len(store.VMs()) != 0 {
		t.Error("Close left VMs in the store")
	}
}

// syntheticRecording is n VMs, each appearing, sending HELO and going
// 3 s later, one every 100 ms.
func syntheticRecording(t *testing.T, n int) *monitor.Recording {
	t.Helper()
	var recs []record.Record
	for i := range n {
		key := fmt.Sprintf("local:%d", 8000+i)
		at := time.Duration(i) * 100 * time.Millisecond
		hello := ddm.AppendMessage(nil, &ddm.Hello{ClientVersion: 1, PID: uint32(1000 + i), VMIdent: "Dalvik v2.1.0", AppName: "com.example.app"})
		chunk := append(hello[:4:4], hello[ddm.ChunkHeaderLen:]...)
		recs = append(recs,
			record.Record{Time: at, Kind: record.KindEndpoint, Key: key, Data: []byte(`{"source":"` + key + `","pid":0}`)},
			record.Record{Time: at + time.Millisecond, Kind: record.KindChunk, Key: key, Data: chunk},
			record.Record{Time: at + 3*time.Second, Kind: record.KindGone, Key: key, Data: []byte("connection closed")})
	}
	slices.SortStableFunc(recs, func(a, b record.Record) int { return cmp.Compare(a.Time, b.Time) })
	var buf bytes.Buffer
	w, err := record.NewWriter(&buf, record.CompressZstd, time.Unix(1700000000, 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	rec, err := monitor.ReadRecording(&buf)
	if err != nil || rec.Tail != nil || len(rec.Records) != 3*n {
		t.Fatalf("%v %v", err, rec)
	}
	return rec
}

// TestReplayTimelineDrivesTheReplay: the dashboard's timeline seeks, steps,
// pauses and changes speed on the replay, seeks off the caller's goroutine,
// and its goroutine ends with the context.
func TestReplayTimelineDrivesTheReplay(t *testing.T) {
	leakcheck.Check(t)
	rec := syntheticRecording(t, 50) // 4.9 s + 3 s
	store := monitor.NewStore(monitor.NewBus())
	p := monitor.NewReplay(rec, store)
	ctx, cancel := context.WithCancel(context.Background())
	tl := newReplayTimeline(ctx, p, rec)
	settle := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: position %v, %d VMs, %s", what, p.Position(), len(store.VMs()), tl.Status())
			}
		}
	}
	tl.SeekBy(2 * time.Second)
	settle("seek +2s", func() bool { return p.Position() == 2*time.Second && len(store.VMs()) == 21 })
	tl.SeekEdge(true)
	settle("to the end", func() bool { return p.Position() == rec.Duration() && len(store.VMs()) == 0 })
	tl.SeekBy(-10 * time.Second)
	settle("back 10 s, bounded at the start", func() bool { return p.Position() == 0 })
	tl.Step()
	settle("step", func() bool { return p.Position() == time.Millisecond })
	if p.Playing() {
		t.Fatal("a step left the replay playing")
	}
	tl.TogglePlay()
	if !p.Playing() {
		t.Fatal("toggle did not play")
	}
	tl.TogglePlay()
	tl.ScaleSpeed(2)
	tl.ScaleSpeed(2)
	if p.Speed() != 4 || p.Playing() {
		t.Fatalf("speed %v playing %v", p.Speed(), p.Playing())
	}
	if st := tl.Status(); !strings.HasPrefix(st, "❚❚ 0:00.0 / 0:07.9 ×4") {
		t.Fatalf("status %q", st)
	}
	cancel()
	tl.wait()
}

// TestReplayPreloadGivesEachSecondsEvents: the VM timelines' preload
// hands over the recording a second at a time, in order, each second
// holding the events of its records only; a cancelled context stops it.
func TestReplayPreloadGivesEachSecondsEvents(t *testing.T) {
	leakcheck.Check(t)
	rec := syntheticRecording(t, 50) // VM i appears at i×100 ms (HELO 1 ms later) and goes 3 s later
	tl := &replayTimeline{rec: rec}
	var ats []time.Duration
	seen := map[string]time.Duration{} // VM key → the second its HELO came in
	gone := map[string]time.Duration{}
	tl.Preload(context.Background(), func(at time.Duration, evs []monitor.Event) {
		ats = append(ats, at)
		for _, ev := range evs {
			switch e := ev.(type) {
			case monitor.VMUpdated:
				if _, ok := seen[e.VM.Key]; !ok && e.VM.PID != 0 {
					seen[e.VM.Key] = at
				}
			case monitor.VMGone:
				gone[e.Key] = at
			}
		}
	})
	for i, at := range ats {
		if at%time.Second != 0 || i > 0 && at <= ats[i-1] {
			t.Fatalf("seconds %v: not whole seconds in order", ats)
		}
	}
	if len(seen) != 50 || len(gone) != 50 {
		t.Fatalf("%d VMs seen, %d gone, want 50 and 50", len(seen), len(gone))
	}
	for i := range 50 {
		key := fmt.Sprintf("local:%d", 8000+i)
		if want := time.Duration(i/10) * time.Second; seen[key] != want {
			t.Fatalf("%s's HELO in second %v, want %v", key, seen[key], want)
		}
		if want := time.Duration(i/10+3) * time.Second; gone[key] != want {
			t.Fatalf("%s gone in second %v, want %v", key, gone[key], want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := 0
	tl.Preload(ctx, func(time.Duration, []monitor.Event) { calls++ })
	if calls != 0 {
		t.Fatalf("a cancelled preload handed over %d seconds", calls)
	}
}

// Past the end, and at the length replay itself reports, is the last live
// state: every VM of the last live snapshot, not the recording's close
// (issue 29 #9: --at 100s printed [] and --at LENGTH was refused).
func testReplayPastTheEnd(t *testing.T, path string, last []headless.SnapshotEntry) {
	rec, err := loadRecording(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []string{rec.Duration().String(), "100s"} {
		got, stderr, err := runAppSplit(t, "replay", path, "--at", at, "--json")
		if err != nil {
			t.Fatalf("--at %s: %v", at, err)
		}
		var vms []headless.SnapshotEntry
		if err := json.Unmarshal([]byte(got), &vms); err != nil {
			t.Fatalf("--at %s: %v\n%s", at, err, got)
		}
		want := map[string]bool{}
		for _, e := range last {
			want[fmt.Sprintf("%s/%d", e.Source, e.PID)] = true
		}
		for _, e := range vms {
			delete(want, fmt.Sprintf("%s/%d", e.Source, e.PID))
		}
		if len(vms) == 0 || len(want) != 0 {
			t.Errorf("--at %s: %d VMs, missing %v of the last live snapshot", at, len(vms), want)
		}
		if past := at == "100s"; past != strings.Contains(stderr, "past the recording's end") {
			t.Errorf("--at %s: stderr %q", at, stderr)
		}
	}
}

// Issue 37 #11: the timeline's preload steps over seconds without a
// record: a recording whose last record is at 2^62 ns (146 years) used to
// be sought through second by second, a core busy for about an hour. The
// guard context only keeps a failing run short: preload must reach the
// last record's second, having visited the two seconds that have records.
func TestReplaySecondsStepsOverGaps(t *testing.T) {
	key := "local:8000"
	hello := ddm.AppendMessage(nil, &ddm.Hello{ClientVersion: 1, PID: 1000, VMIdent: "Dalvik v2.1.0", AppName: "com.example.app"})
	chunk := append(hello[:4:4], hello[ddm.ChunkHeaderLen:]...)
	rec := &monitor.Recording{Records: []record.Record{
		{Time: 0, Kind: record.KindEndpoint, Key: key, Data: []byte(`{"source":"` + key + `","pid":0}`)},
		{Time: time.Millisecond, Kind: record.KindChunk, Key: key, Data: chunk},
		{Time: 1 << 62, Kind: record.KindGone, Key: key, Data: []byte("connection closed")},
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var seconds []time.Duration
	replaySeconds(ctx, rec, func(at time.Duration, _ []monitor.Event) { seconds = append(seconds, at) })
	if want := []time.Duration{0, time.Duration(1 << 62).Truncate(time.Second)}; !slices.Equal(seconds, want) || ctx.Err() != nil {
		t.Fatalf("seconds with events %v (want %v), guard %v", seconds, want, ctx.Err())
	}
}
