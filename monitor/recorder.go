package monitor

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/record"
)

// Recorder writes what the sessions receive, at their input boundary, into
// a recording (docs/RECORDING.md): every DDM chunk a VM sent (unsolicited,
// and the chunks of replies), the /proc and dumpsys text as read, a non-DDM
// VM's JDWP thread table, a session's start and end, and the model fields
// the engine sets itself. A replay (replay.go) feeds the same inputs to
// the same apply code. A nil *Recorder records nothing and costs a nil
// check per input.
type Recorder struct {
	mu    sync.Mutex
	w     *record.Writer
	start time.Time // monotonic origin of the records' times
	err   error     // first write error; ErrFull once the size limit is hit
	full  chan struct{}
}

// NewRecorder starts a zstd-compressed recording on w, bounded by maxSize
// bytes when positive.
func NewRecorder(w io.Writer, maxSize int64) (*Recorder, error) {
	start := time.Now()
	wr, err := record.NewWriter(w, record.CompressZstd, start)
	if err != nil {
		return nil, err
	}
	wr.MaxSize = maxSize
	return &Recorder{w: wr, start: start, full: make(chan struct{})}, nil
}

// Full is closed when the recording reached its size limit (or a write
// failed): nothing more is recorded.
func (r *Recorder) Full() <-chan struct{} { return r.full }

// Err is the error that stopped the recording, if any (record.ErrFull at
// the size limit).
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Written is the recording's size so far.
func (r *Recorder) Written() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.w.Written()
}

// Flush closes the open block and writes it.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failLocked(r.w.Flush())
}

// Run flushes a block every second until ctx ends, then once more, so that
// a killed process loses at most the last second.
func (r *Recorder) Run(ctx context.Context) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return r.Flush()
		case <-t.C:
			if err := r.Flush(); err != nil {
				return err
			}
		}
	}
}

func (r *Recorder) failLocked(err error) error {
	if err != nil && r.err == nil {
		r.err = err
		close(r.full)
	}
	return err
}

// add records one input received at now (a reading of time.Now, so the
// record's time is monotonic).
func (r *Recorder) add(now time.Time, kind record.Kind, key string, data []byte) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	if len(key)+len(data)+1+2*binary.MaxVarintLen64 > record.MaxRecord {
		return // a record too big to keep (a huge chunk) is skipped; the recording goes on
	}
	// Inputs of different goroutines may be stamped a little out of
	// order (each is stamped when it arrived, not when it got the lock);
	// ReadRecording puts them in time order.
	err := r.w.Add(record.Record{Time: now.Sub(r.start), Kind: kind, Key: key, Data: data})
	r.failLocked(err)
}

func (r *Recorder) json(now time.Time, kind record.Kind, key string, v any) {
	if r == nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	r.add(now, kind, key, b)
}

// chunk records a DDM chunk the VM sent. Streamed data (an HPROF dump, a
// method trace) changes no model and can be huge: it is left out.
func (r *Recorder) chunk(now time.Time, key string, c ddm.Chunk) {
	if r == nil || c.Type == ddm.TypeHPDS || c.Type == ddm.TypeMPSE {
		return
	}
	data := make([]byte, 4+len(c.Data))
	putType(data, c.Type)
	copy(data[4:], c.Data)
	r.add(now, record.KindChunk, key, data)
}

func putType(b []byte, t ddm.Type) {
	b[0], b[1], b[2], b[3] = byte(t>>24), byte(t>>16), byte(t>>8), byte(t)
}

// endpointRecord is the data of a KindEndpoint record.
type endpointRecord struct {
	Source string `json:"source"`
	PID    int    `json:"pid"`
	Device bool   `json:"device,omitempty"`  // on an adb device (device-shell sources)
	NoJDWP bool   `json:"no_jdwp,omitempty"` // a profileable process without JDWP
}

// stateRecord is the data of a KindState record: model fields the engine
// sets itself. Absent fields are unchanged.
type stateRecord struct {
	Err       *string    `json:"error,omitempty"`
	Debugger  *string    `json:"debugger,omitempty"`
	DebugPort *int       `json:"debug_port,omitempty"`
	API       *int       `json:"api,omitempty"`
	JDWP      *jdwpIdent `json:"jdwp,omitempty"` // a VM that refused DDM: its identity
	Caps      *capsState `json:"caps,omitempty"` // the capability inputs after a change
	// FlushThreads: the session published a thread table its rate limit had
	// held back (threads.go), at this record's time.
	FlushThreads bool `json:"flush_threads,omitempty"`
	// Model: the device's model, read with the API level.
	Model *string `json:"model,omitempty"`
	// Process: the process's track-app entry, when it first came and at
	// every change; ProcName: its name from /proc/PID/cmdline.
	Process  *processRecord `json:"process,omitempty"`
	ProcName *string        `json:"proc_name,omitempty"`
}

type jdwpIdent struct {
	Family  string `json:"family"`
	VMIdent string `json:"vm"`
	Err     string `json:"error,omitempty"`
}

// capsState mirrors capInput for the recording.
type capsState struct {
	Kind     string   `json:"kind,omitempty"`
	Device   bool     `json:"device,omitempty"`
	API      int      `json:"api,omitempty"`
	THST     int      `json:"thst,omitempty"`
	HPIF     int      `json:"hpif,omitempty"`
	Features []string `json:"features,omitempty"`
	Memory   int      `json:"memory,omitempty"`
	MemWhy   string   `json:"mem_why,omitempty"`
	MemOff   bool     `json:"mem_off,omitempty"`
	ProcWhy  string   `json:"proc_why,omitempty"`
}

func capsToState(in capInput) *capsState {
	return &capsState{Kind: in.kind, Device: in.device, API: in.api, THST: int(in.thst), HPIF: int(in.hpif),
		Features: in.features, Memory: int(in.memory), MemWhy: in.memWhy, MemOff: in.memOff, ProcWhy: in.procWhy}
}

func (c *capsState) input() capInput {
	return capInput{kind: c.Kind, device: c.Device, api: c.API, thst: answer(c.THST), hpif: answer(c.HPIF),
		features: c.Features, memory: answer(c.Memory), memWhy: c.MemWhy, memOff: c.MemOff, procWhy: c.ProcWhy}
}

// jdwpThread is one row of a KindThreads record.
type jdwpThread struct {
	ID     uint64 `json:"id"`
	Name   string `json:"name"`
	Status int    `json:"status"`
	// Suspended: ThreadReference.Status said a debugger suspended it.
	Suspended bool `json:"suspended,omitempty"`
}

// Since is the time since the recording started, as records are stamped.
func (r *Recorder) Since() time.Duration { return time.Since(r.start) }
