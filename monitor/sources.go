package monitor

import (
	"context"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/android/meminfo"
	"github.com/ddmtui/ddmtui/android/procfs"
	"github.com/ddmtui/ddmtui/devshell"
	"github.com/ddmtui/ddmtui/record"
)

// deviceSources are a VM's sources beside DDM, read through its device
// shell (devshell): the device's API level and model (once per device,
// through the engine's cache), the process memory (`dumpsys meminfo PID`
// at MeminfoInterval), the thread table from /proc for a VM that leaves
// THST unanswered (recent Android), and a process's name from
// /proc/PID/cmdline. Each reading is an input of the session (recorded,
// then applied); a replay applies the recorded readings the same way.
type deviceSources struct {
	dev    devshell.Shell // nil: the VM is not on a device (or a replay)
	cache  *devshell.Cache
	device string // the device's key in the cache
	entry  *vmEntry
	input  func(func(now time.Time)) // the session's
	wg     *sync.WaitGroup           // the session's source goroutines
	log    *slog.Logger
	// threads is the session's thread book: its cap and the thread
	// budget's charge hold for the /proc table too.
	threads *threadBook
	// interval is SessionOptions.ThreadInterval, timeout RequestTimeout,
	// memInterval MeminfoInterval.
	interval, timeout, memInterval time.Duration

	mu        sync.Mutex
	procOn    bool // the /proc poller runs (THST unanswered)
	procTable map[uint64]*Thread
	cpu       cpuTracker
	mem       Memory // the dumpsys readings so far
}

// readAPI reads the device's API level once (per device, through the
// cache) and records it on the VM; from ddmThreadsGoneAPI on, a DDM VM's
// threads come from /proc at once.
func (d *deviceSources) readAPI(ctx context.Context) {
	if d.dev == nil {
		return
	}
	cache := d.cache
	if cache == nil {
		cache = devshell.NewCache()
	}
	rctx, cancel := context.WithTimeout(ctx, d.timeout)
	api, model, err := cache.Info(rctx, d.device, d.dev.Run)
	cancel()
	if err != nil {
		d.log.Info("API level unknown", "error", err)
		return
	}
	st := stateRecord{API: &api}
	if model != "" {
		st.Model = &model
	}
	d.entry.rec.json(time.Now(), record.KindState, d.entry.key, st)
	d.entry.applyAPI(api)
	if model != "" {
		d.entry.applyModel(model)
	}
	if api >= ddmThreadsGoneAPI && d.entry.capsNow().kind != "jdwp" {
		d.startProcThreads(ctx) // its THST will go unanswered: /proc at once
	}
}

// The /proc thread source: for a VM on a device that leaves THST
// unanswered (recent Android), the thread table comes from the kernel,
// `cat /proc/PID/task/*/stat`, at the thread interval. Rows carry the tid
// as ID and SysTID, comm as Name (15 bytes of the Java name), CPU times in
// clock ticks and the state letter.

// startProcThreads starts the /proc poller unless it runs or the VM is
// not on a device. It stops by itself when THST is answered again.
func (d *deviceSources) startProcThreads(ctx context.Context) {
	if d.dev == nil {
		return
	}
	d.mu.Lock()
	if d.procOn {
		d.mu.Unlock()
		return
	}
	d.procOn = true
	d.mu.Unlock()
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		d.runProcThreads(ctx)
	}()
}

func (d *deviceSources) runProcThreads(ctx context.Context) {
	defer func() {
		d.mu.Lock()
		d.procOn = false
		d.mu.Unlock()
	}()
	t := time.NewTimer(pollPhase(d.entry.key, d.interval))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if d.entry.capsNow().thst == answered {
			return
		}
		d.pollProc(ctx)
		t.Reset(d.interval)
	}
}

func (d *deviceSources) pollProc(ctx context.Context) {
	pid := d.entry.currentPID()
	if pid <= 0 {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, d.timeout)
	out, err := devshell.ProcStat(rctx, d.dev, pid)
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			d.log.Info("reading /proc failed", "error", err)
			d.entry.setCaps(func(in *capInput) { in.procWhy = "reading /proc: " + devshell.FirstLine([]byte(err.Error())) })
		}
		return
	}
	d.input(func(now time.Time) {
		d.entry.rec.add(now, record.KindProcStat, d.entry.key, out)
		d.applyProcStat(out, now)
	})
}

// applyProcStat applies the output of `cat /proc/PID/task/*/stat` read at
// now.
func (d *deviceSources) applyProcStat(out []byte, now time.Time) {
	pid := d.entry.currentPID()
	r := procfs.Parse(out)
	if len(r.Threads) == 0 {
		why := "/proc/" + strconv.Itoa(pid) + "/task lists no thread"
		if line := devshell.FirstLine(out); line != "" {
			why = "/proc: " + line // e.g. cat's "Permission denied" where /proc hides other apps
		}
		d.entry.setCaps(func(in *capInput) { in.procWhy = why })
		return
	}
	caps := d.entry.capsNow()
	if caps.procWhy != "" {
		d.entry.setCaps(func(in *capInput) { in.procWhy = "" })
	}
	if caps.thst == answered { // THST came back meanwhile: DDM wins
		return
	}
	d.mu.Lock()
	have := len(d.procTable)
	d.mu.Unlock()
	r.Threads = r.Threads[:d.threads.fit(have, len(r.Threads))]
	d.mu.Lock()
	old := d.procTable
	fresh := make(map[uint64]*Thread, len(r.Threads))
	for _, pt := range r.Threads {
		id := uint64(pt.TID)
		th := &Thread{ID: id, Name: pt.Comm, Status: -1, State: procfs.StateName(pt.State), SysTID: pt.TID,
			UTime: int(pt.UTime), STime: int(pt.STime), Source: SourceProc, ProcState: string(pt.State),
			Created: now, Changed: now}
		if prev, ok := old[id]; ok {
			th.Created = prev.Created
			if prev.State == th.State {
				th.Changed = prev.Changed
			}
		}
		fresh[id] = th
	}
	d.cpu.sample(now, fresh)
	d.procTable = fresh
	table := make([]Thread, 0, len(fresh))
	for _, th := range fresh {
		table = append(table, *th)
	}
	seq := threadSeq.Add(1)
	d.mu.Unlock()
	sort.Slice(table, func(i, j int) bool { return table[i].ID < table[j].ID })
	d.threads.charge(table)
	d.entry.store.setThreads(d.entry.key, seq, table)
	d.threads.showTooMany()
}

// runMeminfo reads `dumpsys meminfo PID` at once and then every
// MeminfoInterval until ctx ends. A reading that is not a meminfo (no such
// process, no permission) makes the memory capability none, with the
// output's first line as the reason; the poller keeps trying at the slow
// pace, as the app may come back.
func (d *deviceSources) runMeminfo(ctx context.Context) {
	interval := d.memInterval
	if interval <= 0 || d.dev == nil {
		return
	}
	t := time.NewTimer(pollPhase(d.entry.key, interval))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		t.Reset(interval)
		pid := d.entry.currentPID()
		if pid <= 0 {
			continue
		}
		rctx, cancel := context.WithTimeout(ctx, d.timeout+interval)
		out, err := devshell.Meminfo(rctx, d.dev, pid)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			d.entry.setCaps(func(in *capInput) { in.memory, in.memWhy = unanswered, "dumpsys meminfo: "+err.Error() })
			continue
		}
		d.input(func(now time.Time) {
			d.entry.rec.add(now, record.KindMeminfo, d.entry.key, out)
			d.applyMeminfo(out, now)
		})
	}
}

// applyMeminfo applies the output of `dumpsys meminfo PID` read at now.
func (d *deviceSources) applyMeminfo(out []byte, now time.Time) {
	info := meminfo.Parse(out)
	if !info.Found() {
		why := "dumpsys meminfo gave no memory for this process"
		if line := devshell.FirstLine(out); line != "" {
			why = "dumpsys meminfo: " + line
		}
		d.entry.setCaps(func(in *capInput) { in.memory, in.memWhy = unanswered, why })
		return
	}
	d.mu.Lock()
	mem := &d.mem
	mem.Info, mem.Updated = info, now
	if len(mem.History) >= HistoryLen {
		mem.History = append(mem.History[:0], mem.History[len(mem.History)-HistoryLen+1:]...)
	}
	mem.History = append(mem.History, MemorySample{Time: now, TotalPSS: orMinus(info.TotalPSS),
		JavaHeap: orMinus(info.JavaHeap), NativeHeap: orMinus(info.NativeHeap)})
	m := *mem.clone()
	d.mu.Unlock()
	d.entry.store.SetMemory(d.entry.key, m)
	d.entry.setCaps(func(in *capInput) { in.memory, in.memWhy = answered, "" })
}

// nameFromShell names a process that track-app did not name (before
// Android 15) from its /proc/PID/cmdline, once; a process still called
// "<pre-initialized>" (forked, not yet specialised) is asked again.
func (d *deviceSources) nameFromShell(ctx context.Context) {
	if d.dev == nil {
		return
	}
	for wait := time.Duration(0); ; wait = time.Second {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if vm, ok := d.entry.vm(); ok && vm.App != "" && vm.App != "<pre-initialized>" {
			return
		}
		rctx, cancel := context.WithTimeout(ctx, d.timeout)
		out, err := devshell.Cmdline(rctx, d.dev, d.entry.pid)
		cancel()
		if ctx.Err() != nil {
			return
		}
		name, ok := devshell.ParseCmdline(out)
		if err != nil || !ok {
			d.log.Info("naming the process from /proc/PID/cmdline failed", "error", err, "output", devshell.FirstLine(out))
			return
		}
		d.input(func(now time.Time) {
			d.entry.rec.json(now, record.KindState, d.entry.key, stateRecord{ProcName: &name})
			d.entry.applyProcName(name)
		})
		if name != "<pre-initialized>" {
			return
		}
	}
}

// deviceKey is the key of a VM's device: the VM's key without the pid
// ("adb:SERVER/SERIAL"), or "" for VMs not on a device.
func deviceKey(key string, onDevice bool) string {
	if !onDevice {
		return ""
	}
	if i := strings.LastIndexByte(key, ':'); i > 0 {
		return key[:i]
	}
	return key
}
