package sim

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/logcat"
)

// DeviceLogSize is how many entries the simulated device's log keeps (a
// real logd keeps a few hundred KiB per buffer).
const DeviceLogSize = 50_000

// systemPIDFallback is system_server's pid when no VM plays it.
const systemPIDFallback = 612

// deviceLog is what the simulated logd holds: the entries, and per app the
// generator of its lines (its own random source, so logging never changes
// how the VMs evolve).
type deviceLog struct {
	mu       sync.Mutex
	ring     *logcat.Ring
	apps     map[int]*appLog  // by pid
	uids     map[string]int32 // by package: an app keeps its uid across restarts
	nextUID  int32
	lastPID  int               // the newest pid given out by start
	ports    map[string]string // by package: the local address a crashed app was served on
	restarts []pendingRestart
}

type appLog struct {
	spec  VMSpec
	rng   *rand.Rand
	uid   int32
	steps int
	tag   string // the app's own tag
}

type pendingRestart struct {
	spec  VMSpec
	after int // steps to wait
}

// Logcat returns the device's log (what logd holds), created on first use.
// Run adds the VMs' lines to it at every step; the simulated adbd serves it
// to `logcat`.
func (d *Device) Logcat() *logcat.Ring {
	return d.logState().ring
}

func (d *Device) logState() *deviceLog {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.log == nil {
		d.log = &deviceLog{ring: logcat.NewRing(DeviceLogSize), apps: map[int]*appLog{}, uids: map[string]int32{}, ports: map[string]string{}, nextUID: 10060}
	}
	return d.log
}

// Restart ends the app with pid (as after a crash or `am force-stop`) and
// starts the same app at once under a new pid, which it returns.
func (d *Device) Restart(pid int) (int, error) {
	vm := d.VM(pid)
	if vm == nil {
		return 0, fmt.Errorf("sim: no VM with pid %d", pid)
	}
	spec := vm.Spec()
	lg := d.logState()
	now := time.Now()
	sys := d.systemPID()
	lg.mu.Lock()
	lg.add(now, sys, sys, 1000, logcat.System, logcat.Info, "ActivityManager",
		fmt.Sprintf("Force stopping %s appid=%d user=0: restart", spec.Package, lg.uidOf(pid)))
	lg.mu.Unlock()
	d.Remove(pid)
	return d.start(spec, now), nil
}

// start puts a new process of spec on the device under a fresh pid (pids
// only grow, as on a device that has not wrapped its pid space).
func (d *Device) start(spec VMSpec, now time.Time) int {
	lg := d.logState()
	lg.mu.Lock()
	pid := lg.lastPID
	lg.mu.Unlock()
	for _, vm := range d.VMs() {
		pid = max(pid, vm.PID())
	}
	spec.PID = pid + 17
	lg.mu.Lock()
	lg.lastPID = spec.PID
	addr := lg.ports[spec.Package]
	delete(lg.ports, spec.Package)
	lg.mu.Unlock()
	spec.Seed++
	vm := NewVM(spec)
	d.Add(vm)
	if addr != "" {
		// A VM that was served on a local port comes back on it, as an
		// app re-forwarded to the same port would.
		_, _ = d.ServeVM(vm, addr)
	}
	return spec.PID
}

// systemPID is the pid playing system_server.
func (d *Device) systemPID() int {
	for _, vm := range d.VMs() {
		if vm.Spec().Package == "android" {
			return vm.PID()
		}
	}
	return systemPIDFallback
}

func (lg *deviceLog) uidOf(pid int) int32 {
	if a := lg.apps[pid]; a != nil {
		return a.uid
	}
	return 1000
}

// add appends one entry; entries of one step are a microsecond apart so
// their order shows in the time.
func (lg *deviceLog) add(t time.Time, pid, tid int, uid int32, buf logcat.LogID, pri logcat.Priority, tag, msg string) {
	lg.ring.Append(logcat.Entry{Time: t, PID: int32(pid), TID: int32(tid), UID: uid, Buffer: buf, Priority: pri, Tag: tag, Message: msg})
}

// logStep writes what the device's processes log during one simulation
// step: new processes announced by the ActivityManager, each app's own
// lines, and the crashes (CrashAfter) and ANRs (Deadlock) the specs ask for.
func (d *Device) logStep(now time.Time) {
	lg := d.logState()
	vms := d.VMs()
	sys := d.systemPID()
	type crash struct {
		pid  int
		spec VMSpec
	}
	var crashed []crash
	var restart []VMSpec

	lg.mu.Lock()
	tick := 0
	at := func() time.Time { tick++; return now.Add(time.Duration(tick) * time.Microsecond) }
	// Pending restarts count down.
	kept := lg.restarts[:0]
	for _, r := range lg.restarts {
		if r.after--; r.after <= 0 {
			restart = append(restart, r.spec)
		} else {
			kept = append(kept, r)
		}
	}
	lg.restarts = kept
	live := map[int]bool{}
	for _, vm := range vms {
		spec := vm.Spec()
		if spec.Family == JVM {
			continue // not an Android process
		}
		pid := vm.PID()
		live[pid] = true
		a := lg.apps[pid]
		if a == nil {
			uid, ok := lg.uids[spec.Package]
			switch {
			case spec.Package == "android":
				uid = 1000
			case !ok:
				uid = lg.nextUID
				lg.nextUID++
				lg.uids[spec.Package] = uid
			}
			a = &appLog{spec: spec, rng: rand.New(rand.NewPCG(spec.Seed^0x106ca7, uint64(pid))), uid: uid, tag: appTag(spec.Package)}
			lg.apps[pid] = a
			if pid != sys {
				lg.add(at(), sys, sys+12, 1000, logcat.System, logcat.Info, "ActivityManager",
					fmt.Sprintf("Start proc %d:%s/u0a%d for activity {%s/.MainActivity}", pid, spec.App, a.uid-10000, spec.Package))
				lg.add(at(), pid, pid, a.uid, logcat.Main, logcat.Info, a.tag, "onCreate: "+spec.Package+" starting")
			}
		}
		a.steps++
		if pid == sys {
			lg.systemLines(a, pid, at)
		} else {
			lg.appLines(a, pid, at)
		}
		if spec.Deadlock && a.steps == 40 {
			lg.add(at(), sys, sys+9, 1000, logcat.System, logcat.Error, "ActivityManager", anrReport(spec, pid))
		}
		if spec.CrashAfter > 0 && a.steps == spec.CrashAfter {
			lg.add(at(), pid, pid, a.uid, logcat.Crash, logcat.Error, "AndroidRuntime", crashReport(spec, pid))
			lg.add(at(), pid, pid, a.uid, logcat.Main, logcat.Info, "Process", fmt.Sprintf("Sending signal. PID: %d SIG: 9", pid))
			lg.add(at(), sys, sys+9, 1000, logcat.System, logcat.Warn, "ActivityTaskManager", "  Force finishing activity "+spec.Package+"/.MainActivity")
			lg.add(at(), sys, sys+5, 1000, logcat.System, logcat.Info, "ActivityManager", fmt.Sprintf("Process %s (pid %d) has died: fg  TOP ", spec.App, pid))
			crashed = append(crashed, crash{pid, spec})
			lg.restarts = append(lg.restarts, pendingRestart{spec: spec, after: 4})
		}
	}
	for pid := range lg.apps {
		if !live[pid] {
			delete(lg.apps, pid)
		}
	}
	lg.mu.Unlock()

	for _, c := range crashed {
		d.mu.Lock()
		ln := d.listeners[c.pid]
		d.mu.Unlock()
		if ln != nil {
			lg.mu.Lock()
			lg.ports[c.spec.Package] = ln.Addr().String()
			lg.mu.Unlock()
		}
		d.Remove(c.pid)
	}
	for _, spec := range restart {
		d.start(spec, now)
	}
}

// appTag is the tag an app logs under: its package's last word, capitalised.
func appTag(pkg string) string {
	w := pkg[strings.LastIndexByte(pkg, '.')+1:]
	if w == "" {
		return "App"
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

func (lg *deviceLog) appLines(a *appLog, pid int, at func() time.Time) {
	r := a.rng
	pkg := a.spec.Package
	worker := pid + 10 + r.IntN(6)
	for n := r.IntN(4); n > 0; n-- {
		switch r.IntN(12) {
		case 0:
			lg.add(at(), pid, pid, a.uid, logcat.Main, logcat.Debug, a.tag, fmt.Sprintf("Loaded %d items in %d ms", 10+r.IntN(90), 3+r.IntN(200)))
		case 1:
			lg.add(at(), pid, pid, a.uid, logcat.Main, logcat.Verbose, a.tag, fmt.Sprintf("scroll position %d", r.IntN(4000)))
		case 2:
			lg.add(at(), pid, worker, a.uid, logcat.Main, logcat.Debug, "okhttp.OkHttpClient", fmt.Sprintf("--> GET https://api.example.com/v1/%s?page=%d", appTag(pkg), r.IntN(9)))
		case 3:
			lg.add(at(), pid, worker, a.uid, logcat.Main, logcat.Debug, "okhttp.OkHttpClient", fmt.Sprintf("<-- 200 https://api.example.com/v1/%s (%dms)", appTag(pkg), 20+r.IntN(900)))
		case 4:
			lg.add(at(), pid, pid, a.uid, logcat.Main, logcat.Info, "Choreographer", fmt.Sprintf("Skipped %d frames!  The application may be doing too much work on its main thread.", 30+r.IntN(60)))
		case 5:
			lg.add(at(), pid, pid+3, a.uid, logcat.Main, logcat.Info, "art", fmt.Sprintf("Background concurrent copying GC freed %d(%dKB) AllocSpace objects, 0(0B) LOS objects, 49%% free, %dMB/%dMB, paused 41us total %dms",
				1000+r.IntN(90000), 100+r.IntN(9000), 4+r.IntN(60), 16+r.IntN(120), 5+r.IntN(80)))
		case 6:
			lg.add(at(), pid, worker, a.uid, logcat.Main, logcat.Warn, a.tag, fmt.Sprintf("Bildgröße überschritten: 画像 %dx%d — verkleinert", 2000+r.IntN(3000), 1000+r.IntN(3000)))
		case 7:
			lg.add(at(), pid, worker, a.uid, logcat.Main, logcat.Debug, "Sync Worker", fmt.Sprintf("sync of %s done: %d changes", pkg, r.IntN(20)))
		case 8:
			if r.IntN(3) == 0 {
				lg.add(at(), pid, pid, a.uid, logcat.Main, logcat.Warn, "StrictMode", fmt.Sprintf(
					"StrictMode policy violation; ~duration=%d ms: android.os.strictmode.DiskReadViolation\n"+
						"\tat android.os.StrictMode$AndroidBlockGuardPolicy.onReadFromDisk(StrictMode.java:1596)\n"+
						"\tat java.io.FileInputStream.<init>(FileInputStream.java:160)\n"+
						"\tat %s\n"+
						"\tat %s.MainActivity.onResume(MainActivity.java:88)", 5+r.IntN(90), a.spec.javaFrame(pkg+".data.Cache", "load", "Cache.java", 57), pkg))
			}
		case 9:
			if r.IntN(4) == 0 {
				lg.add(at(), pid, worker, a.uid, logcat.Main, logcat.Error, a.tag, "sync failed: java.net.SocketTimeoutException: timeout")
			}
		case 10:
			lg.add(at(), pid, pid, a.uid, logcat.Main, logcat.Info, a.tag, []string{"onResume", "onPause", "onStart", "onStop"}[r.IntN(4)])
		default:
			lg.add(at(), pid, pid+1, a.uid, logcat.Main, logcat.Debug, "OpenGLRenderer", fmt.Sprintf("Davey! duration=%dms; Flags=0, IntendedVsync=%d", 700+r.IntN(400), 1e11+r.Int64N(1e9)))
		}
	}
}

func (lg *deviceLog) systemLines(a *appLog, pid int, at func() time.Time) {
	r := a.rng
	if r.IntN(3) != 0 {
		return
	}
	var pkgs []string
	for _, o := range lg.apps {
		if o.spec.Package != "android" {
			pkgs = append(pkgs, o.spec.Package)
		}
	}
	sort.Strings(pkgs)
	pkg := "com.android.settings"
	if len(pkgs) > 0 {
		pkg = pkgs[r.IntN(len(pkgs))]
	}
	switch r.IntN(4) {
	case 0:
		lg.add(at(), pid, pid+20, 1000, logcat.System, logcat.Info, "ActivityTaskManager", fmt.Sprintf("Displayed %s/.MainActivity: +%dms", pkg, 200+r.IntN(900)))
	case 1:
		lg.add(at(), pid, pid+21, 1000, logcat.System, logcat.Warn, "ActivityManager", fmt.Sprintf("Background start not allowed: service Intent { act=%s.SYNC cmp=%s/.SyncService } to %s/.SyncService from pid=%d uid=%d pkg=%s",
			pkg, pkg, pkg, 3000+r.IntN(900), 10000+r.IntN(200), pkg))
	case 2:
		lg.add(at(), pid, pid+22, 1000, logcat.System, logcat.Debug, "WindowManager", fmt.Sprintf("relayoutVisibleWindow: Window{%x u0 %s/.MainActivity}", r.Uint32(), pkg))
	default:
		lg.add(at(), pid, pid+23, 1000, logcat.System, logcat.Info, "chatty", fmt.Sprintf("uid=1000(system) ActivityManager expire %d lines", 2+r.IntN(40)))
	}
}

// crashReport is what AndroidRuntime logs for an uncaught exception: one
// entry with the whole stack trace.
func crashReport(spec VMSpec, pid int) string {
	p := spec.Package
	return "FATAL EXCEPTION: main\n" +
		fmt.Sprintf("Process: %s, PID: %d\n", spec.App, pid) +
		"java.lang.IllegalStateException: tile cache corrupt at zoom 14\n" +
		"\tat " + spec.javaFrame(p+".tiles.TileCache", "get", "TileCache.java", 118) + "\n" +
		"\tat " + spec.javaFrame(p+".MapView", "onDraw", "MapView.java", 342) + "\n" +
		"\tat android.view.View.draw(View.java:23889)\n" +
		"\tat android.view.ViewRootImpl.draw(ViewRootImpl.java:4854)\n" +
		"\tat android.os.Handler.dispatchMessage(Handler.java:106)\n" +
		"\tat android.os.Looper.loop(Looper.java:288)\n" +
		"\tat android.app.ActivityThread.main(ActivityThread.java:7872)\n" +
		"\tat java.lang.reflect.Method.invoke(Native Method)\n" +
		"\tat com.android.internal.os.ZygoteInit.main(ZygoteInit.java:936)\n" +
		"Caused by: java.io.EOFException\n" +
		"\tat java.io.DataInputStream.readFully(DataInputStream.java:205)\n" +
		"\tat " + spec.javaFrame(p+".tiles.TileCache", "read", "TileCache.java", 201) + "\n" +
		"\t... 9 more"
}

// anrReport is what the ActivityManager logs when an app does not answer.
func anrReport(spec VMSpec, pid int) string {
	return fmt.Sprintf("ANR in %s (%s/.MainActivity)\n", spec.App, spec.Package) +
		fmt.Sprintf("PID: %d\n", pid) +
		"Reason: Input dispatching timed out (Waiting to send non-key event because the touched window has not finished processing certain input events that were delivered to it over 500.0ms ago.)\n" +
		"Load: 2.41 / 1.97 / 1.03\n" +
		"CPU usage from 0ms to 5012ms later:\n" +
		fmt.Sprintf("  96%% %d/%s: 91%% user + 5%% kernel", pid, spec.App)
}
