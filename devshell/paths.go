package devshell

import (
	"fmt"
	"strings"
)

// Paths on the device. A VM names itself (its app name comes from HELO or
// APNM), so whatever part of a device path comes from a VM is data: only
// the characters of an allow-list reach a path, the path is checked again
// before any use (Device checks every path it is given), and every shell
// argument is quoted (adb.ShellQuote). A path the sync: service refuses is
// never handed to the shell instead.

// MaxNameLen bounds the part of a device file name taken from an app.
const MaxNameLen = 64

// MaxPathLen bounds any device path ddmtui builds (well inside sync:'s
// 1024 bytes and every file system's name limits).
const MaxPathLen = 255

// ANRPath is where Android (before 8) writes SIGQUIT dumps.
const ANRPath = "/data/anr/traces.txt"

// FileName turns an app name into a file name for the device: its part up
// to ':' (a process such as com.example:remote writes the app's file, as
// ddmlib does), with every character outside [A-Za-z0-9._-] replaced by
// '_', at most MaxNameLen bytes, never "", "." or ".." (fallback then).
func FileName(app, fallback string) string {
	if i := strings.IndexByte(app, ':'); i >= 0 {
		app = app[:i]
	}
	var b strings.Builder
	for _, r := range app {
		if b.Len() >= MaxNameLen {
			break
		}
		if pathChar(r) && r != '/' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	name := b.String()
	if strings.Trim(name, ".") == "" {
		return fallback
	}
	return name
}

// pathChar reports a character allowed in a device path ddmtui builds:
// letters, digits, '.', '_', '-' and '/'.
func pathChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r == '.' || r == '_' || r == '-' || r == '/'
}

// CheckPath refuses a device path that is not absolute, is longer than
// MaxPathLen, has a character outside the allow-list or a ".." element:
// the last guard before a path reaches sync: or a command line.
func CheckPath(path string) error {
	switch {
	case !strings.HasPrefix(path, "/") || len(path) > MaxPathLen:
		return fmt.Errorf("device path of %d bytes refused (must be absolute, at most %d bytes)", len(path), MaxPathLen)
	case strings.IndexFunc(path, func(r rune) bool { return !pathChar(r) }) >= 0:
		return fmt.Errorf("device path %q refused: only letters, digits, '.', '_', '-' and '/' are allowed", path)
	case strings.Contains("/"+path+"/", "/../"):
		return fmt.Errorf("device path %q refused: it has a '..' element", path)
	}
	return nil
}

// TracePath is where MPRS makes a VM write its trace, as ddmlib does:
// /sdcard/<app name up to ':'>.trace, the name allow-listed.
func TracePath(app string) string {
	return "/sdcard/" + FileName(app, "trace") + ".trace"
}

// HprofPath is where HPDU makes a VM write its heap dump, as ddmlib does:
// /sdcard/<app name up to ':'>.hprof, the name allow-listed.
func HprofPath(app string) string {
	return "/sdcard/" + FileName(app, "trace") + ".hprof"
}
