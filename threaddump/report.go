package threaddump

// Report is the JSON form of a dump and its analysis, printed by
// `ddmtui anr FILE --json`. Keys are snake_case; optional values are null or
// left out when absent.
type Report struct {
	Truncated   bool            `json:"truncated"`
	SizeLimited bool            `json:"size_limited,omitempty"`
	Warnings    []WarningReport `json:"warnings,omitempty"`
	// UnknownLines are the lines outside every process block.
	UnknownLines []LineReport    `json:"unknown_lines,omitempty"`
	Processes    []ProcessReport `json:"processes"`
}

// WarningReport is a Warning.
type WarningReport struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// LineReport is a Line.
type LineReport struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// ProcessReport is one process block with its analysis.
type ProcessReport struct {
	PID              int    `json:"pid"`
	Date             string `json:"date"`
	CmdLine          string `json:"cmdline"`
	OriginalCmdLine  string `json:"original_cmdline,omitempty"`
	BuildFingerprint string `json:"build_fingerprint,omitempty"`
	ABI              string `json:"abi,omitempty"`
	BuildType        string `json:"build_type,omitempty"`
	VM               string `json:"vm"`
	DeclaredThreads  int    `json:"declared_threads,omitempty"`
	Truncated        bool   `json:"truncated"`
	Line             int    `json:"line"`
	// RuntimeLines are the runtime sections and other lines of the block
	// outside the threads.
	RuntimeLines []LineReport       `json:"runtime_lines,omitempty"`
	Threads      []ThreadReport     `json:"threads"`
	States       []StateGroupReport `json:"states"`
	LockGraph    []LockEdgeReport   `json:"lock_graph"`
	// Deadlocks: each is one cycle in wait order.
	Deadlocks  [][]LockEdgeReport `json:"deadlocks"`
	MainThread *MainThreadReport  `json:"main_thread"`
	CPURanking []CPUReport        `json:"cpu_ranking"`

	// lazyThreads, when set, gives Threads[i] while WriteJSON writes it
	// (NewStreamingReport): the report of every thread is never held.
	lazyThreads func(i int) ThreadReport
	lazyN       int
}

// ThreadReport is one thread.
type ThreadReport struct {
	Name        string   `json:"name"`
	TID         int      `json:"tid"`
	SysTID      int      `json:"sys_tid"`
	State       string   `json:"state"`
	StateClass  string   `json:"state_class"`
	Explanation string   `json:"state_explanation"`
	Daemon      bool     `json:"daemon"`
	Prio        int      `json:"prio"`
	Attached    bool     `json:"attached"`
	HeaderFlags []string `json:"header_flags,omitempty"`

	Group        string         `json:"group,omitempty"`
	SCount       int            `json:"s_count"`
	DSCount      int            `json:"ds_count,omitempty"`
	UCSCount     int            `json:"ucs_count,omitempty"`
	Flags        int            `json:"flags,omitempty"`
	Obj          string         `json:"obj,omitempty"`
	Self         string         `json:"self,omitempty"`
	Nice         int            `json:"nice"`
	Cgroup       string         `json:"cgrp,omitempty"`
	Sched        string         `json:"sched,omitempty"`
	Handle       string         `json:"handle,omitempty"`
	KernelState  string         `json:"kernel_state,omitempty"`
	SchedStat    string         `json:"schedstat,omitempty"`
	Utm          int            `json:"utm"`
	Stm          int            `json:"stm"`
	Core         int            `json:"core"`
	HZ           int            `json:"hz,omitempty"`
	Stack        string         `json:"stack,omitempty"`
	StackSize    string         `json:"stack_size,omitempty"`
	HeldMutexes  []string       `json:"held_mutexes,omitempty"`
	ExtraDetails []DetailReport `json:"extra_details,omitempty"`

	Frames []FrameReport `json:"frames"`
	// WaitingToLock is the object of the `waiting to lock` line; null when
	// the thread waits for no monitor.
	WaitingToLock *string `json:"waiting_to_lock"`
	// HeldByTID is the owner of that monitor (from the line, or from
	// another thread's `- locked` line); null when unknown.
	HeldByTID *int `json:"held_by_tid"`
	// WaitingOn is the object of a `waiting on` / `sleeping on` line.
	WaitingOn *string `json:"waiting_on,omitempty"`
	// Locked lists the objects of the `- locked` lines.
	Locked       []string     `json:"locked"`
	UnknownLines []LineReport `json:"unknown_lines,omitempty"`
	Line         int          `json:"line"`
	Truncated    bool         `json:"truncated,omitempty"`
}

// DetailReport is a Detail.
type DetailReport struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// FrameReport is one stack line with the lock lines that follow it.
type FrameReport struct {
	Kind string `json:"kind"` // java, native, kernel, note
	Text string `json:"text"`
	// Java frames.
	Class        string `json:"class,omitempty"`
	Method       string `json:"method,omitempty"`
	File         string `json:"file,omitempty"`
	Line         *int   `json:"line,omitempty"`
	NativeMethod bool   `json:"native_method,omitempty"`
	// Native frames.
	Index   *int   `json:"index,omitempty"`
	PC      string `json:"pc,omitempty"`
	Library string `json:"library,omitempty"`
	Symbol  string `json:"symbol,omitempty"`
	BuildID string `json:"build_id,omitempty"`

	Locks []LockReport `json:"locks,omitempty"`
}

// LockReport is one lock line.
type LockReport struct {
	Kind          string `json:"kind"` // "locked", "waiting to lock", ...
	Object        string `json:"object,omitempty"`
	UnknownObject bool   `json:"unknown_object,omitempty"`
	Type          string `json:"type,omitempty"`
	HeldByTID     int    `json:"held_by_tid,omitempty"`
	HeldByName    string `json:"held_by_name,omitempty"`
}

// StateGroupReport is a StateGroup with thread ids instead of indices.
type StateGroupReport struct {
	Class  string             `json:"class"`
	Label  string             `json:"label"`
	States []StateCountReport `json:"states"`
	TIDs   []int              `json:"tids"`
	Names  []string           `json:"names"`
}

// StateCountReport is a StateCount.
type StateCountReport struct {
	State       string `json:"state"`
	Explanation string `json:"explanation"`
	Count       int    `json:"count"`
}

// LockEdgeReport is one edge of the lock graph: a thread, the monitor it
// waits for and the thread that holds it.
type LockEdgeReport struct {
	TID             int    `json:"tid"`
	Name            string `json:"name"`
	WaitingToLock   string `json:"waiting_to_lock"`
	LockType        string `json:"lock_type,omitempty"`
	HeldByTID       int    `json:"held_by_tid"`
	HeldByName      string `json:"held_by_name,omitempty"`
	OwnerFromLocked bool   `json:"owner_from_locked,omitempty"`
	Frame           string `json:"frame,omitempty"`
}

// MainThreadReport is a MainThread.
type MainThreadReport struct {
	TID        int     `json:"tid"`
	Name       string  `json:"name"`
	State      string  `json:"state"`
	Frame      *string `json:"blocking_frame"`
	Waiting    *string `json:"waiting"`
	HeldByTID  *int    `json:"held_by_tid"`
	Idle       bool    `json:"idle"`
	Deadlocked bool    `json:"deadlocked"`
	Summary    string  `json:"summary"`
}

// CPUReport is a CPUUsage.
type CPUReport struct {
	TID     int      `json:"tid"`
	SysTID  int      `json:"sys_tid"`
	Name    string   `json:"name"`
	Utm     int      `json:"utm"`
	Stm     int      `json:"stm"`
	Jiffies int      `json:"jiffies"`
	Seconds *float64 `json:"seconds,omitempty"`
}

// NewReport analyses every process of d and returns the JSON model.
func NewReport(d *Dump) *Report { return newReport(d, false) }

// NewStreamingReport is NewReport for WriteJSON only: each thread's report
// (its frames and locks in report form, several times the dump's own
// memory for deep stacks) is made as it is written and then let go, so
// `anr --json` on a large dump holds the dump and its analysis only. The
// processes' Threads are nil; d must not change until WriteJSON returns.
func NewStreamingReport(d *Dump) *Report { return newReport(d, true) }

func newReport(d *Dump, lazy bool) *Report {
	r := &Report{
		Truncated:    d.Truncated,
		SizeLimited:  d.SizeLimited,
		UnknownLines: lineReports(d.Unknown),
		Processes:    make([]ProcessReport, 0, len(d.Processes)),
	}
	for _, w := range d.Warnings {
		r.Warnings = append(r.Warnings, WarningReport(w))
	}
	for _, p := range d.Processes {
		r.Processes = append(r.Processes, processReport(p, Analyze(p), lazy))
	}
	return r
}

func lineReports(lines []Line) []LineReport {
	var out []LineReport
	for _, l := range lines {
		out = append(out, LineReport{Line: l.No, Text: l.Text})
	}
	return out
}

func processReport(p *Process, a *Analysis, lazy bool) ProcessReport {
	pr := ProcessReport{
		PID: p.PID, Date: p.Date, CmdLine: p.CmdLine, OriginalCmdLine: p.OriginalCmdLine,
		BuildFingerprint: p.BuildFingerprint, ABI: p.ABI, BuildType: p.BuildType,
		VM: p.VM.String(), DeclaredThreads: p.DeclaredThreads, Truncated: p.Truncated, Line: p.Line,
		RuntimeLines: lineReports(p.RuntimeLines),
		Threads:      make([]ThreadReport, 0, len(p.Threads)),
		States:       make([]StateGroupReport, 0, len(a.States)),
		LockGraph:    make([]LockEdgeReport, 0, len(a.Edges)),
		Deadlocks:    make([][]LockEdgeReport, 0, len(a.Deadlocks)),
		CPURanking:   make([]CPUReport, 0, len(a.CPU)),
	}
	owners := map[int]int{} // waiter index -> resolved owner tid
	for _, e := range a.Edges {
		if e.HeldBy != 0 {
			owners[e.Waiter] = e.HeldBy
		}
	}
	if lazy && len(p.Threads) > 0 {
		pr.Threads = nil
		pr.lazyN = len(p.Threads)
		pr.lazyThreads = func(i int) ThreadReport { return threadReport(p.Threads[i], owners, i) }
	}
	for i, t := range p.Threads {
		if lazy {
			break
		}
		pr.Threads = append(pr.Threads, threadReport(t, owners, i))
	}
	for _, g := range a.States {
		gr := StateGroupReport{Class: g.Class, Label: g.Label}
		for _, s := range g.States {
			gr.States = append(gr.States, StateCountReport{State: s.Name, Explanation: s.Explanation, Count: s.Count})
		}
		for _, i := range g.Threads {
			gr.TIDs = append(gr.TIDs, p.Threads[i].TID)
			gr.Names = append(gr.Names, p.Threads[i].Name)
		}
		pr.States = append(pr.States, gr)
	}
	for _, e := range a.Edges {
		pr.LockGraph = append(pr.LockGraph, edgeReport(p, e))
	}
	for _, d := range a.Deadlocks {
		cycle := make([]LockEdgeReport, 0, len(d))
		for _, e := range d {
			cycle = append(cycle, edgeReport(p, e))
		}
		pr.Deadlocks = append(pr.Deadlocks, cycle)
	}
	if m := a.Main; m != nil {
		t := p.Threads[m.Thread]
		mr := &MainThreadReport{TID: t.TID, Name: t.Name, State: t.State, Idle: m.Idle, Deadlocked: m.Deadlocked, Summary: m.Summary}
		if m.Frame >= 0 {
			s := t.Frames[m.Frame].String()
			mr.Frame = &s
		}
		if m.Wait != nil {
			s := m.Wait.String()
			mr.Waiting = &s
		}
		if m.Owner >= 0 {
			tid := p.Threads[m.Owner].TID
			mr.HeldByTID = &tid
		} else if m.Wait != nil && m.Wait.HeldBy != 0 {
			tid := m.Wait.HeldBy
			mr.HeldByTID = &tid
		}
		pr.MainThread = mr
	}
	for _, u := range a.CPU {
		t := p.Threads[u.Thread]
		cr := CPUReport{TID: t.TID, SysTID: t.SysTID, Name: t.Name, Utm: t.Utime, Stm: t.Stime, Jiffies: u.Jiffies}
		if t.HZ > 0 {
			s := u.Seconds
			cr.Seconds = &s
		}
		pr.CPURanking = append(pr.CPURanking, cr)
	}
	return pr
}

func threadReport(t *Thread, owners map[int]int, index int) ThreadReport {
	info := t.StateInfo()
	tr := ThreadReport{
		Name: t.Name, TID: t.TID, SysTID: t.SysTID, State: t.State, StateClass: info.Class,
		Explanation: info.Explanation, Daemon: t.Daemon, Prio: t.Priority, Attached: !t.Unattached,
		HeaderFlags: t.HeaderFlags,
		Group:       t.Group, SCount: t.SuspendCount, DSCount: t.DebugSuspendCount, UCSCount: t.UserCodeSuspendCount,
		Flags: t.Flags, Obj: t.Obj, Self: t.Self, Nice: t.Nice, Cgroup: t.Cgroup, Sched: t.Sched,
		Handle: t.Handle, KernelState: t.KernelState, SchedStat: t.SchedStat, Utm: t.Utime, Stm: t.Stime,
		Core: t.Core, HZ: t.HZ, Stack: t.Stack, StackSize: t.StackSize, HeldMutexes: t.HeldMutexes,
		Frames:       make([]FrameReport, 0, len(t.Frames)),
		Locked:       []string{},
		UnknownLines: lineReports(t.Unknown),
		Line:         t.Line,
		Truncated:    t.Truncated,
	}
	for _, d := range t.ExtraDetails {
		tr.ExtraDetails = append(tr.ExtraDetails, DetailReport(d))
	}
	for _, f := range t.Frames {
		tr.Frames = append(tr.Frames, frameReport(f))
	}
	var before []LockReport // lock lines printed before every frame
	for _, l := range t.Locks {
		lr := LockReport{Kind: l.Kind.String(), Object: l.Object, UnknownObject: l.UnknownObject, Type: l.Type, HeldByTID: l.HeldBy, HeldByName: l.HeldByName}
		if l.Frame >= 0 && len(tr.Frames) > 0 {
			// A lock line after the last frame stays with it, as Format
			// writes it.
			f := min(l.Frame, len(tr.Frames)-1)
			tr.Frames[f].Locks = append(tr.Frames[f].Locks, lr)
		} else {
			before = append(before, lr)
		}
		if l.Kind == LockHeld && !l.UnknownObject {
			tr.Locked = append(tr.Locked, l.Object)
		}
	}
	if len(before) > 0 {
		note := FrameReport{Kind: FrameNote.String(), Text: "(lock lines before the first frame)", Locks: before}
		tr.Frames = append([]FrameReport{note}, tr.Frames...)
	}
	if w := t.WaitingToLock(); w != nil {
		obj := w.Object
		if w.UnknownObject {
			obj = "an unknown object"
		}
		tr.WaitingToLock = &obj
		if tid, ok := owners[index]; ok {
			tr.HeldByTID = &tid
		} else if w.HeldBy != 0 {
			tid := w.HeldBy
			tr.HeldByTID = &tid
		}
	}
	for _, l := range t.Locks {
		if l.Kind == LockWaitingOn || l.Kind == LockSleepingOn {
			obj := l.Object
			tr.WaitingOn = &obj
			break
		}
	}
	return tr
}

func frameReport(f Frame) FrameReport {
	fr := FrameReport{Kind: f.Kind.String(), Text: f.String()}
	switch f.Kind {
	case FrameJava:
		fr.Class, fr.Method, fr.File, fr.NativeMethod = f.Class, f.Method, f.File(), f.IsNativeMethod()
		if n, ok := f.Line(); ok {
			fr.Line = &n
		}
	case FrameNative:
		idx := f.Index
		fr.Index, fr.PC, fr.Library, fr.Symbol, fr.BuildID = &idx, f.PC, f.Library(), f.Symbol(), f.BuildID()
	}
	return fr
}

func edgeReport(p *Process, e LockEdge) LockEdgeReport {
	t := p.Threads[e.Waiter]
	r := LockEdgeReport{TID: t.TID, Name: t.Name, WaitingToLock: e.Lock.Object, LockType: e.Lock.Type, HeldByTID: e.HeldBy, OwnerFromLocked: e.OwnerFromLocked}
	if e.Lock.UnknownObject {
		r.WaitingToLock = "an unknown object"
	}
	if e.Owner >= 0 {
		r.HeldByName = p.Threads[e.Owner].Name
	} else {
		r.HeldByName = e.Lock.HeldByName
	}
	if e.Lock.Frame >= 0 && e.Lock.Frame < len(t.Frames) {
		r.Frame = t.Frames[e.Lock.Frame].String()
	}
	return r
}
