package sim

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ddmtui/ddmtui/simpleperf"
	"github.com/ddmtui/ddmtui/trace"
)

// The simulated simpleperf (issue 36, spec/simpleperf.md): `simpleperf
// record --app PKG -p PID … -o FILE` from Android 9 (as the app from
// Android 10, for profileable and debuggable apps) and `simpleperf
// report-sample --protobuf -i FILE -o OUT`. The recording is what the
// VM's threads do: the hot methods of the method trace the VM would send
// (the same generator and seed), sampled at the asked frequency, with a
// native frame of libart.so under some Java leaves. The simulated
// perf.data is perfDataMagic and the report-sample stream itself.

// SimpleperfAPI is the first API level with /system/bin/simpleperf;
// SampleAppAPI the first where `--app` runs as the app.
const (
	SimpleperfAPI = 28
	SampleAppAPI  = 29
)

// perfDataMagic opens a simulated perf.data (as a real one opens with it).
const perfDataMagic = "PERFILE2"

// maxSimSampleDuration bounds a simulated recording's wait.
const maxSimSampleDuration = 10 * time.Minute

func (d *Device) simpleperfCommand(ctx context.Context, args []string, out io.Writer) int {
	api := d.API()
	if api != 0 && api < SimpleperfAPI {
		fmt.Fprintf(out, "/system/bin/sh: simpleperf: not found\n")
		return 127
	}
	args = dropRedirect(args)
	if len(args) == 0 {
		fmt.Fprintf(out, "simpleperf: no command\n")
		return 1
	}
	opts := map[string]string{}
	flags := map[string]bool{}
	for i := 1; i < len(args); i++ {
		a := args[i]
		switch a {
		case "--trace-offcpu", "--protobuf", "--show-callchain", "-g":
			flags[a] = true
		default:
			if !strings.HasPrefix(a, "-") || i+1 >= len(args) {
				fmt.Fprintf(out, "simpleperf E cmdline: unknown option %s\n", a)
				return 1
			}
			opts[a] = args[i+1]
			i++
		}
	}
	switch args[0] {
	case "record":
		return d.simpleperfRecord(ctx, api, opts, flags, out)
	case "report-sample":
		in, ok := d.deviceFile(opts["-i"])
		if !ok || !bytes.HasPrefix(in, []byte(perfDataMagic)) || !flags["--protobuf"] || opts["-o"] == "" {
			fmt.Fprintf(out, "simpleperf E record_file_reader.cpp: failed to open %s\n", opts["-i"])
			return 1
		}
		d.writeDeviceFile(opts["-o"], in[len(perfDataMagic):])
		return 0
	}
	fmt.Fprintf(out, "simpleperf E command.cpp: unknown subcommand %s\n", args[0])
	return 1
}

// dropRedirect removes a trailing "2>&1" (the simulated shell merges the
// streams anyway).
func dropRedirect(args []string) []string {
	if n := len(args); n > 0 && args[n-1] == "2>&1" {
		return args[:n-1]
	}
	return args
}

func (d *Device) simpleperfRecord(ctx context.Context, api int, opts map[string]string, flags map[string]bool, out io.Writer) int {
	pkg := opts["--app"]
	if pkg != "" && api != 0 && api < SampleAppAPI {
		fmt.Fprintf(out, "simpleperf E cmd_record.cpp: --app option isn't supported on Android < Q\n")
		return 1
	}
	pid, _ := strconv.Atoi(opts["-p"])
	vm := d.VM(pid)
	if vm == nil {
		fmt.Fprintf(out, "simpleperf E event_selection_set.cpp: failed to open perf event file: process %d doesn't exist\n", pid)
		return 1
	}
	spec := vm.Spec()
	vpkg := spec.Package
	if vpkg == "" {
		vpkg, _, _ = strings.Cut(vm.App(), ":")
	}
	appType := "debuggable"
	if spec.Release {
		appType = "profileable"
	}
	switch {
	case pkg != "" && pkg != vpkg:
		fmt.Fprintf(out, "simpleperf E cmd_record.cpp: process %d isn't of app %s\n", pid, pkg)
		return 1
	case pkg != "" && spec.Package == "android":
		// system_process: debuggable on an eng build, profileable never.
		fmt.Fprintf(out, "simpleperf_app_runner: package %s is not profileable or debuggable\n", pkg)
		return 1
	}
	freq, err := strconv.Atoi(opts["-f"])
	if opts["-f"] == "" {
		freq, err = 4000, nil // simpleperf's default for cpu-clock
	}
	secs, err2 := strconv.ParseFloat(opts["--duration"], 64)
	if err != nil || err2 != nil || freq < 1 || freq > 100_000 || secs <= 0 || math.IsInf(secs, 0) {
		fmt.Fprintf(out, "simpleperf E cmd_record.cpp: invalid -f or --duration\n")
		return 1
	}
	dur := min(time.Duration(secs*float64(time.Second)), maxSimSampleDuration)
	select {
	case <-time.After(dur):
	case <-ctx.Done():
		return 130
	}
	var b bytes.Buffer
	b.WriteString(perfDataMagic)
	if err := vm.writeSamples(&b, dur, freq, api, appType, flags["--trace-offcpu"]); err != nil {
		fmt.Fprintf(out, "simpleperf E cmd_record.cpp: %v\n", err)
		return 1
	}
	d.writeDeviceFile(opts["-o"], b.Bytes())
	fmt.Fprintf(out, "simpleperf I cmd_record.cpp: Samples recorded: %d. Samples lost: 0.\n", dur.Milliseconds()*int64(freq)/1000)
	return 0
}

// Files a simulated recording names, by id.
const (
	simFileApp = iota
	simFileBoot
	simFileART
)

// artInvoke is libart.so's one symbol in a simulated recording, mangled as
// simpleperf leaves a symbol it could not demangle (ddmtui demangles it).
const artInvoke = "_ZN3art9ArtMethod6InvokeEPNS_6ThreadEPjjPNS_6JValueEPKc"

// MethodProfile is the profile (with call trees) of the first method trace
// the VM sends: what its threads do, which a simulated recording samples.
func (vm *VM) MethodProfile() (*trace.Profile, error) {
	vm.mu.Lock()
	var threads []trace.Thread
	for _, id := range vm.sortedThreadIDs() {
		threads = append(threads, trace.Thread{ID: id, Name: vm.threads[id].name})
	}
	seed, pid := vm.spec.Seed*7919+1, vm.spec.PID
	vm.mu.Unlock()
	tr, err := trace.Synth{Seed: seed, Records: 20000, PID: pid, NamedThreads: threads, Clocks: trace.Dual}.Trace()
	if err != nil {
		return nil, err
	}
	raw, err := tr.MarshalBinary()
	if err != nil {
		return nil, err
	}
	return trace.ReadProfile(bytes.NewReader(raw), trace.BuildOptions{CallTree: true})
}

// writeSamples writes the report-sample stream of a recording of dur at
// freq Hz: the profile of the trace the VM would send, its self time per
// call path turned into that many samples per thread.
func (vm *VM) writeSamples(w io.Writer, dur time.Duration, freq, api int, appType string, offCPU bool) error {
	p, err := vm.MethodProfile()
	if err != nil {
		return err
	}
	vm.mu.Lock()
	pid, pkg := vm.spec.PID, vm.spec.Package
	threads := make(map[uint32]string, len(vm.threads))
	for id, th := range vm.threads {
		threads[id] = th.name
	}
	vm.mu.Unlock()
	sw := simpleperf.NewWriter(w)
	sw.Meta(&simpleperf.MetaInfo{EventTypes: []string{"cpu-clock"}, AppPackage: pkg, AppType: appType,
		SDKVersion: strconv.Itoa(api), BuildType: "user", TraceOffCPU: offCPU})
	perThread := max(int64(dur.Seconds()*float64(freq)), 1)
	period := uint64(time.Second) / uint64(freq)
	// Each method is a symbol of the file it runs from: the boot image
	// for the platform's classes, the app's APK for the others.
	symbolOf := map[int32]int32{}
	var symbols [2][]string
	frame := func(m int32, n int64) simpleperf.Frame {
		name := p.Name(m)
		file := int32(simFileApp)
		exec := simpleperf.InterpretedJVMMethod
		if n%2 == 1 {
			exec = simpleperf.JITJVMMethod
		}
		if strings.HasPrefix(name, "java.") || strings.HasPrefix(name, "android.") || strings.HasPrefix(name, "dalvik.") {
			file, exec = simFileBoot, simpleperf.ARTMethod
		}
		id, ok := symbolOf[m]
		if !ok {
			id = int32(len(symbols[file]))
			symbols[file] = append(symbols[file], name)
			symbolOf[m] = id
		}
		return simpleperf.Frame{VAddr: uint64(0x1000 + id*0x40), FileID: uint32(file), SymbolID: id, Exec: exec}
	}
	type stack struct {
		frames []simpleperf.Frame
		n      int64
	}
	var all [][]stack
	for i := range p.Threads {
		tp := &p.Threads[i]
		t := tp.Tree
		if t == nil || t.Inclusive(0, trace.ClockWall) == 0 {
			all = append(all, nil)
			continue
		}
		total := t.Inclusive(0, trace.ClockWall)
		var stacks []stack
		var path []int32
		var cum uint64 // self time walked so far: samples go by its running share, no fraction lost
		t.Walk(func(n int32, depth int) bool {
			path = append(path[:depth-1], t.Method(n))
			before := int64(cum) * perThread / int64(total)
			cum += t.Self(n, trace.ClockWall)
			k := int64(cum)*perThread/int64(total) - before
			if k > 0 {
				fr := make([]simpleperf.Frame, len(path))
				for j, m := range path {
					fr[len(path)-1-j] = frame(m, int64(n))
				}
				stacks = append(stacks, stack{fr, k})
			}
			return true
		})
		all = append(all, stacks)
	}
	start := uint64(1_000_000_000)
	var s simpleperf.Sample
	for i := range all {
		tid := p.Threads[i].ID
		var k int64
		for _, st := range all[i] {
			for j := int64(0); j < st.n; j++ {
				s = simpleperf.Sample{Time: start + uint64(k)*period + uint64(i)*1000, ThreadID: int32(tid), EventCount: period, Callchain: st.frames}
				if (k+int64(i))%4 == 0 {
					s.Callchain = append([]simpleperf.Frame{{VAddr: 0x2f1000, FileID: simFileART, SymbolID: 0}}, st.frames...)
				}
				if err := sw.Sample(&s); err != nil {
					return err
				}
				k++
			}
		}
	}
	sw.Lost(simpleperf.Lost{SampleCount: uint64(perThread) * uint64(len(all))})
	sw.File(&simpleperf.File{ID: simFileApp, Path: "/data/app/~~sim/" + pkg + "-1/base.apk", Symbols: symbols[simFileApp]})
	sw.File(&simpleperf.File{ID: simFileBoot, Path: "/system/framework/arm64/boot-framework.oat", Symbols: symbols[simFileBoot]})
	sw.File(&simpleperf.File{ID: simFileART, Path: "/apex/com.android.art/lib64/libart.so", Symbols: []string{artInvoke}})
	for i := range p.Threads {
		id := p.Threads[i].ID
		sw.Thread(simpleperf.Thread{ThreadID: int32(id), ProcessID: int32(pid), Name: threads[id]})
	}
	return sw.Close()
}
