package monitor

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/record"
	"github.com/ddmtui/ddmtui/scan"
)

// Recording is a recording read into memory: its header, its records in
// order, and why reading stopped early (a truncated or damaged file), if it
// did.
type Recording struct {
	Header  record.Header
	Records []record.Record
	// Tail is record.ErrTruncated or record.ErrCorrupt (wrapped, with the
	// offset) when the file did not end cleanly: the records are those of
	// its whole blocks. It is ErrRecordingTooLarge (wrapped) when the
	// records did not fit the process's memory budget: those before are
	// kept.
	Tail error

	held int64 // bytes taken from recordingBudget (Release gives them back)
}

// recordingBudget is what a recording's records are charged to (data, key
// and 64 bytes a record): the process-wide budget, of which a recording
// takes at most half (the replay's own model, the block being decompressed
// and the Go heap's garbage need the rest). A recording is read whole, and
// a 61 KB file of zstd blocks of zeros decompressed to 1.8 GB (issue 37
// #8); a real session's records (a few VMs' HPIF, THST and log entries)
// are a few MB a minute.
var recordingBudget = budget.Process

// Release gives the records' bytes back to the budget; the recording must
// not be replayed afterwards.
func (r *Recording) Release() {
	recordingBudget.Give(r.held)
	r.held, r.Records = 0, nil
}

// recordOverhead is what a record costs beyond its data and key: the
// Record in the slice and the key's string header.
const recordOverhead = 64

// ErrRecordingTooLarge is the Tail of a recording whose records did not fit
// the memory budget.
var ErrRecordingTooLarge = errors.New("the recording's records pass the memory budget")

// Duration is the time of the last record.
func (r *Recording) Duration() time.Duration {
	if len(r.Records) == 0 {
		return 0
	}
	return r.Records[len(r.Records)-1].Time
}

// ReadRecording reads a whole recording. Only a missing or foreign header
// is an error; a truncated or damaged end is reported in Tail.
func ReadRecording(r io.Reader) (*Recording, error) {
	rd, err := record.NewReader(r)
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	rec := &Recording{Header: rd.Header}
	for {
		x, err := rd.Next()
		if err == nil {
			n := int64(len(x.Data)+len(x.Key)) + recordOverhead
			if l := recordingBudget.Limit(); (l <= 0 || rec.held+n <= l/2) && recordingBudget.Take(n) {
				rec.held += n
			} else {
				err = fmt.Errorf("%w (%s held, %d MiB of records read): the records from %v on are not read",
					ErrRecordingTooLarge, recordingBudget, rec.held>>20, x.Time)
			}
		}
		if err != nil {
			if err != io.EOF {
				rec.Tail = err
			}
			// Sessions' goroutines stamp inputs when they arrive and
			// write them when they get the recorder: put them in time
			// order (stable: one source's inputs keep theirs).
			slices.SortStableFunc(rec.Records, func(a, b record.Record) int { return cmp.Compare(a.Time, b.Time) })
			return rec, nil
		}
		x.Data = append([]byte(nil), x.Data...)
		rec.Records = append(rec.Records, x)
	}
}

// Replay drives a Store from a recording: a discovery source without
// connections. Each recorded VM gets a Session (no connection) whose apply
// steps (apply.go) take the recorded inputs at their recorded times, so the
// model is built by the same decoding and model code as live. Seeking
// backwards resets the store and applies again from the start.
//
// Play, Pause, Step, Seek and SetSpeed may be called from any goroutine;
// Run moves the position forward in real time (scaled by the speed) while
// playing.
type Replay struct {
	rec   *Recording
	store *Store
	opts  SessionOptions

	// Position, Playing and Speed read atomics, never the mutex, so the
	// dashboard's status line does not wait for a long Seek.
	posA     atomic.Int64 // pos, for Position
	playing  atomic.Bool
	aborted  atomic.Bool   // Abort: nothing more is applied
	speed    atomic.Uint64 // math.Float64bits of the speed
	mu       sync.Mutex
	next     int           // index of the next record to apply
	pos      time.Duration // position: every record at or before it is applied
	sessions map[string]*Session
	applied  uint64 // records applied (model events), for the benchmark
	wake     chan struct{}
	errs     []error
	refused  int // endpoint records past MaxReplayVMs, since the last reset

	// The device logs, by device name (the Source of its VMs): made on
	// first use, and afresh after a seek back. logMu, not mu, so the log
	// pane asking for one never waits for a long Seek.
	logMu      sync.Mutex
	logs       map[string]*devicelog.Log
	logDevices map[string]bool // devices the recording holds log entries of
	// logBudget is the logs' share of the process-wide budget, as a live
	// monitor's device logs have (devicelog.Logs): the rings' oldest
	// entries go first when the process needs room.
	logBudget *budget.Budget
}

// MaxReplayVMs bounds the VMs a replay holds at once (issue 30 item 14):
// a live monitor follows at most scan.DefaultMaxDevices (64) devices per adb
// server, and a busy device has a few dozen debuggable processes, so 4,096
// is far above what a recording of a real session holds, while a file of
// endpoint records alone (a few bytes each) cannot make the replay hold
// hundreds of thousands of VMs (a few KiB each in the store and the JSON).
// Endpoint records past it are counted, reported once in Errors, and their
// VMs' records are not applied.
const MaxReplayVMs = 4096

// ErrTooManyVMs is the error Replay.Errors reports once when a recording
// holds more than MaxReplayVMs VMs at once.
var ErrTooManyVMs = fmt.Errorf("the recording holds more than %d VMs at once; the VMs past them are not replayed", MaxReplayVMs)

// NewReplay returns a paused replay at the start of rec (nothing applied)
// writing into store.
func NewReplay(rec *Recording, store *Store) *Replay {
	o := SessionOptions{}
	o.fill()
	p := &Replay{rec: rec, store: store, opts: o, sessions: map[string]*Session{}, wake: make(chan struct{}, 1),
		logs: map[string]*devicelog.Log{}, logDevices: map[string]bool{},
		logBudget: budget.Process.Child(logcat.DefaultProcessLogBytes)}
	p.speed.Store(math.Float64bits(1))
	for _, r := range rec.Records {
		if r.Kind == record.KindLog && r.Key == "" {
			if dev, _, err := logRecordDevice(r.Data); err == nil {
				p.logDevices[dev] = true
			}
		}
	}
	return p
}

// Log returns the replayed log of vm's device (the dashboard's Config.Log),
// or why there is none. After a seek back it is another devicelog.Log:
// views ask again when the VMs change.
func (p *Replay) Log(vm VM) (*devicelog.Log, string) {
	if !p.logDevices[vm.Source] {
		return nil, "this recording holds no log of this VM's device"
	}
	return p.deviceLog(vm.Source), ""
}

func (p *Replay) deviceLog(device string) *devicelog.Log {
	p.logMu.Lock()
	defer p.logMu.Unlock()
	d := p.logs[device]
	if d == nil {
		d = devicelog.NewFed(0) // ready at once: entries come as the replay reaches them
		d.Ring().SetLimit(0, p.logBudget, device)
		p.logs[device] = d
	}
	return d
}

// applyLog adds a log record's entry to its device's log.
func (p *Replay) applyLog(r record.Record) error {
	device, e, err := decodeLogRecord(r.Data)
	if err != nil {
		return fmt.Errorf("log record at %v: %w", r.Time, err)
	}
	p.deviceLog(device).Add(&e)
	return nil
}

// Duration is the recording's length.
func (p *Replay) Duration() time.Duration { return p.rec.Duration() }

// Position is the time up to which the recording has been applied.
func (p *Replay) Position() time.Duration { return time.Duration(p.posA.Load()) }

// Playing reports whether Run advances the position.
func (p *Replay) Playing() bool { return p.playing.Load() }

// Speed is the playback speed (1: real time).
func (p *Replay) Speed() float64 { return math.Float64frombits(p.speed.Load()) }

// Applied is how many records have been applied since the replay was made
// (seeking back applies some again).
func (p *Replay) Applied() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.applied
}

// Errors lists records that could not be applied (malformed data).
func (p *Replay) Errors() []error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]error(nil), p.errs...)
}

// Play starts advancing; Pause stops.
func (p *Replay) Play() { p.setPlaying(true) }

// Pause stops advancing.
func (p *Replay) Pause() { p.setPlaying(false) }

func (p *Replay) setPlaying(on bool) {
	p.playing.Store(on)
	p.poke()
}

func (p *Replay) poke() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// SetSpeed sets the playback speed, bounded to 1/16..1024.
func (p *Replay) SetSpeed(x float64) {
	x = min(max(x, 1.0/16), 1024)
	p.speed.Store(math.Float64bits(x))
	p.poke()
}

// Step applies the records of the next instant that has any and moves
// there; it returns false at the end.
func (p *Replay) Step() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.next >= len(p.rec.Records) {
		return false
	}
	p.advanceLocked(p.rec.Records[p.next].Time)
	return true
}

// Seek moves to t (bounded to the recording): forward it applies the
// records up to t as fast as it can; backward it empties the store and
// applies from the start, which takes a while on a long recording (about
// 100,000 records a second): call it off the UI goroutine.
func (p *Replay) Seek(t time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t = min(max(t, 0), p.rec.Duration())
	if t < p.pos {
		p.resetLocked()
	}
	p.advanceLocked(t)
}

// Close removes the replay's VMs from the store.
func (p *Replay) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resetLocked()
}

func (p *Replay) resetLocked() {
	for key, s := range p.sessions {
		s.threads.close() // gives its table's charge back
		p.store.Remove(key, "replay rewound")
	}
	clear(p.sessions)
	p.refused = 0
	p.logMu.Lock()
	for _, d := range p.logs {
		d.Ring().Detach() // a log pane may still show it; its bytes go back
	}
	clear(p.logs)
	p.logMu.Unlock()
	p.next, p.pos = 0, 0
	p.posA.Store(0)
}

// Abort stops the replay for good: a Seek in progress returns within a few
// hundred records, and nothing more is applied (the dashboard's end must not
// wait for a long Seek of a big recording).
func (p *Replay) Abort() {
	p.aborted.Store(true)
	p.setPlaying(false)
}

// advanceLocked applies every record with a time at or before t.
func (p *Replay) advanceLocked(t time.Duration) {
	recs := p.rec.Records
	for p.next < len(recs) && recs[p.next].Time <= t {
		if p.next%256 == 0 && p.aborted.Load() {
			return
		}
		if err := p.applyLocked(recs[p.next]); err != nil && len(p.errs) < 100 {
			p.errs = append(p.errs, err)
		}
		p.next++
		p.applied++
	}
	p.pos = max(t, p.pos)
	p.posA.Store(int64(p.pos))
}

func (p *Replay) applyLocked(r record.Record) error {
	now := p.rec.Header.Start.Add(r.Time)
	s := p.sessions[r.Key]
	switch r.Kind {
	case record.KindEndpoint:
		var ep endpointRecord
		if err := json.Unmarshal(r.Data, &ep); err != nil {
			return fmt.Errorf("endpoint record at %v: %w", r.Time, err)
		}
		if s != nil { // a new session of the same key: the old one ended unrecorded
			p.store.Remove(r.Key, "replaced")
		} else if len(p.sessions) >= MaxReplayVMs {
			p.refused++
			if p.refused == 1 {
				return fmt.Errorf("endpoint record at %v for %q: %w", r.Time, r.Key, ErrTooManyVMs)
			}
			return nil
		}
		s = NewSession(scan.Endpoint{Key: r.Key, Source: ep.Source, PID: ep.PID}, p.store, p.opts)
		s.entry.caps.device = ep.Device
		s.noJDWP = ep.NoJDWP
		p.sessions[r.Key] = s
		s.begin(now)
		return nil
	case record.KindGone:
		if string(r.Data) == ReasonStopped {
			return nil // the recording's close, not the VM's end
		}
		if s != nil {
			delete(p.sessions, r.Key)
			s.end(now, string(r.Data), false)
		}
		return nil
	case record.KindLog:
		if r.Key == "" {
			return p.applyLog(r)
		}
	}
	if s == nil {
		if r.Key == "" || p.refused > 0 {
			return nil // other device-wide records (none yet), or a refused VM's
		}
		return fmt.Errorf("%s record at %v for %q, which has no endpoint record", r.Kind, r.Time, r.Key)
	}
	return s.applyRecord(r, now)
}

// Run advances the position while playing, in real time times the speed,
// until the end of the recording (when it pauses) or ctx ends.
func (p *Replay) Run(ctx context.Context) error {
	const tick = 50 * time.Millisecond
	t := time.NewTicker(tick)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		case <-p.wake:
		}
		now := time.Now()
		elapsed := now.Sub(last)
		last = now
		p.mu.Lock()
		if p.playing.Load() {
			target := p.pos + time.Duration(float64(elapsed)*p.Speed())
			end := p.rec.Duration()
			p.advanceLocked(min(target, end))
			if target >= end {
				// Stopped only once there: whoever sees it stopped sees the end.
				p.playing.Store(false)
			}
		}
		p.mu.Unlock()
	}
}

// ErrNoLiveVM is what a replayed VM answers to requests that need a live
// VM (a GC, a stack, a heap dump).
var ErrNoLiveVM = errors.New("this VM is replayed from a recording: it takes no requests")
