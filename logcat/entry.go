// Package logcat reads Android's log: the binary records `logcat -B` writes
// (struct logger_entry, with the v1 20-byte header or the 24- and 28-byte
// headers that carry hdr_size), and the text `logcat -v threadtime` prints.
// It keeps a device's entries in a bounded Ring, marks crashes (Java FATAL
// EXCEPTION, ANR, native crash banners) and stack traces as entries arrive,
// and filters them with Android Studio's Logcat query language, compiled once
// (Compile) and applied per entry (Query.Match).
//
// Main types: Entry (one log record), BinaryDecoder and TextDecoder (the two
// wire formats), Ring (a device's bounded history with sequence numbers that
// views read from), Classifier (crash and stack-trace marks), Query.
package logcat

import (
	"fmt"
	"time"
)

// Priority is an entry's level (android_LogPriority).
type Priority uint8

// Priorities, as in <android/log.h>.
const (
	Unknown Priority = 0
	Default Priority = 1
	Verbose Priority = 2
	Debug   Priority = 3
	Info    Priority = 4
	Warn    Priority = 5
	Error   Priority = 6
	Fatal   Priority = 7
	Silent  Priority = 8
)

// Letter is the character logcat prints for p: V D I W E F S, '?' otherwise.
func (p Priority) Letter() byte {
	if p >= Verbose && p <= Silent {
		return "VDIWEFS"[p-Verbose]
	}
	return '?'
}

func (p Priority) String() string { return string(p.Letter()) }

// ParsePriority accepts a letter (V D I W E F S, A for assert = F) or a
// name (verbose, debug, info, warn/warning, error, fatal/assert), in any
// case.
func ParsePriority(s string) (Priority, error) {
	switch lower(s) {
	case "v", "verbose":
		return Verbose, nil
	case "d", "debug":
		return Debug, nil
	case "i", "info":
		return Info, nil
	case "w", "warn", "warning":
		return Warn, nil
	case "e", "error":
		return Error, nil
	case "f", "a", "fatal", "assert":
		return Fatal, nil
	case "s", "silent":
		return Silent, nil
	}
	return Unknown, fmt.Errorf("logcat: unknown level %q (want V, D, I, W, E, F or a name)", s)
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// LogID is the log buffer an entry came from (log_id_t).
type LogID uint8

// Log buffers, as in <android/log.h>.
const (
	Main     LogID = 0
	Radio    LogID = 1
	Events   LogID = 2
	System   LogID = 3
	Crash    LogID = 4
	Stats    LogID = 5
	Security LogID = 6
	Kernel   LogID = 7
)

var logIDNames = [...]string{"main", "radio", "events", "system", "crash", "stats", "security", "kernel"}

func (id LogID) String() string {
	if int(id) < len(logIDNames) {
		return logIDNames[id]
	}
	return fmt.Sprintf("log%d", id)
}

// ParseLogID names a buffer ("main", "system", …).
func ParseLogID(s string) (LogID, bool) {
	for i, n := range logIDNames {
		if n == s {
			return LogID(i), true
		}
	}
	return 0, false
}

// binaryPayload reports whether the buffer's payloads are binary event
// records rather than priority, tag and message.
func (id LogID) binaryPayload() bool { return id == Events || id == Stats || id == Security }

// Flags mark what the Classifier found in an entry.
type Flags uint8

// Entry flags.
const (
	// FlagCrash: the entry is part of a crash report (Java FATAL
	// EXCEPTION, ANR, native crash) or came from the crash buffer.
	FlagCrash Flags = 1 << iota
	// FlagCrashStart: the entry opens a crash report (its banner); views
	// jump between these.
	FlagCrashStart
	// FlagStackTrace: the message holds stack-trace lines ("at …",
	// "Caused by:", native "#00 pc …").
	FlagStackTrace
	// FlagTruncated: the binary payload ended without the message's NUL
	// (logd cut a message that was too long).
	FlagTruncated
	// FlagRestarted: the entry's pid is a new process of an app the view
	// follows by package name (set by whoever routes entries).
	FlagRestarted
)

// Entry is one log record.
type Entry struct {
	// Seq is the entry's sequence number in its Ring (0 before Append).
	Seq uint64
	// Time is the device's wall clock when the entry was logged.
	Time     time.Time
	PID      int32
	TID      int32
	UID      int32 // -1 when the format does not carry it
	Buffer   LogID
	Priority Priority
	Tag      string
	Message  string
	// App is the package or process name that the pid belonged to, when
	// the reader knows it (routing sets it); "" otherwise.
	App   string
	Flags Flags
}

// Has reports whether every flag in f is set.
func (e *Entry) Has(f Flags) bool { return e.Flags&f == f }
