package sim

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"testing/fstest"
	"time"

	"github.com/ddmtui/ddmtui/sim/adbd"
	"github.com/ddmtui/ddmtui/threaddump"
)

// The simulated device's own files (those `am dumpheap` writes), served
// with the VMs' files and the ANR dump to the simulated adbd's sync:
// service, and the device commands that modern Android offers where DDM is
// gone: `am dumpheap` and `debuggerd -j`.

// The device is a FileServer for the simulated adbd.
var _ adbd.FileServer = (*Device)(nil)

// deviceFiles are files the device's commands wrote.
type deviceFiles struct {
	mu    sync.Mutex
	files map[string]*deviceFile
	// dumpheapReturnsEarly: `am dumpheap` returns before the file is
	// complete, as on Android 9 and older.
	dumpheapReturnsEarly bool
	// perfetto are the background perfetto sessions by pid (perfetto.go).
	perfetto     map[int]chan struct{}
	perfettoPIDs int
}

type deviceFile struct {
	data []byte
	mod  time.Time
}

// SetDumpheapReturnsEarly chooses how the simulated `am dumpheap` signals
// completion. false (the default): it prints "File: PATH" and "Waiting for
// dump to finish...", and returns once the file is complete, as Android 10
// and later do. true: it prints nothing and returns at once while the file
// grows over a few hundred milliseconds, as older releases, whose
// command returns once the request is sent, do.
func (d *Device) SetDumpheapReturnsEarly(early bool) {
	d.dfiles.mu.Lock()
	defer d.dfiles.mu.Unlock()
	d.dfiles.dumpheapReturnsEarly = early
}

// deviceDirs always exist on the simulated device.
var deviceDirs = []string{"data/local/tmp", "sdcard", "data/anr", "data/misc/perfetto-traces"}

// Files is the device's file system for sync: — the ANR dump, the files
// VMs wrote (MPRS traces, HPDU dumps), and those `am dumpheap` wrote — as
// a snapshot taken now.
func (d *Device) Files() fs.FS {
	m := fstest.MapFS{}
	now := time.Now()
	for _, dir := range deviceDirs {
		m[dir] = &fstest.MapFile{Mode: fs.ModeDir | 0o771, ModTime: now}
	}
	add := func(p string, b []byte, mod time.Time) {
		name := strings.TrimPrefix(p, "/")
		if !fs.ValidPath(name) || name == "." {
			return
		}
		m[name] = &fstest.MapFile{Data: b, Mode: 0o644, ModTime: mod}
	}
	d.mu.Lock()
	if d.anr != nil {
		add(ANRPath, d.anr, now)
	}
	vms := make([]*VM, 0, len(d.vms))
	for _, vm := range d.vms {
		vms = append(vms, vm)
	}
	d.mu.Unlock()
	for _, vm := range vms {
		vm.mu.Lock()
		for p, b := range vm.files {
			add(p, b, now)
		}
		vm.mu.Unlock()
	}
	d.dfiles.mu.Lock()
	for p, f := range d.dfiles.files {
		// A copy: a file still being written keeps growing.
		add(p, bytes.Clone(f.data), f.mod)
	}
	d.dfiles.mu.Unlock()
	return m
}

// deviceFile returns a file a device command wrote.
func (d *Device) deviceFile(path string) ([]byte, bool) {
	d.dfiles.mu.Lock()
	defer d.dfiles.mu.Unlock()
	f, ok := d.dfiles.files[path]
	if !ok {
		return nil, false
	}
	return bytes.Clone(f.data), true
}

// removeFile is rm: files device commands wrote, and the ANR dump.
func (d *Device) removeFile(path string) error {
	d.dfiles.mu.Lock()
	_, ok := d.dfiles.files[path]
	delete(d.dfiles.files, path)
	d.dfiles.mu.Unlock()
	if ok {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if path == ANRPath && d.anr != nil {
		d.anr = nil
		return nil
	}
	return fmt.Errorf("%s: %w", path, fs.ErrNotExist)
}

func (d *Device) writeDeviceFile(path string, b []byte) {
	d.dfiles.mu.Lock()
	defer d.dfiles.mu.Unlock()
	if d.dfiles.files == nil {
		d.dfiles.files = map[string]*deviceFile{}
	}
	d.dfiles.files[path] = &deviceFile{data: b, mod: time.Now()}
}

func (d *Device) appendDeviceFile(path string, b []byte) bool {
	d.dfiles.mu.Lock()
	defer d.dfiles.mu.Unlock()
	f, ok := d.dfiles.files[path]
	if !ok {
		return false // removed meanwhile
	}
	f.data = append(f.data, b...)
	f.mod = time.Now()
	return true
}

// vmByProcess finds a VM by pid or process name, as am does.
func (d *Device) vmByProcess(proc string) *VM {
	if pid, err := strconv.Atoi(proc); err == nil {
		return d.VM(pid)
	}
	for _, vm := range d.VMs() {
		if vm.App() == proc {
			return vm
		}
	}
	return nil
}

// amCommand is the simulated `am`: only dumpheap.
func (d *Device) amCommand(ctx context.Context, args []string, out io.Writer) int {
	if len(args) == 0 || args[0] != "dumpheap" {
		fmt.Fprintf(out, "Unknown command: %s\n", strings.Join(args, " "))
		return 255
	}
	args = args[1:]
	bitmaps := ""
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		switch args[0] {
		case "-g", "-n", "-m":
			args = args[1:]
		case "--user", "-b":
			if args[0] == "-b" && d.API() < 35 {
				// -b (bitmap pixels in the dump) came with Android 15.
				fmt.Fprintf(out, "Error: Unknown option: %s\n", args[0])
				return 255
			}
			if len(args) < 2 {
				fmt.Fprintf(out, "Error: option %s requires an argument\n", args[0])
				return 255
			}
			if args[0] == "-b" {
				switch args[1] {
				case "png", "jpg":
					bitmaps = args[1]
				case "webp":
					// No WebP encoder here: the pixels are stored as PNG
					// and DumpData.format says so.
					bitmaps = "png"
				default:
					fmt.Fprintf(out, "Error: bitmap format must be png, jpg or webp, not %s\n", args[1])
					return 255
				}
			}
			args = args[2:]
		default:
			fmt.Fprintf(out, "Error: Unknown option: %s\n", args[0])
			return 255
		}
	}
	if len(args) != 2 {
		fmt.Fprintf(out, "Error: usage: am dumpheap [-n] [-g] <PROCESS> <FILE>\n")
		return 255
	}
	proc, path := args[0], args[1]
	vm := d.vmByProcess(proc)
	if vm == nil || vm.spec.Family == JVM {
		fmt.Fprintf(out, "Exception occurred while executing 'dumpheap':\njava.lang.IllegalArgumentException: Unknown process: %s\n", proc)
		return 255
	}
	vm.mu.Lock()
	data, err := vm.hprofLocked(bitmaps)
	vm.mu.Unlock()
	if err != nil {
		fmt.Fprintf(out, "HEAP DUMP FAILED on process %s\n", proc)
		return 255
	}
	d.dfiles.mu.Lock()
	early := d.dfiles.dumpheapReturnsEarly
	d.dfiles.mu.Unlock()
	if !early {
		fmt.Fprintf(out, "File: %s\nWaiting for dump to finish...\n", path)
		d.writeDeviceFile(path, data)
		return 0
	}
	// The app writes the file after am returned: in four pieces.
	d.writeDeviceFile(path, nil)
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return 0
	}
	d.wg.Add(1)
	d.mu.Unlock()
	go func() {
		defer d.wg.Done()
		step := (len(data) + 3) / 4
		for len(data) > 0 {
			time.Sleep(60 * time.Millisecond)
			n := min(step, len(data))
			d.mu.Lock()
			closed := d.closed
			d.mu.Unlock()
			if closed || !d.appendDeviceFile(path, data[:n]) {
				return
			}
			data = data[n:]
		}
	}()
	return 0
}

// debuggerdCommand is `debuggerd -j PID` (Android 8+): the VM's Java
// stacks, as ART prints them on SIGQUIT, on standard output. VMs older
// than modern ART get the usage text of the older debuggerd, which had no
// -j.
func (d *Device) debuggerdCommand(ctx context.Context, args []string, out io.Writer) int {
	if len(args) != 2 || args[0] != "-j" {
		fmt.Fprintf(out, "usage: debuggerd [-b|-j] PID\n")
		return 1
	}
	pid, err := strconv.Atoi(args[1])
	vm := d.VM(pid)
	if err != nil || vm == nil {
		fmt.Fprintf(out, "debuggerd: failed to get process info for %s: No such process\n", args[1])
		return 1
	}
	if !vm.spec.Modern {
		fmt.Fprintf(out, "usage: debuggerd [-b] PID\n")
		return 1
	}
	var buf bytes.Buffer
	if err := threaddump.Format(&buf, vm.ThreadDump(time.Now()), threaddump.StyleART14); err != nil {
		fmt.Fprintf(out, "debuggerd: %v\n", err)
		return 1
	}
	_, _ = out.Write(buf.Bytes())
	return 0
}
