package monitor

import (
	"fmt"
	"strings"
)

// Paths on the device. A VM names itself (its app name comes from HELO or
// APNM), so whatever part of a device path comes from a VM is data: only
// the characters of an allow-list reach a path, the path is checked again
// before any use, and every shell argument is quoted (adb.ShellQuote). A
// path the sync: service refuses is never handed to the shell instead.

// maxDeviceName bounds the part of a device file name taken from an app.
const maxDeviceName = 64

// maxDevicePath bounds any device path ddmtui builds (well inside sync:'s
// 1024 bytes and every file system's name limits).
const maxDevicePath = 255

// deviceFileName turns an app name into a file name for the device: its
// part up to ':' (a process such as com.example:remote writes the app's
// file, as ddmlib does), with every character outside [A-Za-z0-9._-]
// replaced by '_', at most maxDeviceName bytes, never "", "." or "..".
func deviceFileName(app, fallback string) string {
	if i := strings.IndexByte(app, ':'); i >= 0 {
		app = app[:i]
	}
	var b strings.Builder
	for _, r := range app {
		if b.Len() >= maxDeviceName {
			break
		}
		if devicePathChar(r) && r != '/' {
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

// devicePathChar reports a character allowed in a device path ddmtui
// builds: letters, digits, '.', '_', '-' and '/'.
func devicePathChar(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
		r == '.' || r == '_' || r == '-' || r == '/'
}

// checkDevicePath refuses a device path that is not absolute, is longer
// than maxDevicePath, has a character outside devicePathChar or a ".."
// element: the last guard before a path reaches sync: or a command line.
func checkDevicePath(path string) error {
	switch {
	case !strings.HasPrefix(path, "/") || len(path) > maxDevicePath:
		return fmt.Errorf("device path of %d bytes refused (must be absolute, at most %d bytes)", len(path), maxDevicePath)
	case strings.IndexFunc(path, func(r rune) bool { return !devicePathChar(r) }) >= 0:
		return fmt.Errorf("device path %q refused: only letters, digits, '.', '_', '-' and '/' are allowed", path)
	case strings.Contains("/"+path+"/", "/../"):
		return fmt.Errorf("device path %q refused: it has a '..' element", path)
	}
	return nil
}

// deviceTracePath is where MPRS makes the VM write its trace, as ddmlib
// does: /sdcard/<app name up to ':'>.trace, the name allow-listed.
func (s *Session) deviceTracePath() string {
	app := ""
	if vm, ok := s.store.VM(s.key); ok {
		app = vm.App
	}
	return "/sdcard/" + deviceFileName(app, "trace") + ".trace"
}
