// Package config reads ddmtui's configuration file: default values for the
// command-line flags (discovery, debugger ports, output, UI), in TOML, from
// $XDG_CONFIG_HOME/ddmtui/config.toml (or ~/.config/ddmtui/config.toml), or
// the file --config names.
//
// A flag given on the command line always wins over the file; the file wins
// over the built-in default. An unknown key or a value of the wrong type is
// an *Error naming the file, line and key.
package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/pelletier/go-toml/v2"
)

// File is a configuration file's content. Unset keys are nil.
type File struct {
	Path      string    `toml:"-"`
	Discovery Discovery `toml:"discovery"`
	Debugger  Debugger  `toml:"debugger"`
	UI        UI        `toml:"ui"`
	Output    Output    `toml:"output"`
	Limits    Limits    `toml:"limits"`
	// Keys binds action names ("quit", "gc") to the keys that replace
	// their defaults (tcell key names or single characters).
	Keys map[string][]string `toml:"keys"`
	// Theme overrides colour roles ("cursor", "state.running") with a
	// colour name, a 256-colour index or #rrggbb.
	Theme map[string]any `toml:"theme"`
	// Mappings names the mapping file (mapping.txt) of each release build
	// the dashboard shows, by package: "com.example.app" = "path/mapping.txt"
	// (relative to the file's directory).
	Mappings map[string]string `toml:"mappings"`

	text []byte
}

// Discovery holds where to look for VMs and how often.
type Discovery struct {
	Scan            *string  `toml:"scan"`
	ADB             []string `toml:"adb"`
	ADBPath         *string  `toml:"adb_path"`
	ADBMaxDevices   *int     `toml:"adb_max_devices"`
	ADBMaxProcesses *int     `toml:"adb_max_processes"`
	ScanInterval    *string  `toml:"scan_interval"`
	ThreadInterval  *string  `toml:"thread_interval"`
	MeminfoInterval *string  `toml:"meminfo_interval"`
	// Processes: "all" (debuggable VMs and profileable apps, track-app)
	// or "debuggable".
	Processes *string `toml:"processes"`
}

// Debugger holds the debugger ports.
type Debugger struct {
	Base         *int    `toml:"base"`
	SelectedPort *int    `toml:"selected_port"`
	Bind         *string `toml:"bind"`
	Spin         *string `toml:"spin"`
}

// UI holds the dashboard's settings.
type UI struct {
	Mouse *bool   `toml:"mouse"`
	Log   *string `toml:"log"`
}

// Limits holds the bounds on what peers and files can make ddmtui hold.
type Limits struct {
	// MemoryBudget is the process-wide memory budget ("256M", "1G", "0").
	MemoryBudget *string `toml:"memory_budget"`
}

// Output holds where saved files go.
type Output struct {
	Dir *string `toml:"dir"`
}

// Error is a problem in a configuration file, at a line (0 when the whole
// file is concerned).
type Error struct {
	Path         string
	Line, Column int
	Key          string // dotted, e.g. "discovery.scan"
	Msg          string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Column > 0 {
			fmt.Fprintf(&b, ":%d", e.Column)
		}
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// DefaultPath is where the configuration is read from when --config is not
// given: $XDG_CONFIG_HOME/ddmtui/config.toml, else ~/.config/ddmtui/config.toml.
func DefaultPath() (string, error) {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "ddmtui", "config.toml"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("config: no home directory for ~/.config: %w", err)
	}
	return filepath.Join(home, ".config", "ddmtui", "config.toml"), nil
}

// maxSize bounds a configuration file.
const maxSize = 1 << 20

// Load reads and checks the file at path. A missing file is an error here;
// callers that read the default path treat os.ErrNotExist as "no file".
// The path must name a regular file (a FIFO would block, a device such as
// /dev/zero never end), and at most maxSize bytes are read from it: the
// size is checked on what was read, not trusted from the file system.
func Load(path string) (*File, error) {
	// O_NONBLOCK: opening a FIFO for reading would otherwise wait for a
	// writer; it has no effect on a regular file.
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{Path: path, Msg: fmt.Sprintf("not a regular file (%s)", fileKind(st.Mode()))}
	}
	b, err := io.ReadAll(io.LimitReader(fh, maxSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSize {
		return nil, &Error{Path: path, Msg: fmt.Sprintf("larger than %d bytes", maxSize)}
	}
	return Parse(path, b)
}

// fileKind names what a non-regular file is, for errors.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	default:
		return m.Type().String()
	}
}

// Parse checks a configuration document; path names it in errors.
func Parse(path string, b []byte) (*File, error) {
	f := &File{Path: path, text: b}
	d := toml.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	err := d.Decode(f)
	var sm *toml.StrictMissingError
	var de *toml.DecodeError
	switch {
	case err == nil:
		return f, nil
	case errors.As(err, &sm) && len(sm.Errors) > 0:
		e := sm.Errors[0]
		line, col := e.Position()
		return nil, &Error{Path: path, Line: line, Column: col, Key: strings.Join(e.Key(), "."), Msg: "unknown key"}
	case errors.As(err, &de):
		line, col := de.Position()
		msg := de.Error()
		msg = strings.TrimPrefix(msg, "toml: ")
		if i := strings.Index(msg, " into struct field"); i >= 0 {
			msg = msg[:i] + " here" // the Go struct is no concern of the user's
		}
		return nil, &Error{Path: path, Line: line, Column: col, Key: strings.Join(de.Key(), "."), Msg: msg}
	default:
		return nil, &Error{Path: path, Msg: err.Error()}
	}
}

// Setting is one flag default the file gives: the flag's name and its
// value(s) as they would be typed (a repeatable flag may have several).
type Setting struct {
	Key    string // dotted key in the file
	Flag   string
	Values []string
}

// Settings lists the flag defaults the file sets.
func (f *File) Settings() []Setting {
	var out []Setting
	str := func(key, flag string, v *string) {
		if v != nil {
			out = append(out, Setting{key, flag, []string{*v}})
		}
	}
	num := func(key, flag string, v *int) {
		if v != nil {
			out = append(out, Setting{key, flag, []string{strconv.Itoa(*v)}})
		}
	}
	str("discovery.scan", "scan", f.Discovery.Scan)
	if f.Discovery.ADB != nil {
		out = append(out, Setting{"discovery.adb", "adb", f.Discovery.ADB})
	}
	str("discovery.adb_path", "adb-path", f.Discovery.ADBPath)
	num("discovery.adb_max_devices", "adb-max-devices", f.Discovery.ADBMaxDevices)
	num("discovery.adb_max_processes", "adb-max-processes", f.Discovery.ADBMaxProcesses)
	str("discovery.scan_interval", "scan-interval", f.Discovery.ScanInterval)
	str("discovery.thread_interval", "thread-interval", f.Discovery.ThreadInterval)
	str("discovery.meminfo_interval", "meminfo-interval", f.Discovery.MeminfoInterval)
	str("discovery.processes", "processes", f.Discovery.Processes)
	num("debugger.base", "debug-base", f.Debugger.Base)
	num("debugger.selected_port", "selected-port", f.Debugger.SelectedPort)
	str("debugger.bind", "debug-bind", f.Debugger.Bind)
	str("debugger.spin", "debug-spin", f.Debugger.Spin)
	if f.UI.Mouse != nil {
		out = append(out, Setting{"ui.mouse", "mouse", []string{strconv.FormatBool(*f.UI.Mouse)}})
	}
	str("ui.log", "log", f.UI.Log)
	str("output.dir", "out-dir", f.Output.Dir)
	str("limits.memory_budget", "memory-budget", f.Limits.MemoryBudget)
	return out
}

// KeyError is an *Error about a key's value, at the key's line in the file.
func (f *File) KeyError(key, msg string) *Error {
	return &Error{Path: f.Path, Line: f.line(key), Key: key, Msg: msg}
}

// line finds the line of a dotted key ("table.key") in the document: the
// first `key =` line after the `[table]` header. 0 if not found.
func (f *File) line(dotted string) int {
	table, key, ok := strings.Cut(dotted, ".")
	if !ok {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(f.text))
	cur := ""
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "[") {
			cur = strings.TrimSpace(strings.Trim(l, "[]"))
			continue
		}
		if name, _, ok := strings.Cut(l, "="); ok && cur == table && strings.Trim(strings.TrimSpace(name), `"'`) == key {
			return n
		}
	}
	return 0
}

// Key is one key of the file and the flag it gives a default to.
type Key struct {
	Table, Name string
	Flag        string
}

// Dotted is the key as errors name it ("discovery.scan").
func (k Key) Dotted() string { return k.Table + "." + k.Name }

// Keys lists every key of the file, in the order Settings reports them and
// the default file lists them.
var Keys = []Key{
	{"discovery", "scan", "scan"},
	{"discovery", "adb", "adb"},
	{"discovery", "adb_path", "adb-path"},
	{"discovery", "adb_max_devices", "adb-max-devices"},
	{"discovery", "adb_max_processes", "adb-max-processes"},
	{"discovery", "scan_interval", "scan-interval"},
	{"discovery", "thread_interval", "thread-interval"},
	{"discovery", "meminfo_interval", "meminfo-interval"},
	{"discovery", "processes", "processes"},
	{"debugger", "base", "debug-base"},
	{"debugger", "selected_port", "selected-port"},
	{"debugger", "bind", "debug-bind"},
	{"debugger", "spin", "debug-spin"},
	{"ui", "mouse", "mouse"},
	{"ui", "log", "log"},
	{"output", "dir", "out-dir"},
	{"limits", "memory_budget", "memory-budget"},
}
