package sim

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ddmtui/ddmtui/perfetto/heapgraph"
)

// The simulated `perfetto` command (spec/perfetto-heapgraph.md "Capture
// from the shell"): `echo 'CONFIG' | perfetto --txt -c - -o FILE [-d]`
// with the android.java_hprof data source writes a trace whose heap graph
// is the same planted scene the VM's HPROF dumps hold (hprof/scene,
// written with heapgraph.FromHPROF in the encoding of the device's API
// level), for an app that is debuggable or profileable; like the real
// one it skips other processes without a word (the trace then holds no
// heap graph). Android 9 and 10 (API 28, 29) have perfetto but no
// android.java_hprof: their traces hold no heap graph either; older
// releases have no perfetto at all. -d (--background) prints the pid of
// the session, which lives until the trace is written (kill -0 PID).

// PerfettoAPI is the first API level with the perfetto command;
// HeapGraphAPI the first whose ART writes Java heap graphs.
const (
	PerfettoAPI  = 28
	HeapGraphAPI = 30
)

// perfettoTraceDirs are where the shell user may have perfetto write.
var perfettoTraceDirs = []string{"/data/misc/perfetto-traces/", "/data/local/tmp/"}

// perfettoRunTime is how long a simulated session takes to write its trace.
const perfettoRunTime = 300 * time.Millisecond

var (
	cfgJavaHprof = regexp.MustCompile(`name:\s*"android\.java_hprof"`)
	cfgPID       = regexp.MustCompile(`java_hprof_config\s*\{[^}]*\bpid:\s*(\d+)`)
	cfgCmdline   = regexp.MustCompile(`java_hprof_config\s*\{[^}]*\bprocess_cmdline:\s*"([^"]*)"`)
	cfgSources   = regexp.MustCompile(`data_sources\s*\{`)
)

// perfettoCommand serves `echo 'CONFIG' | perfetto ARGS…` (BasicShell.Extra:
// words arrive with quotes removed; the pipe is a word of its own).
func (d *Device) perfettoCommand(words []string, out io.Writer) (int, bool) {
	var stdin string
	switch {
	case len(words) >= 4 && words[0] == "echo" && words[2] == "|" && words[3] == "perfetto":
		stdin, words = words[1], words[4:]
	case len(words) >= 1 && words[0] == "perfetto":
		words = words[1:]
	default:
		return 0, false
	}
	if d.API() < PerfettoAPI {
		fmt.Fprintf(out, "/system/bin/sh: perfetto: not found\n")
		return 127, true
	}
	var (
		txt, background bool
		config, path    string
	)
	for i := 0; i < len(words); i++ {
		switch w := words[i]; {
		case w == "--txt":
			txt = true
		case w == "-d" || w == "--background":
			background = true
		case (w == "-c" || w == "--config" || w == "-o" || w == "--out") && i+1 < len(words):
			if w == "-c" || w == "--config" {
				config = words[i+1]
			} else {
				path = words[i+1]
			}
			i++
		case w == "2>&1":
		default:
			fmt.Fprintf(out, "perfetto: unrecognized option '%s'\n", w)
			return 1, true
		}
	}
	switch {
	case config != "-":
		// Configs from files (/data/misc/perfetto-configs, Android 12+) are
		// not simulated.
		fmt.Fprintf(out, "[perfetto_cmd.cc] Could not open %s\n", config)
		return 1, true
	case !txt || !cfgSources.MatchString(stdin):
		fmt.Fprintf(out, "[perfetto_cmd.cc] The trace config is invalid or empty\n")
		return 1, true
	case path == "":
		fmt.Fprintf(out, "[perfetto_cmd.cc] Either --out or --upload is required\n")
		return 1, true
	case !underAny(path, perfettoTraceDirs):
		fmt.Fprintf(out, "[perfetto_cmd.cc] Failed to open %s: Permission denied\n", path)
		return 1, true
	}
	trace, err := d.perfettoTrace(stdin)
	if err != nil {
		fmt.Fprintf(out, "[perfetto_cmd.cc] %v\n", err)
		return 1, true
	}
	if !background {
		time.Sleep(perfettoRunTime)
		d.writeDeviceFile(path, trace)
		return 0, true
	}
	pid := d.startPerfetto(path, trace)
	if pid == 0 {
		return 1, true
	}
	fmt.Fprintf(out, "%d\n", pid)
	return 0, true
}

func underAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(path, d) && len(path) > len(d) && !strings.Contains(path, "..") {
			return true
		}
	}
	return false
}

// perfettoTrace is the trace a config gives: a packages list packet, and
// the heap graph of the process it names when that process may be dumped.
func (d *Device) perfettoTrace(cfg string) ([]byte, error) {
	var b bytes.Buffer
	ts := uint64(time.Now().UnixNano())
	// android.packages_list (TracePacket field 47): not decoded by readers
	// of heap graphs, which must skip it.
	if err := heapgraph.WritePacket(&b, ts, 2, 47, []byte{0x0A, 0x00}); err != nil {
		return nil, err
	}
	api := d.API()
	if api < HeapGraphAPI || !cfgJavaHprof.MatchString(cfg) {
		return b.Bytes(), nil
	}
	var vm *VM
	if m := cfgPID.FindStringSubmatch(cfg); m != nil {
		if pid, err := strconv.Atoi(m[1]); err == nil {
			vm = d.VM(pid)
		}
	} else if m := cfgCmdline.FindStringSubmatch(cfg); m != nil {
		vm = d.vmByProcess(m[1])
	}
	if vm == nil || vm.spec.Family == JVM || !vm.heapGraphAllowed() {
		return b.Bytes(), nil // skipped without a word, as on a user build
	}
	vm.mu.Lock()
	hp, err := vm.hprofLocked("")
	vm.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if err := heapgraph.FromHPROF(bytes.NewReader(hp), &b, heapgraph.WriterOptions{API: api, PID: int32(vm.spec.PID),
		Timestamp: ts, Sequence: 1}); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// heapGraphAllowed: a shell-started session dumps apps that are debuggable
// or profileable (sim/apps.go: every app is one or the other).
func (vm *VM) heapGraphAllowed() bool {
	p := vm.AppProcess(0)
	return p.Debuggable || p.Profileable
}

// startPerfetto runs a background session: it lives perfettoRunTime, then
// writes the trace and ends. It returns the session's pid (0 when the
// device is closed).
func (d *Device) startPerfetto(path string, trace []byte) int {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return 0
	}
	d.wg.Add(1)
	d.mu.Unlock()
	f := &d.dfiles
	f.mu.Lock()
	if f.perfetto == nil {
		f.perfetto = map[int]chan struct{}{}
	}
	f.perfettoPIDs++
	pid := 31000 + f.perfettoPIDs
	stop := make(chan struct{})
	f.perfetto[pid] = stop
	f.mu.Unlock()
	go func() {
		defer d.wg.Done()
		t := time.NewTimer(perfettoRunTime)
		defer t.Stop()
		select {
		case <-t.C:
			d.writeDeviceFile(path, trace)
		case <-stop:
		}
		f.mu.Lock()
		delete(f.perfetto, pid)
		f.mu.Unlock()
	}()
	return pid
}

// perfettoSignal is kill for a background session: signal 0 asks whether
// it still runs; SIGTERM and SIGKILL end it before it writes its trace.
// handled is false for other pids.
func (d *Device) perfettoSignal(pid int, sig syscall.Signal) (handled bool) {
	f := &d.dfiles
	f.mu.Lock()
	defer f.mu.Unlock()
	stop, ok := f.perfetto[pid]
	if !ok {
		return false
	}
	if sig == syscall.SIGTERM || sig == syscall.SIGKILL {
		delete(f.perfetto, pid)
		close(stop)
	}
	return true
}
