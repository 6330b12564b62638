package monitor

import (
	"bytes"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/record"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// recordingOf builds a recording from records in memory.
func recordingOf(recs ...record.Record) *Recording {
	return &Recording{Header: record.Header{Version: record.Version, Start: time.Unix(1700000000, 0)}, Records: recs}
}

func chunkData(m ddm.Message) []byte {
	b := ddm.AppendMessage(nil, m)
	return append(b[:4:4], b[ddm.ChunkHeaderLen:]...)
}

// The replay applies each kind of input through the live code: HELO and
// FEAT replies give the identity, an HPIF chunk the heap, a THST reply the
// threads, a state record the error and the debugger port, and seeking
// back rebuilds the model from the start.
func TestReplayAppliesInputs(t *testing.T) {
	key := "local:8000"
	tab := &ddm.ThreadStatusTable{Threads: []ddm.ThreadStatus{{ID: 1, Status: 1, SysTID: 42, UTime: 3}, {ID: 2, Status: 4}}}
	rec := recordingOf(
		record.Record{Time: 0, Kind: record.KindEndpoint, Key: key, Data: []byte(`{"source":"local:8000","pid":0}`)},
		record.Record{Time: 10 * time.Millisecond, Kind: record.KindChunk, Key: key, Data: chunkData(&ddm.Hello{ClientVersion: 1, PID: 777, VMIdent: "Dalvik v2.1.0", AppName: "com.example"})},
		record.Record{Time: 20 * time.Millisecond, Kind: record.KindChunk, Key: key, Data: chunkData(&ddm.Features{Names: []string{"hprof-heap-dump"}})},
		record.Record{Time: time.Second, Kind: record.KindChunk, Key: key, Data: chunkData(tab)},
		record.Record{Time: 2 * time.Second, Kind: record.KindChunk, Key: key, Data: chunkData(&ddm.HeapInfo{Heaps: []ddm.HeapStats{{HeapID: 1, MaxBytes: 1 << 20, SizeBytes: 1000, AllocatedBytes: 600, AllocatedObjects: 9, Reason: ddm.HeapInfoEveryGC}}})},
		record.Record{Time: 3 * time.Second, Kind: record.KindState, Key: key, Data: []byte(`{"error":"boom","debug_port":8601,"debugger":"attached"}`)},
		record.Record{Time: 4 * time.Second, Kind: record.KindGone, Key: key, Data: []byte("bye")},
	)
	store := NewStore(NewBus())
	p := NewReplay(rec, store)
	p.Seek(20 * time.Millisecond)
	vm, ok := store.VM(key)
	if !ok || vm.PID != 777 || vm.App != "com.example" || vm.Family != "art" || !vm.DDM || len(vm.Features) != 1 {
		t.Fatalf("after HELO and FEAT: %+v", vm)
	}
	if !vm.Connected.Equal(rec.Header.Start) {
		t.Errorf("connected %v, want the recording's start", vm.Connected)
	}
	p.Seek(time.Second)
	vm, _ = store.VM(key)
	if len(vm.Threads) != 2 || vm.Threads[0].State != "running" || vm.Threads[0].SysTID != 42 || vm.Threads[1].State != "wait" {
		t.Fatalf("threads %+v", vm.Threads)
	}
	if !vm.Threads[0].Created.Equal(rec.Header.Start.Add(time.Second)) {
		t.Errorf("thread created %v: want the record's time", vm.Threads[0].Created)
	}
	p.Seek(3 * time.Second)
	vm, _ = store.VM(key)
	if len(vm.Heaps) != 1 || vm.Heaps[0].SizeBytes != 1000 || vm.Heaps[0].GCCount != 1 || vm.Err != "boom" || vm.DebugPort != 8601 || vm.Debugger != DebuggerAttached {
		t.Fatalf("heaps %+v err %q port %d debugger %q", vm.Heaps, vm.Err, vm.DebugPort, vm.Debugger)
	}
	p.Seek(500 * time.Millisecond) // back: rebuilt from the start
	vm, _ = store.VM(key)
	if len(vm.Threads) != 0 || len(vm.Heaps) != 0 || vm.Err != "" || vm.App != "com.example" {
		t.Fatalf("after seeking back: %+v", vm)
	}
	if !p.Step() || p.Position() != time.Second {
		t.Fatalf("step to %v", p.Position())
	}
	p.Seek(time.Hour)
	if _, ok := store.VM(key); ok || p.Position() != 4*time.Second {
		t.Errorf("at the end (%v) the VM is still there", p.Position())
	}
	if p.Step() {
		t.Error("step past the end")
	}
	if errs := p.Errors(); len(errs) != 0 {
		t.Errorf("errors: %v", errs)
	}
}

// Arbitrary records (malformed chunks, JSON, unknown kinds, keys without
// an endpoint) never panic the replay; each is applied or reported.
func FuzzReplayRecords(f *testing.F) {
	f.Add([]byte{byte(record.KindEndpoint), 0, '{', '}', 0xff, byte(record.KindChunk), 0, 'T', 'H', 'S', 'T', 1, 2})
	f.Add(append([]byte{byte(record.KindEndpoint), 0, '{', '}', 0xff, byte(record.KindChunk), 1}, chunkData(&ddm.HeapInfo{Heaps: []ddm.HeapStats{{HeapID: 1}}})...))
	f.Add([]byte{byte(record.KindState), 0, '{', '"', 'c', 'a', 'p', 's', '"', ':', '{', '}', '}'})
	// A log frame (keyless: the device's), then a damaged one.
	logEntry := logcat.Entry{Time: time.Unix(1700000000, 0), PID: 42, TID: 43, UID: -1, Priority: logcat.Warn, Tag: "tag", Message: "message"}
	logData, _ := appendLogRecord(nil, "adb:emulator-5554", &logEntry)
	f.Add(append(append([]byte{byte(record.KindLog), 3}, logData...), append([]byte{0xff, byte(record.KindLog), 1}, logData[:20]...)...))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Records separated by 0xff: kind, time (1 byte, 10 ms units), data.
		var recs []record.Record
		var at time.Duration
		for _, part := range bytes.Split(data, []byte{0xff}) {
			if len(part) < 2 {
				continue
			}
			at += time.Duration(part[1]) * 10 * time.Millisecond
			kind, key := record.Kind(part[0]%10), "k"
			if kind == record.KindLog {
				key = "" // a device's log
			}
			recs = append(recs, record.Record{Time: at, Kind: kind, Key: key, Data: part[2:]})
		}
		if len(recs) > 200 {
			return
		}
		store := NewStore(NewBus())
		p := NewReplay(recordingOf(recs...), store)
		p.Seek(at)
		p.Seek(at / 2)
		p.Close()
	})
}

// The sessions a stopping monitor ends (ReasonStopped) are the recording's
// close, not their VMs' end: past it the VMs are as last seen live. A VM
// whose session ended for itself is gone.
func TestReplayStopIsNotTheVMsEnd(t *testing.T) {
	a, b := "local:8000", "local:8001"
	rec := recordingOf(
		record.Record{Time: 0, Kind: record.KindEndpoint, Key: a, Data: []byte(`{"source":"local:8000","pid":0}`)},
		record.Record{Time: 0, Kind: record.KindEndpoint, Key: b, Data: []byte(`{"source":"local:8001","pid":0}`)},
		record.Record{Time: 10 * time.Millisecond, Kind: record.KindChunk, Key: a, Data: chunkData(&ddm.Hello{ClientVersion: 1, PID: 1, VMIdent: "Dalvik v2.1.0", AppName: "com.a"})},
		record.Record{Time: 10 * time.Millisecond, Kind: record.KindChunk, Key: b, Data: chunkData(&ddm.Hello{ClientVersion: 1, PID: 2, VMIdent: "Dalvik v2.1.0", AppName: "com.b"})},
		record.Record{Time: 2 * time.Second, Kind: record.KindChunk, Key: b, Data: chunkData(&ddm.Features{Names: []string{"x"}})},
		record.Record{Time: 3 * time.Second, Kind: record.KindGone, Key: a, Data: []byte("connection closed")},
		record.Record{Time: 3 * time.Second, Kind: record.KindGone, Key: b, Data: []byte(ReasonStopped)},
	)
	store := NewStore(NewBus())
	p := NewReplay(rec, store)
	p.Seek(time.Hour)
	if vm, ok := store.VM(a); ok {
		t.Errorf("com.a's connection closed at 3s but it is live at the end: %+v", vm)
	}
	if vm, ok := store.VM(b); !ok || vm.App != "com.b" || len(vm.Features) != 1 {
		t.Errorf("com.b at the end: %+v %v, want its last live state", vm, ok)
	}
}

// Engine.Run's end is the sessions' ReasonStopped; a VM that goes away
// while the engine runs ends with its connection.
func TestEngineStopEndsSessionsAsStopped(t *testing.T) {
	leakcheck.Check(t)
	var buf bytes.Buffer
	rec, err := NewRecorder(&buf, 0)
	if err != nil {
		t.Fatal(err)
	}
	specs := []sim.VMSpec{
		{PID: 101, App: "com.example.a", Family: sim.ART, Threads: 2, Seed: 1},
		{PID: 102, App: "com.example.b", Family: sim.ART, Threads: 2, Seed: 2},
	}
	r := startRig(t, specs, 0, SessionOptions{Recorder: rec})
	for i := range specs {
		waitFor(t, "both VMs", 5*time.Second, func() bool { vm, ok := r.store.VM(r.key(i)); return ok && vm.App != "" })
	}
	r.dev.Remove(101)
	waitFor(t, "the killed VM's end", 5*time.Second, func() bool { _, ok := r.store.VM(r.key(0)); return !ok })
	r.stop()
	if err := rec.Flush(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadRecording(&buf)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, x := range got.Records {
		if x.Kind == record.KindGone {
			reasons[x.Key] = string(x.Data)
		}
	}
	if reasons[r.key(0)] == ReasonStopped || reasons[r.key(0)] == "" {
		t.Errorf("killed VM ended with %q", reasons[r.key(0)])
	}
	if reasons[r.key(1)] != ReasonStopped {
		t.Errorf("VM ended by the engine's stop: %q, want %q", reasons[r.key(1)], ReasonStopped)
	}
}
