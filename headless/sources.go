package headless

import (
	"encoding/json"
	"math"

	"github.com/ddmtui/ddmtui/android/meminfo"
	"github.com/ddmtui/ddmtui/monitor"
)

// NewThread is the snapshot form of a thread. Threads from /proc carry no
// status number; CPU% is absent on a thread's first sample.
func NewThread(t monitor.Thread) Thread {
	jt := Thread{ID: t.ID, Name: t.Name, State: t.State, SysTID: t.SysTID, UTime: t.UTime, STime: t.STime,
		Daemon: t.Daemon, Source: string(t.Source), ProcState: t.ProcState}
	if jt.Source == "" {
		jt.Source = string(monitor.SourceDDM)
	}
	if t.Source != monitor.SourceProc {
		jt.Status = t.Status
	}
	if t.CPUKnown {
		c := math.Round(t.CPUPercent*10) / 10
		jt.CPUPercent = &c
	}
	return jt
}

func capabilities(c monitor.Capabilities) (map[string]string, map[string]string) {
	src := map[string]string{}
	var why map[string]string
	for _, f := range monitor.AllFeatures {
		cp, ok := c[f]
		if !ok {
			continue
		}
		src[string(f)] = string(cp.Source)
		if cp.Reason != "" {
			if why == nil {
				why = map[string]string{}
			}
			why[string(f)] = cp.Reason
		}
	}
	return src, why
}

// Memory is a VM's process memory (dumpsys meminfo) in KiB; a key is
// absent when the device's Android version does not print that value.
type Memory struct {
	TotalPSS        *int64           `json:"total_pss_kb,omitempty"`
	TotalRSS        *int64           `json:"total_rss_kb,omitempty"`
	TotalSwapPSS    *int64           `json:"total_swap_pss_kb,omitempty"`
	TotalSwap       *int64           `json:"total_swap_kb,omitempty"`
	JavaHeap        *int64           `json:"java_heap_kb,omitempty"`
	NativeHeap      *int64           `json:"native_heap_kb,omitempty"`
	Code            *int64           `json:"code_kb,omitempty"`
	Stack           *int64           `json:"stack_kb,omitempty"`
	Graphics        *int64           `json:"graphics_kb,omitempty"`
	PrivateOther    *int64           `json:"private_other_kb,omitempty"`
	System          *int64           `json:"system_kb,omitempty"`
	DalvikHeapSize  *int64           `json:"dalvik_heap_size_kb,omitempty"`
	DalvikHeapAlloc *int64           `json:"dalvik_heap_alloc_kb,omitempty"`
	DalvikHeapFree  *int64           `json:"dalvik_heap_free_kb,omitempty"`
	NativeHeapSize  *int64           `json:"native_heap_size_kb,omitempty"`
	NativeHeapAlloc *int64           `json:"native_heap_alloc_kb,omitempty"`
	NativeHeapFree  *int64           `json:"native_heap_free_kb,omitempty"`
	Objects         map[string]int64 `json:"objects,omitempty"`
}

// NewMemory is the JSON form of a VM's memory, nil when none was read.
func NewMemory(m *monitor.Memory) *Memory {
	if m == nil {
		return nil
	}
	return MemoryFromInfo(m.Info)
}

// MemoryFromInfo is the JSON form of one dumpsys meminfo reading.
func MemoryFromInfo(i meminfo.MemInfo) *Memory {
	return &Memory{TotalPSS: i.TotalPSS, TotalRSS: i.TotalRSS, TotalSwapPSS: i.TotalSwapPSS, TotalSwap: i.TotalSwap,
		JavaHeap: i.JavaHeap, NativeHeap: i.NativeHeap, Code: i.Code, Stack: i.Stack, Graphics: i.Graphics,
		PrivateOther: i.PrivateOther, System: i.System,
		DalvikHeapSize: i.DalvikHeapSize, DalvikHeapAlloc: i.DalvikHeapAlloc, DalvikHeapFree: i.DalvikHeapFree,
		NativeHeapSize: i.NativeHeapSize, NativeHeapAlloc: i.NativeHeapAlloc, NativeHeapFree: i.NativeHeapFree,
		Objects: i.Objects}
}

// MarshalJSON leaves "status" and "daemon" out of threads from /proc: the kernel's
// state letter (proc_state) is all there is.
func (t Thread) MarshalJSON() ([]byte, error) {
	type plain Thread
	if t.Source != string(monitor.SourceProc) {
		return json.Marshal(plain(t))
	}
	// /proc knows no VM status nor whether a thread is a daemon: both
	// are left out rather than said false.
	return json.Marshal(struct {
		plain
		Status *int  `json:"status,omitempty"`
		Daemon *bool `json:"daemon,omitempty"`
	}{plain: plain(t)})
}
