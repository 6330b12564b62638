package monitor

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ddmtui/ddmtui/devicelog"
	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/record"
)

// A device log entry in a recording (kind log, docs/RECORDING.md). The
// record's key is empty: the log is a device's, not one VM's (a reader that
// predates log records skips keyless records). Its data is the device's
// name — the Source of its VMs, "adb:SERIAL" or "sim:SERIAL" — as a uvarint
// length and the bytes, then the entry as logd writes it for `logcat -B`,
// header v4: 28 little-endian bytes (payload length u16, header size u16 =
// 28, pid i32, tid i32, sec u32, nsec u32, log id u32, uid i32), then the
// priority byte, the tag and a NUL, the message and a NUL (no NUL after a
// message logd cut).

// maxLogDevice bounds a log record's device name.
const maxLogDevice = 256

// maxLogTag bounds the tag of a recorded entry; the message gets what is
// left of logd's 5 KiB entry.
const maxLogTag = 1024

// errLogSkipped: an entry the recording cannot hold (see appendLogRecord).
var errLogSkipped = errors.New("log entry not recordable")

// appendLogRecord appends the data of a log record for e on device. An
// entry longer than logd's limit (logcat.MaxEntryLen: only the text stream,
// which joins continuation lines, can bring one) is cut to it and marked
// truncated, as logd cuts what an app logs; a NUL in the tag or message
// (the text stream again) becomes U+FFFD. Entries of the binary event
// buffers (not among the buffers a device log reads), with a time outside
// the format's unsigned 32-bit seconds, or from a device with a name over
// maxLogDevice bytes, are not recordable.
func appendLogRecord(dst []byte, device string, e *logcat.Entry) ([]byte, error) {
	if len(device) > maxLogDevice {
		return dst, errLogSkipped
	}
	switch e.Buffer {
	case logcat.Events, logcat.Stats, logcat.Security:
		return dst, errLogSkipped
	}
	if sec := e.Time.Unix(); sec < 0 || sec > math.MaxUint32 {
		return dst, errLogSkipped
	}
	x := logcat.Entry{Time: e.Time, PID: e.PID, TID: e.TID, UID: e.UID, Buffer: e.Buffer, Priority: e.Priority,
		Tag: e.Tag, Message: e.Message, Flags: e.Flags & logcat.FlagTruncated}
	if strings.IndexByte(x.Tag, 0) >= 0 {
		x.Tag = strings.ReplaceAll(x.Tag, "\x00", "\uFFFD")
	}
	if strings.IndexByte(x.Message, 0) >= 0 {
		x.Message = strings.ReplaceAll(x.Message, "\x00", "\uFFFD")
	}
	x.Tag = cutUTF8(x.Tag, maxLogTag)
	// priority, tag, NUL, message, NUL
	room := logcat.MaxEntryLen - logcat.HeaderV4Size - 3 - len(x.Tag)
	if len(x.Message) > room {
		x.Message = cutUTF8(x.Message, room+1) // no NUL after a cut message
		x.Flags |= logcat.FlagTruncated
	}
	dst = binary.AppendUvarint(dst, uint64(len(device)))
	dst = append(dst, device...)
	return logcat.AppendBinary(dst, &x, logcat.HeaderV4Size)
}

// cutUTF8 returns s cut to at most n bytes, at a rune boundary.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// logRecordDevice returns the device name of a log record's data.
func logRecordDevice(data []byte) (device string, rest []byte, err error) {
	l, n := binary.Uvarint(data)
	if n <= 0 || l > maxLogDevice || l > uint64(len(data)-n) {
		return "", nil, errors.New("log record: device name")
	}
	return string(data[n : n+int(l)]), data[n+int(l):], nil
}

// decodeLogRecord reads a log record's data: the device and its entry,
// which must take the rest of the data exactly.
func decodeLogRecord(data []byte) (string, logcat.Entry, error) {
	device, rest, err := logRecordDevice(data)
	if err != nil {
		return "", logcat.Entry{}, err
	}
	e, n, err := logcat.DecodeBinary(rest, logcat.BinaryOptions{})
	if err != nil {
		return "", logcat.Entry{}, fmt.Errorf("log record: %w", err)
	}
	if n != len(rest) {
		return "", logcat.Entry{}, fmt.Errorf("log record: %d bytes after the entry", len(rest)-n)
	}
	return device, e, nil
}

// The device logs (devicelog.Logs) record their entries through this.
var _ devicelog.Recorder = (*Recorder)(nil)

// Log records an entry of device's log (the Source of its VMs), received
// at now; an entry the format cannot hold (see appendLogRecord) is left
// out. A nil Recorder records nothing.
func (r *Recorder) Log(now time.Time, device string, e *logcat.Entry) {
	if r == nil {
		return
	}
	var buf [512]byte
	data, err := appendLogRecord(buf[:0], device, e)
	if err != nil {
		return
	}
	r.add(now, record.KindLog, "", data)
}
