// Package headless turns the monitor's model into the JSON that ddmtui's
// scriptable commands print (`ddmtui list --json`, `ddmtui snapshot --json`).
// Keys are snake_case and documented in the README; VM-supplied strings are
// left as data for the JSON encoder to escape.
package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/heap"
	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/viewtree"
)

// ViewsEntry is `ddmtui views --json`: one VM's windows and their trees.
type ViewsEntry struct {
	PID     int                   `json:"pid"`
	Windows []viewtree.JSONWindow `json:"windows"`
}

// Views is a VM's windows in `snapshot --json --views`: their trees, the
// views counted over every window, or why there are none.
type Views struct {
	ViewCount int                   `json:"view_count"`
	Windows   []viewtree.JSONWindow `json:"windows"`
	Error     string                `json:"error,omitempty"`
}

// NewViews is a Views from dumped windows, or the error that left none.
func NewViews(windows []viewtree.JSONWindow, err error) *Views {
	v := &Views{Windows: windows}
	if v.Windows == nil {
		v.Windows = []viewtree.JSONWindow{}
	}
	if err != nil {
		v.Error = err.Error()
	}
	for _, w := range windows {
		v.ViewCount += w.ViewCount
	}
	return v
}

// ViewsOf is a VM's latest dumps as the model keeps them (a replay's).
func ViewsOf(vm monitor.VM) *Views {
	var ws []viewtree.JSONWindow
	for _, d := range vm.Views {
		var err error
		if d.Err != "" {
			err = fmt.Errorf("%s", d.Err)
		}
		ws = append(ws, viewtree.JSONWindowOf(d.Window, d.Tree, err))
	}
	return NewViews(ws, nil)
}

// ListEntry is one VM in `ddmtui list --json`.
type ListEntry struct {
	Source string `json:"source"`
	PID    int    `json:"pid"`
	App    string `json:"app"`
	VM     string `json:"vm"`
	DDM    bool   `json:"ddm"`
	// Debuggable: the process has JDWP; Profileable: the device's
	// track-app lists it as profileable (Android 12+). A profileable
	// process that is not debuggable has "ddm": false and no debug_port.
	Debuggable  bool   `json:"debuggable"`
	Profileable bool   `json:"profileable"`
	Debugger    string `json:"debugger"`
	// DebugPort is the VM's debugger port (0: none yet); absent for a
	// process without JDWP.
	DebugPort *int `json:"debug_port,omitempty"`
	// Architecture ("arm64", "x86_64"…) and UID (the app's Linux uid) come
	// from track-app (Android 15 for the uid); UserID from HELO or
	// track-app. Absent where not known.
	Architecture string `json:"architecture,omitempty"`
	UID          *int   `json:"uid,omitempty"`
	UserID       *int   `json:"user_id,omitempty"`
	// Error says why the endpoint is not a working VM (not JDWP, a bad
	// packet length, HELO unanswered); absent for a working VM.
	Error string `json:"error,omitempty"`
}

// SnapshotEntry is one VM in `ddmtui snapshot --json`.
type SnapshotEntry struct {
	ListEntry
	Family   string   `json:"family,omitempty"`
	UserID   int      `json:"user_id"`
	ABI      string   `json:"abi,omitempty"`
	Package  string   `json:"package,omitempty"`
	Features []string `json:"features"`
	Threads  []Thread `json:"threads"`
	Heaps    []Heap   `json:"heaps"`
	// Warning is the last non-fatal problem with a working VM (a malformed
	// chunk, THST unanswered).
	Warning string `json:"warning,omitempty"`
	// TooManyThreads: the thread table reached its cap; newer threads are
	// not listed.
	TooManyThreads bool `json:"too_many_threads,omitempty"`
	// API is the device's API level, 0 for local ports or when unknown.
	API int `json:"api"`
	// Model is the device's model (ro.product.model), absent for local
	// ports or when unknown.
	Model string `json:"model,omitempty"`
	// Capabilities names the source of every feature; CapabilityReasons
	// says in one line why a feature has none.
	Capabilities      map[string]string `json:"capabilities"`
	CapabilityReasons map[string]string `json:"capability_reasons,omitempty"`
	Memory            *Memory           `json:"memory,omitempty"`
	// Views are the VM's windows and view trees, only with --views.
	Views *Views `json:"views,omitempty"`
}

// Thread is one thread in a snapshot. Threads from /proc carry no status
// (there is no VM status number) but their kernel state letter.
type Thread struct {
	ID         uint64   `json:"id"`
	Name       string   `json:"name"`
	Status     int      `json:"status"` // left out for threads from /proc (MarshalJSON)
	State      string   `json:"state"`
	SysTID     int      `json:"systid"`
	UTime      int      `json:"utime"`
	STime      int      `json:"stime"`
	Daemon     bool     `json:"daemon"`
	Source     string   `json:"source"`
	CPUPercent *float64 `json:"cpu_percent,omitempty"`
	ProcState  string   `json:"proc_state,omitempty"`
}

// Heap is one heap in a snapshot.
type Heap struct {
	ID             int             `json:"id"`
	MaxBytes       uint64          `json:"max_bytes"`
	SizeBytes      uint64          `json:"size_bytes"`
	AllocatedBytes uint64          `json:"allocated_bytes"`
	Objects        uint64          `json:"objects"`
	GCCount        int             `json:"gc_count"`
	Segments       *SegmentSummary `json:"segments,omitempty"`
}

// SegmentSummary counts allocation units of the last HPSG set.
type SegmentSummary struct {
	UnitSize        int               `json:"unit_size"`
	TotalUnits      uint64            `json:"total_units"`
	Segments        int               `json:"segments"`
	UnitsByKind     map[string]uint64 `json:"units_by_kind"`
	UnitsBySolidity map[string]uint64 `json:"units_by_solidity"`
}

// List converts VMs to list entries.
func List(vms []monitor.VM) []ListEntry {
	out := make([]ListEntry, 0, len(vms))
	for _, vm := range vms {
		out = append(out, listEntry(vm))
	}
	return out
}

func listEntry(vm monitor.VM) ListEntry {
	e := ListEntry{Source: vm.Source, PID: vm.PID, App: vm.App, VM: vm.VMIdent, DDM: vm.DDM,
		Debuggable: vm.Debuggable, Profileable: vm.Profileable, Debugger: string(vm.Debugger), Architecture: vm.Architecture}
	if !vm.ProcessOnly() {
		port := vm.DebugPort
		e.DebugPort = &port
	}
	if vm.UIDKnown {
		uid := vm.UID
		e.UID = &uid
	}
	if vm.UserIDKnown {
		u := vm.UserID
		e.UserID = &u
	}
	return e
}

// Keep says which entries a headless command shows: every tracked process
// (the default), or the debuggable ones only (--processes debuggable).
type Keep func(monitor.VM) bool

// ParseProcesses reads the --processes value: "all" or "debuggable".
func ParseProcesses(s string) (Keep, error) {
	switch s {
	case "", "all":
		return func(monitor.VM) bool { return true }, nil
	case "debuggable":
		return func(vm monitor.VM) bool { return !vm.ProcessOnly() }, nil
	}
	return nil, fmt.Errorf("processes %q: want all or debuggable", s)
}

// ListFound converts the engine's view to list entries: working VMs, and
// failed endpoints with their error.
func ListFound(found []monitor.Found) []ListEntry {
	out := make([]ListEntry, 0, len(found))
	for _, f := range found {
		e := listEntry(f.VM)
		e.Error = f.Failed
		out = append(out, e)
	}
	return out
}

// SnapshotFound converts the engine's view to snapshot entries: working VMs,
// and failed endpoints with their error.
func SnapshotFound(found []monitor.Found) []SnapshotEntry {
	out := make([]SnapshotEntry, 0, len(found))
	for _, f := range found {
		e := Snapshot([]monitor.VM{f.VM})[0]
		e.Error = f.Failed
		if e.Warning == f.Failed {
			e.Warning = ""
		}
		out = append(out, e)
	}
	return out
}

// Snapshot converts VMs to snapshot entries.
func Snapshot(vms []monitor.VM) []SnapshotEntry {
	out := make([]SnapshotEntry, 0, len(vms))
	for _, vm := range vms {
		e := SnapshotEntry{ListEntry: listEntry(vm), Family: vm.Family, UserID: vm.UserID, ABI: vm.ABI,
			Package: vm.Package, Features: append([]string{}, vm.Features...), Threads: []Thread{}, Heaps: []Heap{}, Warning: vm.Err,
			TooManyThreads: vm.TooManyThreads}
		e.API, e.Model = vm.API, vm.Model
		e.Capabilities, e.CapabilityReasons = capabilities(vm.Capabilities)
		e.Memory = NewMemory(vm.Memory)
		for _, t := range vm.Threads {
			e.Threads = append(e.Threads, NewThread(t))
		}
		for _, h := range vm.Heaps {
			jh := Heap{ID: h.ID, MaxBytes: h.MaxBytes, SizeBytes: h.SizeBytes, AllocatedBytes: h.AllocatedBytes,
				Objects: h.Objects, GCCount: h.GCCount}
			if s := h.Segments; s != nil {
				jh.Segments = &SegmentSummary{UnitSize: s.UnitSize, TotalUnits: s.TotalUnits, Segments: s.Segments,
					UnitsByKind: UnitsByKind(s.UnitsByKind), UnitsBySolidity: UnitsBySolidity(s.UnitsBySolid)}
			}
			e.Heaps = append(e.Heaps, jh)
		}
		out = append(out, e)
	}
	return out
}

// WriteJSON writes v as indented JSON followed by a newline: the one JSON
// document writer of the commands. <, > and & stay as they are (method
// names such as <init> and generic types read as written); encoding/json
// still escapes what JSON requires, and safetext.JSON the C1 and
// bidirectional controls it leaves raw.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(safetext.JSON(w))
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteListText prints entries as an aligned table for people; VM strings
// are escaped so they cannot drive the terminal. Failed endpoints follow
// the table, one line each with their error.
func WriteListText(w io.Writer, entries []ListEntry) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tPID\tAPP\tVM\tDDM\tDEBUGGER\tPORT")
	var failed []ListEntry
	for _, e := range entries {
		if e.Error != "" {
			failed = append(failed, e)
			continue
		}
		port := "-"
		if e.DebugPort != nil && *e.DebugPort != 0 {
			port = fmt.Sprint(*e.DebugPort)
		}
		vm := safetext.Terminal(e.VM)
		if e.Profileable && !e.Debuggable {
			vm = "profileable, no JDWP"
		}
		ddm := "no" // as the dashboard's DDM column says it
		if e.DDM {
			ddm = "yes"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\n", safetext.Terminal(e.Source), e.PID, safetext.Terminal(e.App),
			vm, ddm, e.Debugger, port)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, e := range failed {
		src := safetext.Terminal(e.Source)
		if e.PID != 0 {
			src += fmt.Sprintf(" pid %d", e.PID)
		}
		if _, err := fmt.Fprintf(w, "failed: %s: %s\n", src, safetext.Terminal(e.Error)); err != nil {
			return err
		}
	}
	return nil
}

// UnitsByKind names the non-zero counts of an array indexed by ddm.Kind.
func UnitsByKind(units [8]uint64) map[string]uint64 {
	m := map[string]uint64{}
	for k, n := range units {
		if n > 0 {
			m[ddm.Kind(k).String()] = n
		}
	}
	return m
}

// UnitsBySolidity names the non-zero counts of an array indexed by
// ddm.Solidity.
func UnitsBySolidity(units [8]uint64) map[string]uint64 {
	m := map[string]uint64{}
	for k, n := range units {
		if n > 0 {
			m[ddm.Solidity(k).String()] = n
		}
	}
	return m
}

// HeapMap is `ddmtui heap --json`: the segment summary of one heap map.
type HeapMap struct {
	PID             int               `json:"pid"`
	App             string            `json:"app"`
	Heap            string            `json:"heap"` // "managed" or "native"
	Type            string            `json:"type"` // HPSG, HPSO or NHSG
	UnitSize        int               `json:"unit_size"`
	TotalUnits      uint64            `json:"total_units"`
	Segments        int               `json:"segments"`
	UsedBytes       uint64            `json:"used_bytes"`
	FreeBytes       uint64            `json:"free_bytes"`
	FreeRuns        uint64            `json:"free_runs"`
	LargestFree     uint64            `json:"largest_free_bytes"`
	Fragmentation   float64           `json:"fragmentation"`
	UnitsByKind     map[string]uint64 `json:"units_by_kind"`
	UnitsBySolidity map[string]uint64 `json:"units_by_solidity"`
	Histogram       []SizeBucket      `json:"object_sizes,omitempty"` // HPSO: one run per object
}

// SizeBucket is one bucket of the object-size histogram.
type SizeBucket struct {
	MinBytes uint64 `json:"min_bytes"`
	MaxBytes uint64 `json:"max_bytes"`
	Count    uint64 `json:"count"`
	Bytes    uint64 `json:"bytes"`
}

// NewHeapMap summarises one heap map of vm ("managed" or "native").
func NewHeapMap(vm monitor.VM, which string, snap *heap.Snapshot) HeapMap {
	st := snap.Stats
	unit := uint64(st.UnitSize)
	r := HeapMap{PID: vm.PID, App: vm.App, Heap: which, Type: snap.Type.String(), UnitSize: st.UnitSize,
		TotalUnits: st.TotalUnits, Segments: st.Segments, UsedBytes: st.UsedUnits() * unit, FreeBytes: st.FreeUnits() * unit,
		FreeRuns: st.FreeRuns, LargestFree: st.LargestFree * unit, Fragmentation: st.Fragmentation(),
		UnitsByKind: UnitsByKind(st.UnitsByKind), UnitsBySolidity: UnitsBySolidity(st.UnitsBySolid)}
	if snap.Type == ddm.TypeHPSO {
		for _, b := range snap.SizeHistogram() {
			r.Histogram = append(r.Histogram, SizeBucket{b.MinBytes, b.MaxBytes, b.Count, b.Bytes})
		}
	}
	return r
}
