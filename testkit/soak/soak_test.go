//go:build soak

package soak

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/internal/budget"
	"github.com/ddmtui/ddmtui/internal/memlimit"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/proxy"
	"github.com/ddmtui/ddmtui/savefile"
	"github.com/ddmtui/ddmtui/scan"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/hostile"
)

// rssBound is the peak resident set the process may reach in any phase;
// phases with a bound of their own (attack.bound) are held to it.
const rssBound = 512 << 20

// tightBound is the bound of the memory attacks of issue 30 (#9, #10, #11
// and the large packets): each, beside the three healthy VMs, within
// 256 MiB.
const tightBound = 256 << 20

// phaseTime is how long each attack lasts (SOAK_PHASE, default 8s).
func phaseTime() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("SOAK_PHASE")); err == nil && d > 0 {
		return d
	}
	return 8 * time.Second
}

// procStatus reads a "Name:   N kB" field of /proc/self/status, in bytes.
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n << 10
		}
	}
	return -1
}

// resetPeak resets VmHWM (Linux: 5 > /proc/self/clear_refs).
func resetPeak() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

type figures struct {
	name      string
	peakRSS   int64
	healthy   string  // "3/3 in 100% of samples"
	rate      float64 // the healthy VMs' heap updates (HPIF) a second, per VM
	extra     string
	assertRSS bool
}

// attack starts hostile endpoints on ports and returns their closer.
type attack struct {
	name      string
	servers   []hostile.Behaviour
	run       func(t *testing.T, r *rig, stop <-chan struct{}) string // optional extra activity; returns a note
	assertRSS bool
	bound     int64 // peak RSS bound when not rssBound
	churn     bool  // healthy VMs come and go on purpose
	// debugged: the first healthy VM is re-opened after every debugger (as
	// ddmlib does), so only the others are counted while the phase runs.
	debugged bool
}

type rig struct {
	dev     *sim.Device
	vms     []*sim.VM
	base    int
	engine  *monitor.Engine
	proxy   *proxy.Proxy
	healthy []string
	// baseRate is the healthy VMs' heap updates a second (per VM) in the
	// baseline phase: every attack must leave them at least half of it.
	baseRate float64
}

const hostilePorts = 24

func freeBase(t *testing.T, n int) int {
	for base := 41000; base < 60000; base += n + 7 {
		ok := true
		for p := base; p < base+n && ok; p++ {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				ok = false
				continue
			}
			ln.Close()
		}
		if ok {
			return base
		}
	}
	t.Fatal("no free ports")
	return 0
}

func TestSoak(t *testing.T) {
	d := phaseTime()
	// The collector's soft limit from the memory budget, as the watching
	// commands set it (cli watchMemory).
	defer memlimit.SetBase(memlimit.ForBudget(budget.Process.Limit()))()
	r := &rig{dev: sim.NewDevice("soak")}
	for _, s := range sim.Scenario(11, 3) {
		vm := sim.NewVM(s)
		r.vms = append(r.vms, vm)
		r.dev.Add(vm)
	}
	defer r.dev.Close()
	r.base = freeBase(t, 3+hostilePorts+8)
	if _, err := r.dev.ServeLocal("127.0.0.1", r.base); err != nil {
		t.Fatal(err)
	}
	for i := range r.vms {
		r.healthy = append(r.healthy, fmt.Sprintf("local:%d", r.base+i))
	}
	dctx, dcancel := context.WithCancel(context.Background())
	defer dcancel()
	go r.dev.Run(dctx, 200*time.Millisecond)

	r.engine = monitor.NewEngine(monitor.NewStore(monitor.NewBus()), monitor.SessionOptions{})
	ectx, ecancel := context.WithCancel(context.Background())
	edone := make(chan struct{})
	go func() {
		defer close(edone)
		r.engine.Run(ectx, monitor.Discovery{Local: &scan.Local{
			Ports: scan.PortRange{First: r.base, Last: r.base + 3 + hostilePorts - 1}, Interval: 500 * time.Millisecond, NotVMBackoff: 2 * time.Second}})
	}()
	r.proxy = proxy.New(r.engine, proxy.Options{BasePort: r.base + 3 + hostilePorts, SelectedPort: -1})
	pctx, pcancel := context.WithCancel(context.Background())
	pdone := make(chan struct{})
	go func() {
		defer close(pdone)
		r.proxy.Run(pctx)
	}()
	defer func() {
		pcancel()
		<-pdone
		ecancel()
		<-edone
	}()

	// Wait for the healthy VMs.
	deadline := time.Now().Add(20 * time.Second)
	for r.healthyCount() < len(r.healthy) {
		if time.Now().After(deadline) {
			t.Fatalf("healthy VMs not monitored at the start: %d of %d", r.healthyCount(), len(r.healthy))
		}
		time.Sleep(50 * time.Millisecond)
	}

	attacks := []attack{
		{name: "baseline (3 healthy VMs)", assertRSS: true},
		{name: "junk endpoints (garbage, slowloris, bad/oversize length, no HELO) x24", assertRSS: true,
			servers: repeat(hostilePorts, hostile.Garbage, hostile.Slowloris, hostile.BadLength, hostile.Oversize, hostile.NoHELO, hostile.SlowPacket(500<<20, 4<<20))},
		{name: "large packets: 12 VMs sending 30 MiB heap dumps unasked (dropped as they arrive)", assertRSS: true, bound: tightBound,
			servers: repeat(12, hostile.HelloVM(9001, bigChunks(ddm.TypeHPDS, 30<<20, 1)))},
		{name: "large packets: 12 VMs sending 30 MiB packets of two chunks (read whole, jdwp.Budget)", assertRSS: true, bound: tightBound,
			servers: repeat(12, hostile.HelloVM(9001, bigChunks(ddm.Type(0x58585858), 30<<20, 2)))},
		{name: "THCR floods: 6 VMs with endless new thread ids, 1 KiB names (thread tables charged)", assertRSS: true, bound: tightBound,
			servers: repeat(6, hostile.HelloVM(9002, thcrFlood))},
		{name: "endless heap segments: 2 VMs, HPST then HPSG at 8 MB/s, no HPEN (heap.Assembler bounds the set)", assertRSS: true, bound: tightBound,
			servers: repeat(2, hostile.HelloVM(9003, endlessSegments(8<<20)))},
		{name: "ZLIB bombs: a VM sending 16 MiB packets of 160 ZLIB chunks, each inflating to 16 MiB", assertRSS: true, bound: tightBound,
			servers: repeat(1, hostile.HelloVM(9004, zlibBombs(16<<20, 160)))},
		{name: "cycling heap maps: 4 VMs, HPST / 15,000 HPSG / HPEN without pause (heap.Budget)", assertRSS: true, bound: tightBound,
			servers: repeat(4, hostile.HelloVM(9005, cyclingMaps(15000)))},
		{name: "endless pulls: an adb server whose sync RECV never ends, 3 heap-dump saves at once (issue 30 #11)", assertRSS: true, bound: tightBound,
			run: endlessPulls},
		{name: "churn: healthy VMs leave and come back", assertRSS: true, churn: true, run: churn},
		{name: "debugger abuse: silent connections, quick attach/detach", assertRSS: true, debugged: true, run: debuggerAbuse},
	}
	var results []figures
	for _, a := range attacks {
		// SOAK_ONLY=WORD runs the baseline and the phases naming WORD.
		if only := os.Getenv("SOAK_ONLY"); only != "" && !strings.Contains(a.name, only) && !strings.HasPrefix(a.name, "baseline") {
			continue
		}
		results = append(results, r.runPhase(t, a, d))
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "\n%-92s %10s  %-24s %-12s %s\n", "phase ("+d.String()+" each)", "peak RSS", "healthy VMs", "HPIF/s/VM", "notes")
	for _, f := range results {
		fmt.Fprintf(&b, "%-92s %7.0f MiB  %-24s %-12.2f %s\n", f.name, float64(f.peakRSS)/(1<<20), f.healthy, f.rate, f.extra)
	}
	fmt.Fprintf(&b, "RSS bound %d MiB (asserted except where noted)\n", rssBound>>20)
	t.Log(b.String())
	fmt.Print(b.String())
}

func repeat(n int, bs ...hostile.Behaviour) []hostile.Behaviour {
	out := make([]hostile.Behaviour, n)
	for i := range out {
		out[i] = bs[i%len(bs)]
	}
	return out
}

func (r *rig) healthyCount() int { return r.healthyOf(r.healthy) }

func (r *rig) healthyOf(keys []string) int { return healthyIn(r.engine.View(), keys) }

// healthyIn counts the VMs of keys monitored in view.
func healthyIn(view []monitor.Found, keys []string) int {
	n := 0
	for _, f := range view {
		for _, k := range keys {
			if f.VM.Key == k && f.Failed == "" && f.VM.DDM {
				n++
			}
		}
	}
	return n
}

func (r *rig) runPhase(t *testing.T, a attack, d time.Duration) figures {
	var servers []*hostile.Server
	for i, b := range a.servers {
		s, err := hostile.Serve(fmt.Sprintf("127.0.0.1:%d", r.base+3+i), b)
		if err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
		servers = append(servers, s)
	}
	runtime.GC()
	debug.FreeOSMemory()
	resetPeak()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var note string
	if a.run != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			note = a.run(t, r, stop)
		}()
	}
	samples, full := 0, 0
	var peak int64
	watch := r.healthy
	if a.debugged {
		watch = r.healthy[1:]
	}
	// The healthy VMs' heap updates: each HPIF (a GC every second in the
	// simulator) changes the heap's Updated time.
	lastHeap := map[string]time.Time{}
	for _, f := range r.engine.View() {
		if len(f.VM.Heaps) > 0 {
			lastHeap[f.VM.Key] = f.VM.Heaps[0].Updated
		}
	}
	updates := 0
	start := time.Now()
	end := start.Add(d)
	for time.Now().Before(end) {
		time.Sleep(100 * time.Millisecond)
		if rss := procStatus("VmRSS"); rss > peak {
			peak = rss
		}
		samples++
		// One view a sample: it copies every VM, the hostile ones' thread
		// tables included, and counts in the figures.
		view := r.engine.View()
		if healthyIn(view, watch) == len(watch) {
			full++
		}
		for _, f := range view {
			if len(f.VM.Heaps) == 0 || !slices.Contains(watch, f.VM.Key) {
				continue
			}
			if u := f.VM.Heaps[0].Updated; !u.Equal(lastHeap[f.VM.Key]) {
				lastHeap[f.VM.Key] = u
				updates++
			}
		}
	}
	rate := float64(updates) / float64(len(watch)) / time.Since(start).Seconds()
	close(stop)
	wg.Wait()
	if hwm := procStatus("VmHWM"); hwm > peak {
		peak = hwm
	}
	for _, s := range servers {
		s.Close()
	}
	f := figures{name: a.name, peakRSS: peak, assertRSS: a.assertRSS, extra: note, rate: rate,
		healthy: fmt.Sprintf("%d/%d, %d%% of samples", r.healthyCount(), len(r.healthy), 100*full/max(samples, 1))}
	if !a.assertRSS {
		f.extra = strings.TrimSpace(f.extra + " (RSS not asserted)")
	}
	bound := int64(rssBound)
	if a.bound > 0 {
		bound = a.bound
		f.extra = strings.TrimSpace(fmt.Sprintf("%s (bound %d MiB)", f.extra, bound>>20))
	}
	if a.assertRSS && peak > bound {
		t.Errorf("%s: peak RSS %d MiB over the %d MiB bound", a.name, peak>>20, bound>>20)
	}
	// Healthy VMs must be monitored throughout (churn: again at the end).
	if a.churn || a.debugged {
		deadline := time.Now().Add(10 * time.Second)
		for r.healthyCount() < len(r.healthy) && time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
		}
		if r.healthyCount() < len(r.healthy) {
			t.Errorf("%s: healthy VMs not back: %d of %d", a.name, r.healthyCount(), len(r.healthy))
		}
		// The figure is the count once they are back ("at the end").
		f.healthy = fmt.Sprintf("%d/%d at the end, %d%% of samples", r.healthyCount(), len(r.healthy), 100*full/max(samples, 1))
	}
	if !a.churn && full*100 < samples*95 {
		t.Errorf("%s: healthy VMs all monitored in only %d of %d samples", a.name, full, samples)
	}
	// They keep updating at their normal rate (the baseline's).
	switch {
	case r.baseRate == 0:
		r.baseRate = rate
		if rate < 0.5 {
			t.Errorf("%s: the healthy VMs' heaps updated %.2f times a second (the simulator's GC: 1)", a.name, rate)
		}
	case !a.churn && rate < r.baseRate/2:
		t.Errorf("%s: the healthy VMs' heaps updated %.2f times a second, under half the baseline's %.2f", a.name, rate, r.baseRate)
	}
	return f
}

// bigChunks sends unasked DDM packets of n bytes, one after another, each
// of the given number of chunks of type t (one: a packet a monitor may
// divert as it arrives; more: one it must read whole). The senders of a
// phase share one body, built when the first starts and let go when the
// last stops, so that other phases do not carry it in their figures.
func bigChunks(t ddm.Type, n, chunks int) func(send func(ddm.Message) error, stop <-chan struct{}) {
	var (
		mu    sync.Mutex
		body  hostile.RawChunks
		users int
	)
	return func(send func(ddm.Message) error, stop <-chan struct{}) {
		mu.Lock()
		if users == 0 {
			body = make([]byte, 0, n)
			for range chunks {
				body = ddm.AppendChunk(body, t, make([]byte, n/chunks-ddm.ChunkHeaderLen))
			}
		}
		users++
		raw := body
		mu.Unlock()
		defer func() {
			mu.Lock()
			if users--; users == 0 {
				body = nil
			}
			mu.Unlock()
		}()
		for {
			select {
			case <-stop:
				return
			default:
			}
			if send(raw) != nil {
				return
			}
		}
	}
}

// thcrFlood sends THCR with new ids as fast as the monitor reads them.
func thcrFlood(send func(ddm.Message) error, stop <-chan struct{}) {
	// Names of the most a table keeps (monitor.MaxThreadName): six VMs'
	// tables at their cap would hold 70 MiB, past the thread tables'
	// share of the budget (monitor.DefaultThreadTableBytes).
	name := strings.Repeat("f", 1024)
	for id := uint32(1); ; id++ {
		select {
		case <-stop:
			return
		default:
		}
		if send(&ddm.ThreadCreated{ID: id, Name: name}) != nil {
			return
		}
	}
}

// endlessSegments sends HPST, then HPSG chunks at rate bytes a second.
func endlessSegments(rate int) func(send func(ddm.Message) error, stop <-chan struct{}) {
	return func(send func(ddm.Message) error, stop <-chan struct{}) {
		if send(&ddm.HeapStart{HeapID: 1}) != nil {
			return
		}
		data := bytes.Repeat([]byte{0x01, 0xFF}, 8<<10) // 8192 runs of 256 units
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		addr := uint32(0x10000000)
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			for sent := 0; sent < rate/10; sent += len(data) {
				seg := &ddm.HeapSegment{Type: ddm.TypeHPSG, HeapID: 1, UnitSize: 8, Address: addr, Units: 8192 * 256, Data: data}
				addr += 8192 * 256 * 8
				if send(seg) != nil {
					return
				}
			}
		}
	}
}

// zlibBombs sends unasked packets of n bytes holding chunks ZLIB chunks,
// each a zlib stream of its share of the packet claiming to inflate to the
// whole packet's length (issue 30 #9: they were inflated, all kept at once).
func zlibBombs(n, chunks int) func(send func(ddm.Message) error, stop <-chan struct{}) {
	// The packet is built when the phase runs, so that earlier phases do
	// not carry it in their figures.
	return func(send func(ddm.Message) error, stop <-chan struct{}) {
		var z bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&z, zlib.BestCompression)
		zw.Write(make([]byte, n))
		zw.Close()
		var body []byte
		body = binary.BigEndian.AppendUint32(body, uint32(ddm.TypeHPDS))
		body = binary.BigEndian.AppendUint32(body, uint32(n))
		body = append(body, z.Bytes()...)
		pad := max(0, n/chunks-ddm.ChunkHeaderLen-len(body)) // filler after the stream, as a bomb's packet is large
		body = append(body, make([]byte, pad)...)
		var packet []byte
		for range chunks {
			packet = ddm.AppendChunk(packet, ddm.TypeZLIB, body)
		}
		raw := hostile.RawChunks(packet)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if send(raw) != nil {
				return
			}
		}
	}
}

// cyclingMaps sends heap maps of segs HPSG chunks (each 16 KiB of usage
// data, as ART's) in a loop: HPST, the segments, HPEN, again (issue 30 #10:
// each VM held a set being built and its last map, 256 MiB each).
func cyclingMaps(segs int) func(send func(ddm.Message) error, stop <-chan struct{}) {
	return func(send func(ddm.Message) error, stop <-chan struct{}) {
		data := bytes.Repeat([]byte{0x01, 0x00, 0x00, 0x00}, 4<<10) // runs of 1 unit, used and free
		for {
			if send(&ddm.HeapStart{HeapID: 1}) != nil {
				return
			}
			addr := uint32(0x10000000)
			for range segs {
				select {
				case <-stop:
					return
				default:
				}
				seg := &ddm.HeapSegment{Type: ddm.TypeHPSG, HeapID: 1, UnitSize: 8, Address: addr, Units: 8 << 10, Data: data}
				addr += 8 << 10 * 8
				if send(seg) != nil {
					return
				}
			}
			if send(&ddm.HeapEnd{HeapID: 1}) != nil {
				return
			}
		}
	}
}

// churn removes the healthy VMs from their device and brings them back,
// again and again.
func churn(t *testing.T, r *rig, stop <-chan struct{}) string {
	cycles := 0
	for {
		select {
		case <-stop:
			return fmt.Sprintf("%d leave/return cycles", cycles)
		case <-time.After(time.Second):
		}
		vm := r.vms[cycles%len(r.vms)]
		r.dev.Remove(vm.PID())
		time.Sleep(300 * time.Millisecond)
		fresh := sim.NewVM(vm.Spec())
		r.dev.Add(fresh)
		i := cycles % len(r.vms)
		r.vms[i] = fresh
		if _, err := r.dev.ServeVM(fresh, fmt.Sprintf("127.0.0.1:%d", r.base+i)); err != nil {
			t.Errorf("churn: %v", err)
		}
		cycles++
	}
}

// debuggerAbuse holds silent connections on a VM's debugger port and
// attaches and detaches a debugger as fast as it can; each attach must get
// an answer.
func debuggerAbuse(t *testing.T, r *rig, stop <-chan struct{}) string {
	port, ok := r.proxy.Port(r.healthy[0])
	if !ok {
		t.Error("debugger abuse: no debugger port")
		return ""
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	var silent []net.Conn
	defer func() {
		for _, c := range silent {
			c.Close()
		}
	}()
	attaches, served := 0, 0
	for {
		select {
		case <-stop:
			return fmt.Sprintf("%d attaches, %d served, %d silent connections", attaches, served, len(silent))
		default:
		}
		if len(silent) < 64 {
			if c, err := net.Dial("tcp", addr); err == nil {
				silent = append(silent, c)
			}
		}
		attaches++
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		c, err := jdwp.Dial(ctx, addr, jdwp.Options{IDBase: 1})
		if err == nil {
			if _, err := c.Version(ctx); err == nil {
				served++
			}
			c.Close()
		}
		cancel()
	}
}

// endlessPulls saves heap dumps pulled from an adb server whose sync RECV
// never ends (issue 30 #11: a pull was read whole into memory, 3 GiB in
// 4.6 s), as `hprof` does with a device VM's dump: the real adb client
// streams each pull into savefile's temporary file. Two savers read as
// fast as the server sends, their pulls bounded at 256 MiB each (they end
// with "exceeds" and start again; monitor.DefaultMaxDeviceFile is 2 GiB on
// disk, not in memory); a third trickles at 1 MB/s under a 2 s timeout
// (`hprof --timeout`).
func endlessPulls(t *testing.T, r *rig, stop <-chan struct{}) string {
	fast, err := hostile.Serve("127.0.0.1:0", hostile.EndlessRecv(0))
	if err != nil {
		t.Error(err)
		return ""
	}
	defer fast.Close()
	slow, err := hostile.Serve("127.0.0.1:0", hostile.EndlessRecv(1<<20))
	if err != nil {
		t.Error(err)
		return ""
	}
	defer slow.Close()
	dir := t.TempDir()
	var mu sync.Mutex
	var saves, bounded, timedOut int
	var pulled int64
	var wg sync.WaitGroup
	saver := func(i int, srv *hostile.Server, limit int64, timeout time.Duration) {
		defer wg.Done()
		c := &adb.Client{Addr: srv.Addr(), Timeout: 5 * time.Second}
		path := filepath.Join(dir, fmt.Sprintf("dump%d.hprof", i))
		for {
			select {
			case <-stop:
				return
			default:
			}
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				select {
				case <-stop:
				case <-ctx.Done():
				}
				cancel()
			}()
			var n int64
			res, err := savefile.Save(ctx, path, savefile.Options{Timeout: timeout}, func(ctx context.Context, w *savefile.Writer) error {
				var err error
				n, err = c.PullTo(ctx, "hostile", "/data/local/tmp/endless.hprof", w, limit)
				return err
			})
			stopped := ctx.Err() != nil && !errors.Is(err, savefile.ErrTimeout)
			cancel()
			mu.Lock()
			saves++
			pulled += n
			switch {
			case err == nil:
				t.Errorf("an endless pull was saved whole: %d bytes", res.Received)
			case strings.Contains(err.Error(), "exceeds"):
				bounded++
			case errors.Is(err, savefile.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
				// The socket's deadline (the context's) may fire just
				// before the context's own timer: the pull's error then
				// says "context deadline exceeded" without savefile's
				// "timed out after".
				timedOut++
			case stopped:
			default:
				t.Errorf("endless pull %d: %v", i, err)
			}
			mu.Unlock()
			if n > limit {
				t.Errorf("endless pull %d: %d bytes read past the %d bound", i, n, limit)
			}
		}
	}
	wg.Add(3)
	go saver(0, fast, 256<<20, 0)
	go saver(1, fast, 256<<20, 0)
	go saver(2, slow, monitor.DefaultMaxDeviceFile, 2*time.Second)
	wg.Wait()
	left, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(left) > 0 {
		t.Errorf("endless pulls left %v behind", left)
	}
	return fmt.Sprintf("%d saves, %.1f GiB pulled, %d stopped at the bound, %d at the timeout", saves, float64(pulled)/(1<<30), bounded, timedOut)
}
