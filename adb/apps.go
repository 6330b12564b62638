package adb

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
)

// track-app (spec/adb-track-app.md): since Android 12 (API 31) adbd lists
// every debuggable or profileable process with its flags, and from Android
// 15 its name, packages, user and whether it waits for a debugger. Each
// message is hex4-framed like track-jdwp's, but its payload is a binary
// protobuf AppProcesses message, decoded here by hand (protobuf.go).

// AppProcess is one process of a track-app message (ProcessEntry). Strings
// come from the device: escape them before showing them.
type AppProcess struct {
	PID         int
	Debuggable  bool // has JDWP: listed by track-jdwp, reachable with jdwp:PID
	Profileable bool // the shell may profile it (<profileable android:shell="true"/>)
	// Architecture is "arm64", "arm", "x86_64" or "x86"; "" when not sent.
	Architecture string

	// Android 15+ (adbd feature app_info): each Has… says the device sent
	// the field (proto3 optional: sent whenever set, even when 0 or false).
	HasUserID          bool
	UserID             int64
	ProcessName        string
	PackageNames       []string
	HasWaiting         bool
	WaitingForDebugger bool
	HasUID             bool
	UID                int64
}

// AppList is one decoded track-app message: the processes listed, sorted by
// pid with one entry per pid, and a line for every entry left out.
type AppList struct {
	Processes []AppProcess
	// Dropped says which entries were left out and why (a pid of 0 or
	// less, an entry that does not decode, a pid listed twice); at most
	// maxDropped lines, the last counting the rest.
	Dropped []string
}

// ProcessEntry and AppProcesses field numbers (app_processes.proto).
const (
	fieldProcess      = 1 // AppProcesses.process
	fieldPID          = 1
	fieldDebuggable   = 2
	fieldProfileable  = 3
	fieldArchitecture = 4
	fieldUserID       = 5
	fieldProcessName  = 6
	fieldPackageNames = 7
	fieldWaiting      = 8
	fieldUID          = 9
)

// maxDropped bounds AppList.Dropped.
const maxDropped = 8

// ParseAppProcesses decodes the payload of one track-app message. Unknown
// fields are skipped. An entry that does not decode, or whose pid is not a
// pid (0, negative, above 2^31-1), is left out with a line in Dropped and
// the others are kept; a message whose own framing is broken (a truncated
// key or a length past its end between entries) is an error wrapping
// ErrProtocol.
func ParseAppProcesses(b []byte) (AppList, error) {
	var list AppList
	dropped := 0
	drop := func(format string, args ...any) {
		dropped++
		if dropped < maxDropped {
			list.Dropped = append(list.Dropped, fmt.Sprintf(format, args...))
		}
	}
	r := pbReader{b: b}
	for n := 1; !r.done(); {
		at := r.off
		field, wire, err := r.key()
		if err != nil {
			return AppList{}, fmt.Errorf("%w: track-app message: %v", ErrProtocol, err)
		}
		if field != fieldProcess || wire != pbBytes {
			if err := r.skip(field, wire); err != nil {
				return AppList{}, fmt.Errorf("%w: track-app message: %v", ErrProtocol, err)
			}
			continue
		}
		body, err := r.bytes("process")
		if err != nil {
			return AppList{}, fmt.Errorf("%w: track-app message: %v", ErrProtocol, err)
		}
		p, err := parseProcessEntry(body)
		switch {
		case err != nil:
			drop("process entry %d (offset %d): %v", n, at, err)
		case p.PID <= 0:
			drop("process entry %d (offset %d): pid %d is not a pid", n, at, p.PID)
		default:
			list.Processes = append(list.Processes, p)
		}
		n++
	}
	slices.SortStableFunc(list.Processes, func(a, b AppProcess) int { return a.PID - b.PID })
	out := list.Processes[:0]
	for i, p := range list.Processes {
		if i > 0 && p.PID == list.Processes[i-1].PID {
			drop("pid %d listed twice; the first entry is kept", p.PID)
			continue
		}
		out = append(out, p)
	}
	list.Processes = out
	if dropped >= maxDropped {
		list.Dropped = append(list.Dropped, fmt.Sprintf("%d more entries left out", dropped-len(list.Dropped)))
	}
	return list, nil
}

// parseProcessEntry decodes one ProcessEntry. A pid outside int64 → int is
// reported through PID ≤ 0 (it cannot be a pid either way).
func parseProcessEntry(b []byte) (AppProcess, error) {
	var p AppProcess
	r := pbReader{b: b}
	varint := func(field uint64, wire int) (uint64, error) {
		if err := r.checkWire(field, wire, pbVarint); err != nil {
			return 0, err
		}
		return r.varint(fmt.Sprintf("field %d", field))
	}
	str := func(field uint64, wire int) (string, error) {
		if err := r.checkWire(field, wire, pbBytes); err != nil {
			return "", err
		}
		v, err := r.bytes(fmt.Sprintf("field %d", field))
		return string(v), err
	}
	for !r.done() {
		field, wire, err := r.key()
		if err != nil {
			return p, err
		}
		var v uint64
		switch field {
		case fieldPID:
			if v, err = varint(field, wire); err == nil {
				pid := int64(v)
				if pid > maxPID || pid < -maxPID {
					pid = -1
				}
				p.PID = int(pid)
			}
		case fieldDebuggable:
			v, err = varint(field, wire)
			p.Debuggable = v != 0
		case fieldProfileable:
			v, err = varint(field, wire)
			p.Profileable = v != 0
		case fieldArchitecture:
			p.Architecture, err = str(field, wire)
		case fieldUserID:
			v, err = varint(field, wire)
			p.HasUserID, p.UserID = true, int64(v)
		case fieldProcessName:
			p.ProcessName, err = str(field, wire)
		case fieldPackageNames:
			var name string
			if name, err = str(field, wire); err == nil {
				p.PackageNames = append(p.PackageNames, name)
			}
		case fieldWaiting:
			v, err = varint(field, wire)
			p.HasWaiting, p.WaitingForDebugger = true, v != 0
		case fieldUID:
			v, err = varint(field, wire)
			p.HasUID, p.UID = true, int64(v)
		default:
			err = r.skip(field, wire)
		}
		if err != nil {
			return p, err
		}
	}
	return p, nil
}

// AppendAppProcess appends one ProcessEntry message (without its key) as
// adbd writes it: proto3 leaves out pid 0 and false or empty flags and
// architecture, the optional fields are written when their Has… is set
// (ProcessName when not empty).
func AppendAppProcess(b []byte, p AppProcess) []byte {
	if p.PID != 0 {
		b = pbAppendInt(b, fieldPID, int64(p.PID))
	}
	if p.Debuggable {
		b = pbAppendInt(b, fieldDebuggable, 1)
	}
	if p.Profileable {
		b = pbAppendInt(b, fieldProfileable, 1)
	}
	if p.Architecture != "" {
		b = pbAppendBytes(b, fieldArchitecture, []byte(p.Architecture))
	}
	if p.HasUserID {
		b = pbAppendInt(b, fieldUserID, p.UserID)
	}
	if p.ProcessName != "" {
		b = pbAppendBytes(b, fieldProcessName, []byte(p.ProcessName))
	}
	for _, n := range p.PackageNames {
		b = pbAppendBytes(b, fieldPackageNames, []byte(n))
	}
	if p.HasWaiting {
		w := int64(0)
		if p.WaitingForDebugger {
			w = 1
		}
		b = pbAppendInt(b, fieldWaiting, w)
	}
	if p.HasUID {
		b = pbAppendInt(b, fieldUID, p.UID)
	}
	return b
}

// AppendAppProcesses appends an AppProcesses message listing ps.
func AppendAppProcesses(b []byte, ps []AppProcess) []byte {
	for _, p := range ps {
		b = pbAppendBytes(b, fieldProcess, AppendAppProcess(nil, p))
	}
	return b
}

// skipError marks a message a tracker leaves out without ending the
// stream: the error is reported and the last state stays.
type skipError struct{ err error }

func (e skipError) Error() string { return e.err.Error() }
func (e skipError) Unwrap() error { return e.err }

// maxAppSkip bounds the bytes of an oversize track-app message that are
// read past to stay in step with the stream; a longer one ends the stream.
const maxAppSkip = 64 << 20

// readAppFrame reads one track-app frame from br: a hex length, then that
// many payload bytes. adbd formats the length with "%04zx", which prints
// more than four digits for a payload above 0xffff (adbd caps its own at
// 0xffff, so only a broken peer sends one); such a prefix never starts
// with '0'. After four digits that do not start with '0', further hex
// digits are taken as part of the length: the payload's first byte is a
// protobuf key, 0x0a for AppProcesses' only field, never an ASCII hex
// digit (those would be keys of fields 6 and 12, which AppProcesses does
// not have). A payload above maxLen is read past without being kept (up
// to maxAppSkip bytes) and reported as a skipError; the stream goes on.
func readAppFrame(br *bufio.Reader, maxLen int) ([]byte, error) {
	var h [maxHexDigits]byte
	if _, err := io.ReadFull(br, h[:4]); err != nil {
		return nil, fmt.Errorf("reading length: %w", err)
	}
	digits := 4
	for h[0] != '0' && digits < maxHexDigits {
		c, err := br.Peek(1)
		if err != nil {
			break // the payload's absence shows when it is read
		}
		if _, ok := hexValue(c[0]); !ok {
			break
		}
		h[digits], _ = br.ReadByte()
		digits++
	}
	n, err := parseHex(h[:digits])
	if err != nil {
		return nil, err
	}
	if n > maxLen {
		if n > maxAppSkip {
			return nil, protocolErrorf("track-app message of %d bytes exceeds the bound of %d", n, maxLen)
		}
		if _, err := br.Discard(n); err != nil {
			return nil, fmt.Errorf("reading past a %d-byte message: %w", n, noEOF(err))
		}
		return nil, skipError{protocolErrorf("track-app message of %d bytes exceeds the bound of %d; left out, the last list stays", n, maxLen)}
	}
	return readBounded(br, nil, n, maxLen)
}

// TrackApp follows the debuggable and profileable processes of a device
// (track-app, Android 12+): the first update is the list when the stream
// opens, then the complete list again on every change. A device that does
// not offer track-app (before Android 12) makes the server answer FAIL
// ("closed"), returned as an *Error: use TrackJDWP there.
//
// A message that does not decode, or is longer than MaxReply, is left out
// and reported to warn (when not nil) on the tracker's goroutine; the
// stream goes on and the last list stays. Entries left out of a message
// that decodes are in its AppList.Dropped.
func (c *Client) TrackApp(ctx context.Context, serial string, warn func(error)) (*Tracker[AppList], error) {
	nc, err := c.OpenTransport(ctx, serial, "track-app")
	if err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(nc, 4096)
	read := func(_ io.Reader, maxLen int) ([]byte, error) { return readAppFrame(br, maxLen) }
	parse := func(b []byte) (AppList, error) {
		l, err := ParseAppProcesses(b)
		if err != nil {
			return l, skipError{err}
		}
		return l, nil
	}
	return startTracker(ctx, "track-app", nc, c.maxReply(), read, parse, warn), nil
}

// IsRefused reports whether err is the server's FAIL for a device service
// the device does not offer (the device closed the stream).
func IsRefused(err error) bool {
	var fe *Error
	return errors.As(err, &fe)
}
