package metrics

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/ddmtui/ddmtui/android/meminfo"
	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// model is a store with hand-set counters.
type model struct {
	store *monitor.Store
	stats monitor.EngineStats
}

func (m *model) Store() *monitor.Store      { return m.store }
func (m *model) Stats() monitor.EngineStats { return m.stats }

func newModel() *model { return &model{store: monitor.NewStore(monitor.NewBus())} }

func (m *model) addVM(key, source string, pid int, app string, threads []monitor.Thread, heaps []monitor.Heap) {
	m.store.UpdateVM(key, func(vm *monitor.VM) {
		vm.Source, vm.PID, vm.App, vm.Family, vm.DDM, vm.Debuggable = source, pid, app, "art", true, true
	})
	m.store.SetThreads(key, threads)
	m.store.SetHeaps(key, heaps)
}

const wantExposition = `
# HELP ddmtui_decode_errors_total Malformed chunks dropped (the session went on).
# TYPE ddmtui_decode_errors_total counter
ddmtui_decode_errors_total{host="h1"} 2
# HELP ddmtui_device_vms VMs monitored per device (serial) or local source.
# TYPE ddmtui_device_vms gauge
ddmtui_device_vms{host="h1",serial="emulator-5554"} 2
ddmtui_device_vms{host="h1",serial="local:8000"} 1
# HELP ddmtui_memory_budget_bytes The process-wide memory budget (--memory-budget): the bytes peers and files make ddmtui hold now (used), its most (peak) and the limit (0: none).
# TYPE ddmtui_memory_budget_bytes gauge
ddmtui_memory_budget_bytes{host="h1",kind="limit"} 2.68435456e+08
ddmtui_memory_budget_bytes{host="h1",kind="peak"} 2.68435456e+08
ddmtui_memory_budget_bytes{host="h1",kind="used"} 1.2582912e+07
# HELP ddmtui_memory_budget_dropped_bytes_total Bytes given back by the drops of ddmtui_memory_budget_drops_total.
# TYPE ddmtui_memory_budget_dropped_bytes_total counter
ddmtui_memory_budget_dropped_bytes_total{host="h1"} 3.145728e+06
# HELP ddmtui_memory_budget_drops_total Things dropped to make room when the memory budget was spent (oldest log entries, heap maps, decoded pictures).
# TYPE ddmtui_memory_budget_drops_total counter
ddmtui_memory_budget_drops_total{host="h1"} 2
# HELP ddmtui_read_bytes_total Bytes read from VM connections.
# TYPE ddmtui_read_bytes_total counter
ddmtui_read_bytes_total{host="h1"} 4096
# HELP ddmtui_session_reopens_total Sessions started for a VM seen before (re-opens after a debugger left, reconnects).
# TYPE ddmtui_session_reopens_total counter
ddmtui_session_reopens_total{host="h1"} 1
# HELP ddmtui_sessions_total VM sessions started.
# TYPE ddmtui_sessions_total counter
ddmtui_sessions_total{host="h1"} 4
# HELP ddmtui_vm_gcs_observed_total Garbage collections reported (HPIF at GC) since ddmtui connected to the VM.
# TYPE ddmtui_vm_gcs_observed_total counter
ddmtui_vm_gcs_observed_total{app="com.example.a",heap="1",host="h1",pid="101",serial="emulator-5554"} 3
# HELP ddmtui_vm_heap_allocated_bytes Bytes allocated in the VM heap (HPIF).
# TYPE ddmtui_vm_heap_allocated_bytes gauge
ddmtui_vm_heap_allocated_bytes{app="com.example.a",heap="1",host="h1",pid="101",serial="emulator-5554"} 1000
# HELP ddmtui_vm_heap_max_bytes Largest size the VM heap may grow to (HPIF).
# TYPE ddmtui_vm_heap_max_bytes gauge
ddmtui_vm_heap_max_bytes{app="com.example.a",heap="1",host="h1",pid="101",serial="emulator-5554"} 268435456
# HELP ddmtui_vm_heap_objects Objects allocated in the VM heap (HPIF).
# TYPE ddmtui_vm_heap_objects gauge
ddmtui_vm_heap_objects{app="com.example.a",heap="1",host="h1",pid="101",serial="emulator-5554"} 12
# HELP ddmtui_vm_heap_size_bytes Current VM heap size (HPIF).
# TYPE ddmtui_vm_heap_size_bytes gauge
ddmtui_vm_heap_size_bytes{app="com.example.a",heap="1",host="h1",pid="101",serial="emulator-5554"} 4096
# HELP ddmtui_vm_info A monitored VM (value 1), with its VM kind, whether it speaks DDM, and whether it is debuggable (has JDWP) and profileable (track-app, Android 12+).
# TYPE ddmtui_vm_info gauge
ddmtui_vm_info{app="",ddm="true",debuggable="true",family="art",host="h1",pid="0",profileable="false",serial="local:8000"} 1
ddmtui_vm_info{app="com.example.a",ddm="true",debuggable="true",family="art",host="h1",pid="101",profileable="false",serial="emulator-5554"} 1
ddmtui_vm_info{app="com.example.b",ddm="true",debuggable="true",family="art",host="h1",pid="102",profileable="false",serial="emulator-5554"} 1
# HELP ddmtui_vm_memory_bytes Process memory from dumpsys meminfo: total_pss, java_heap, native_heap (App Summary, PSS) and total_rss, where the device prints them.
# TYPE ddmtui_vm_memory_bytes gauge
ddmtui_vm_memory_bytes{app="com.example.b",host="h1",kind="java_heap",pid="102",serial="emulator-5554"} 204800
ddmtui_vm_memory_bytes{app="com.example.b",host="h1",kind="native_heap",pid="102",serial="emulator-5554"} 307200
ddmtui_vm_memory_bytes{app="com.example.b",host="h1",kind="total_pss",pid="102",serial="emulator-5554"} 1.024e+06
# HELP ddmtui_vm_thread_longest_in_state_seconds How long the VM's longest-standing thread in each state has been in it (since ddmtui saw it change).
# TYPE ddmtui_vm_thread_longest_in_state_seconds gauge
ddmtui_vm_thread_longest_in_state_seconds{app="com.example.a",host="h1",pid="101",serial="emulator-5554",state="monitor"} 400
ddmtui_vm_thread_longest_in_state_seconds{app="com.example.a",host="h1",pid="101",serial="emulator-5554",state="running"} 100
# HELP ddmtui_vm_threads Threads of the VM by state.
# TYPE ddmtui_vm_threads gauge
ddmtui_vm_threads{app="com.example.a",host="h1",pid="101",serial="emulator-5554",state="monitor"} 1
ddmtui_vm_threads{app="com.example.a",host="h1",pid="101",serial="emulator-5554",state="running"} 2
ddmtui_vm_threads{app="com.example.b",host="h1",pid="102",serial="emulator-5554",state="unknown"} 1
# HELP ddmtui_vm_threads_cpu_seconds CPU time (user + system) of the VM's live threads, from THST or /proc; threads that ended no longer count.
# TYPE ddmtui_vm_threads_cpu_seconds gauge
ddmtui_vm_threads_cpu_seconds{app="com.example.a",host="h1",pid="101",serial="emulator-5554"} 1.57
ddmtui_vm_threads_cpu_seconds{app="com.example.b",host="h1",pid="102",serial="emulator-5554"} 0
# HELP ddmtui_vms VMs monitored.
# TYPE ddmtui_vms gauge
ddmtui_vms{host="h1"} 3
`

func TestCollectorExposition(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC)
	m := newModel()
	m.addVM("adb:emulator-5554:101", "adb:emulator-5554", 101, "com.example.a",
		[]monitor.Thread{{ID: 1, State: "running", UTime: 100, STime: 20, Changed: t0.Add(-100 * time.Second)},
			{ID: 2, State: "running", UTime: 30, Changed: t0.Add(-30 * time.Second)},
			{ID: 3, State: "monitor", STime: 7, Changed: t0.Add(-400 * time.Second)}},
		[]monitor.Heap{{ID: 1, MaxBytes: 256 << 20, SizeBytes: 4096, AllocatedBytes: 1000, Objects: 12, GCCount: 3}})
	m.addVM("adb:emulator-5554:102", "adb:emulator-5554", 102, "com.example.b", []monitor.Thread{{ID: 1}}, nil)
	kb := func(v int64) *int64 { return &v }
	m.store.SetMemory("adb:emulator-5554:102", monitor.Memory{Info: meminfo.MemInfo{TotalPSS: kb(1000), JavaHeap: kb(200), NativeHeap: kb(300)}})
	m.addVM("local:8000", "local:8000", 0, "", nil, nil) // a JVM: no pid, no threads yet
	m.stats = monitor.EngineStats{Sessions: 4, Reopens: 1, DecodeErrors: 2, BytesRead: 4096,
		Memory: budget.Stats{Used: 12 << 20, Limit: 256 << 20, Peak: 256 << 20, Drops: 2, DroppedBytes: 3 << 20}}
	c := NewCollector(m, "h1")
	c.now = func() time.Time { return t0 }
	if err := testutil.CollectAndCompare(c, strings.NewReader(wantExposition)); err != nil {
		t.Fatal(err)
	}
}

// TestSeriesFollowLiveVMs: 200 VMs appearing and going leave the series
// count where it started.
func TestSeriesFollowLiveVMs(t *testing.T) {
	m := newModel()
	c := NewCollector(m, "h")
	m.addVM("local:8000", "local:8000", 1, "base", []monitor.Thread{{ID: 1, State: "running"}}, []monitor.Heap{{ID: 1}})
	base := testutil.CollectAndCount(c)
	for i := 0; i < 200; i++ {
		key := fmt.Sprintf("adb:s%d:%d", i%7, 1000+i)
		m.addVM(key, fmt.Sprintf("adb:s%d", i%7), 1000+i, fmt.Sprintf("app.%d", i),
			[]monitor.Thread{{ID: 1, State: "running"}, {ID: 2, State: "wait"}}, []monitor.Heap{{ID: 1}, {ID: 2}})
		if n := testutil.CollectAndCount(c); n <= base {
			t.Fatalf("cycle %d: %d series with a VM more, baseline %d", i, n, base)
		}
		m.store.Remove(key, "gone")
	}
	if n := testutil.CollectAndCount(c); n != base {
		t.Fatalf("%d series after churn, baseline %d", n, base)
	}
}

// TestPromtoolAcceptsExposition runs the real promtool over what the
// handler serves, in both formats.
func TestPromtoolAcceptsExposition(t *testing.T) {
	promtool := testpeer.Require(t, "promtool")
	m := newModel()
	m.addVM("adb:emulator-5554:101", "adb:emulator-5554", 101, "com.example.a",
		[]monitor.Thread{{ID: 1, State: "running", UTime: 3}}, []monitor.Heap{{ID: 1, MaxBytes: 1 << 20, SizeBytes: 1 << 19}})
	srv := httpServer(t, Handler(Registry(NewCollector(m, "h"))))
	for _, accept := range []string{"text/plain", "application/openmetrics-text; version=1.0.0"} {
		body := get(t, srv+"/metrics", accept)
		if !strings.Contains(body, `ddmtui_vm_heap_max_bytes{app="com.example.a",heap="1",host="h",pid="101",serial="emulator-5554"} 1.048576e+06`) {
			t.Fatalf("%s: heap series missing:\n%s", accept, body)
		}
		if strings.HasPrefix(accept, "application/openmetrics-text") {
			// promtool's check metrics parses the text format only.
			if !strings.HasSuffix(body, "# EOF\n") {
				t.Errorf("OpenMetrics body does not end with # EOF")
			}
			continue
		}
		cmd := exec.Command(promtool, "check", "metrics")
		cmd.Stdin = strings.NewReader(body)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s: promtool check metrics: %v\n%s", accept, err, out)
		}
	}
}

func TestListenAddrDefaultsToLoopback(t *testing.T) {
	for in, want := range map[string]string{":9464": "127.0.0.1:9464", "0.0.0.0:1": "0.0.0.0:1", "[::1]:80": "[::1]:80"} {
		if got, err := ListenAddr(in); err != nil || got != want {
			t.Errorf("ListenAddr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ListenAddr("9464"); err == nil {
		t.Error("a bare port was accepted")
	}
}

func httpServer(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

func get(t *testing.T, url, accept string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", url, resp.StatusCode, err)
	}
	return string(b)
}

// TestProfileableProcessSeries: a profileable process without JDWP is a
// VM series with debuggable="false", profileable="true"; Keep (serve
// --processes debuggable) leaves it out.
func TestProfileableProcessSeries(t *testing.T) {
	m := newModel()
	m.store.UpdateVM("adb:e/emulator-5554:16024", func(vm *monitor.VM) {
		vm.Source, vm.PID, vm.App, vm.Profileable, vm.Tracked = "adb:emulator-5554", 16024, "com.example.release", true, true
	})
	m.store.SetThreads("adb:e/emulator-5554:16024", []monitor.Thread{{ID: 16024, State: "sleeping", Source: monitor.SourceProc}})
	m.addVM("local:8000", "local:8000", 1, "base", nil, nil)
	c := NewCollector(m, "h")
	want := `
# HELP ddmtui_vm_info A monitored VM (value 1), with its VM kind, whether it speaks DDM, and whether it is debuggable (has JDWP) and profileable (track-app, Android 12+).
# TYPE ddmtui_vm_info gauge
ddmtui_vm_info{app="base",ddm="true",debuggable="true",family="art",host="h",pid="1",profileable="false",serial="local:8000"} 1
ddmtui_vm_info{app="com.example.release",ddm="false",debuggable="false",family="",host="h",pid="16024",profileable="true",serial="emulator-5554"} 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "ddmtui_vm_info"); err != nil {
		t.Fatal(err)
	}
	c.Keep = func(vm monitor.VM) bool { return !vm.ProcessOnly() }
	want = `
# HELP ddmtui_vm_info A monitored VM (value 1), with its VM kind, whether it speaks DDM, and whether it is debuggable (has JDWP) and profileable (track-app, Android 12+).
# TYPE ddmtui_vm_info gauge
ddmtui_vm_info{app="base",ddm="true",debuggable="true",family="art",host="h",pid="1",profileable="false",serial="local:8000"} 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "ddmtui_vm_info"); err != nil {
		t.Fatal(err)
	}
}
