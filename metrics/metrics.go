// Package metrics exports what the monitor knows as Prometheus metrics, for
// device farms: a Collector reads the engine's model at scrape time (so a VM
// that went away has no series left: cardinality follows the live VMs), and
// Serve answers scrapes over HTTP in the Prometheus text and OpenMetrics
// formats.
//
// Names follow Prometheus's conventions: the ddmtui_ prefix, base units
// (_bytes, _seconds), _total for counters. Per-VM series carry the labels
// host (the machine ddmtui runs on), serial (the device serial, or the local
// port's source such as "local:8000"), pid and app.
package metrics

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ddmtui/ddmtui/internal/safetext"
	"github.com/ddmtui/ddmtui/monitor"
)

// Model is what the collector reads: the engine (its store and counters).
type Model interface {
	Store() *monitor.Store
	Stats() monitor.EngineStats
}

var vmLabels = []string{"host", "serial", "pid", "app"}

func desc(name, help string, extra ...string) *prometheus.Desc {
	return prometheus.NewDesc("ddmtui_"+name, help, append(append([]string(nil), vmLabels...), extra...), nil)
}

// Collector is a prometheus.Collector over a Model.
type Collector struct {
	model Model
	host  string
	now   func() time.Time
	// Keep, when set, says which VMs have series (serve --processes);
	// nil: all.
	Keep func(monitor.VM) bool

	vmInfo, threads, threadCPU, inState   *prometheus.Desc
	heapMax, heapSize, heapAlloc, heapObj *prometheus.Desc
	gcs, memory                           *prometheus.Desc
	deviceVMs, vms                        *prometheus.Desc
	sessions, reopens, decodeErrs, bytes  *prometheus.Desc
	memBudget, memDrops, memDropped       *prometheus.Desc
}

// NewCollector returns a collector over m; host labels every VM series
// (typically os.Hostname()).
func NewCollector(m Model, host string) *Collector {
	return &Collector{
		model: m, host: host, now: time.Now,
		vmInfo: desc("vm_info", "A monitored VM (value 1), with its VM kind, whether it speaks DDM, and whether it is debuggable (has JDWP) and profileable (track-app, Android 12+).",
			"family", "ddm", "debuggable", "profileable"),
		threads:    desc("vm_threads", "Threads of the VM by state.", "state"),
		inState:    desc("vm_thread_longest_in_state_seconds", "How long the VM's longest-standing thread in each state has been in it (since ddmtui saw it change).", "state"),
		threadCPU:  desc("vm_threads_cpu_seconds", "CPU time (user + system) of the VM's live threads, from THST or /proc; threads that ended no longer count."),
		heapMax:    desc("vm_heap_max_bytes", "Largest size the VM heap may grow to (HPIF).", "heap"),
		heapSize:   desc("vm_heap_size_bytes", "Current VM heap size (HPIF).", "heap"),
		heapAlloc:  desc("vm_heap_allocated_bytes", "Bytes allocated in the VM heap (HPIF).", "heap"),
		heapObj:    desc("vm_heap_objects", "Objects allocated in the VM heap (HPIF).", "heap"),
		memory:     desc("vm_memory_bytes", "Process memory from dumpsys meminfo: total_pss, java_heap, native_heap (App Summary, PSS) and total_rss, where the device prints them.", "kind"),
		gcs:        desc("vm_gcs_observed_total", "Garbage collections reported (HPIF at GC) since ddmtui connected to the VM.", "heap"),
		deviceVMs:  prometheus.NewDesc("ddmtui_device_vms", "VMs monitored per device (serial) or local source.", []string{"host", "serial"}, nil),
		vms:        prometheus.NewDesc("ddmtui_vms", "VMs monitored.", []string{"host"}, nil),
		sessions:   prometheus.NewDesc("ddmtui_sessions_total", "VM sessions started.", []string{"host"}, nil),
		reopens:    prometheus.NewDesc("ddmtui_session_reopens_total", "Sessions started for a VM seen before (re-opens after a debugger left, reconnects).", []string{"host"}, nil),
		decodeErrs: prometheus.NewDesc("ddmtui_decode_errors_total", "Malformed chunks dropped (the session went on).", []string{"host"}, nil),
		bytes:      prometheus.NewDesc("ddmtui_read_bytes_total", "Bytes read from VM connections.", []string{"host"}, nil),
		memBudget: prometheus.NewDesc("ddmtui_memory_budget_bytes", "The process-wide memory budget (--memory-budget): the bytes peers and files make ddmtui hold now (used), its most (peak) and the limit (0: none).",
			[]string{"host", "kind"}, nil),
		memDrops:   prometheus.NewDesc("ddmtui_memory_budget_drops_total", "Things dropped to make room when the memory budget was spent (oldest log entries, heap maps, decoded pictures).", []string{"host"}, nil),
		memDropped: prometheus.NewDesc("ddmtui_memory_budget_dropped_bytes_total", "Bytes given back by the drops of ddmtui_memory_budget_drops_total.", []string{"host"}, nil),
	}
}

// Describe sends every metric description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.vmInfo, c.threads, c.inState, c.threadCPU, c.heapMax, c.heapSize, c.heapAlloc, c.heapObj,
		c.gcs, c.memory, c.deviceVMs, c.vms, c.sessions, c.reopens, c.decodeErrs, c.bytes, c.memBudget, c.memDrops, c.memDropped} {
		ch <- d
	}
}

// clockTicksPerSecond is USER_HZ: THST and /proc report thread CPU times in
// these ticks.
const clockTicksPerSecond = 100

// Serial is a VM's serial label: the device serial of an adb VM ("adb:SERIAL"
// source), otherwise the source itself ("local:8000").
func Serial(vm monitor.VM) string {
	if s, ok := strings.CutPrefix(vm.Source, "adb:"); ok {
		return s
	}
	if vm.Source == "" {
		return vm.Key
	}
	return vm.Source
}

// LabelValue makes s a valid and harmless Prometheus label value: label
// values must be UTF-8, and a device serial, an app name or a thread state
// comes from a device or a VM, which may send any bytes. A backslash is
// doubled, so that an escape can never be forged by the text; then, as
// safetext.Terminal writes them, each byte that is not part of valid UTF-8
// becomes \xNN (distinct serials stay distinct) and each control character
// (ESC of an OSC or CSI sequence, C1, the bidirectional overrides) \xNN or
// \uNNNN, so a scrape shown on a terminal (curl, a log) cannot drive it.
func LabelValue(s string) string {
	return safetext.Terminal(strings.ReplaceAll(s, `\`, `\\`))
}

// send sends one series. A series whose labels the client library refuses
// is left out of this scrape rather than panicking the exporter (the label
// values are made valid by LabelValue, so this is a last resort).
func send(ch chan<- prometheus.Metric, d *prometheus.Desc, t prometheus.ValueType, v float64, labels ...string) {
	m, err := prometheus.NewConstMetric(d, t, v, labels...)
	if err != nil {
		return
	}
	ch <- m
}

// Collect reads the model once and sends every series.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	vms := c.model.Store().VMs()
	now := c.now()
	host := LabelValue(c.host)
	perDevice := map[string]int{}
	seen := map[string]bool{} // label sets already sent: two VMs must never collide
	for _, vm := range vms {
		if c.Keep != nil && !c.Keep(vm) {
			continue
		}
		serial := LabelValue(Serial(vm))
		pid := strconv.Itoa(vm.PID)
		id := serial + "\x00" + pid
		if seen[id] {
			continue
		}
		seen[id] = true
		perDevice[serial]++
		l := []string{host, serial, pid, LabelValue(vm.App)}
		gauge := func(d *prometheus.Desc, v float64, extra ...string) {
			send(ch, d, prometheus.GaugeValue, v, append(l[:4:4], extra...)...)
		}
		gauge(c.vmInfo, 1, LabelValue(vm.Family), strconv.FormatBool(vm.DDM), strconv.FormatBool(vm.Debuggable), strconv.FormatBool(vm.Profileable))

		byState := map[string]int{}
		since := map[string]time.Time{} // earliest change among the threads in each state
		var ticks int
		for _, t := range vm.Threads {
			state := LabelValue(t.State)
			if state == "" {
				state = "unknown"
			}
			byState[state]++
			ticks += t.UTime + t.STime
			if s, ok := since[state]; !t.Changed.IsZero() && (!ok || t.Changed.Before(s)) {
				since[state] = t.Changed
			}
		}
		states := make([]string, 0, len(byState))
		for s := range byState {
			states = append(states, s)
		}
		sort.Strings(states)
		for _, s := range states {
			gauge(c.threads, float64(byState[s]), s)
			if at, ok := since[s]; ok {
				gauge(c.inState, max(0, now.Sub(at).Seconds()), s)
			}
		}
		if len(vm.Threads) > 0 {
			gauge(c.threadCPU, float64(ticks)/clockTicksPerSecond)
		}
		for _, h := range vm.Heaps {
			id := strconv.Itoa(h.ID)
			gauge(c.heapMax, float64(h.MaxBytes), id)
			gauge(c.heapSize, float64(h.SizeBytes), id)
			gauge(c.heapAlloc, float64(h.AllocatedBytes), id)
			gauge(c.heapObj, float64(h.Objects), id)
			send(ch, c.gcs, prometheus.CounterValue, float64(h.GCCount), append(l[:4:4], id)...)
		}
		if m := vm.Memory; m != nil {
			for _, kv := range []struct {
				kind string
				kb   *int64
			}{{"total_pss", m.Info.TotalPSS}, {"java_heap", m.Info.JavaHeap}, {"native_heap", m.Info.NativeHeap}, {"total_rss", m.Info.TotalRSS}} {
				if kv.kb != nil {
					gauge(c.memory, float64(*kv.kb)*1024, kv.kind)
				}
			}
		}
	}
	serials := make([]string, 0, len(perDevice))
	for s := range perDevice {
		serials = append(serials, s)
	}
	sort.Strings(serials)
	for _, s := range serials {
		send(ch, c.deviceVMs, prometheus.GaugeValue, float64(perDevice[s]), host, s)
	}
	send(ch, c.vms, prometheus.GaugeValue, float64(len(seen)), host)
	st := c.model.Stats()
	send(ch, c.sessions, prometheus.CounterValue, float64(st.Sessions), host)
	send(ch, c.reopens, prometheus.CounterValue, float64(st.Reopens), host)
	send(ch, c.decodeErrs, prometheus.CounterValue, float64(st.DecodeErrors), host)
	send(ch, c.bytes, prometheus.CounterValue, float64(st.BytesRead), host)
	for _, kv := range []struct {
		kind string
		n    int64
	}{{"used", st.Memory.Used}, {"peak", st.Memory.Peak}, {"limit", st.Memory.Limit}} {
		send(ch, c.memBudget, prometheus.GaugeValue, float64(kv.n), host, kv.kind)
	}
	send(ch, c.memDrops, prometheus.CounterValue, float64(st.Memory.Drops), host)
	send(ch, c.memDropped, prometheus.CounterValue, float64(st.Memory.DroppedBytes), host)
}
