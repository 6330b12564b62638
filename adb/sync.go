package adb

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"slices"
	"strings"
	"syscall"
	"time"
)

// The sync: service (AOSP adb SYNC.TXT and file_sync_protocol.h): after
// host:transport and "sync:" the stream carries binary requests, each a
// 4-byte id, a little-endian u32 length and that many bytes of path (at most
// 1024). Replies, all little-endian:
//
//	STAT (v1)  "STAT" mode u32, size u32, mtime u32            — all zero: no such file
//	STA2/LST2  id u32, error u32, dev u64, ino u64, mode u32, nlink u32,
//	           uid u32, gid u32, size u64, atime i64, mtime i64, ctime i64 (72 bytes)
//	LIST (v1)  "DENT" mode, size, mtime, namelen u32, name … then a DONE of the same 20 bytes
//	LIS2       "DNT2" the STA2 fields + namelen u32, name … then a DONE of the same 76 bytes
//	RECV/RCV2  "DATA" len u32 (≤ 64 KiB) + bytes … then "DONE" u32 0
//	any        "FAIL" len u32 + message; the device then closes the stream after a failed RECV
//
// RCV2 sends a second 8-byte message after the request: "RCV2" flags u32
// (0: no compression). The v2 forms are used only when the device's feature
// list (host-serial:S:features) names stat_v2, ls_v2 or sendrecv_v2. QUIT
// ends the service.

// Sync feature names in a device's feature list.
const (
	FeatureStatV2     = "stat_v2"
	FeatureLsV2       = "ls_v2"
	FeatureSendRecvV2 = "sendrecv_v2"
)

// Sync protocol limits (file_sync_protocol.h).
const (
	// SyncPathMax is the longest path a sync request may carry.
	SyncPathMax = 1024
	// SyncDataMax is the largest DATA block a device sends.
	SyncDataMax = 64 << 10
	// syncNameMax bounds a directory entry's name (NAME_MAX is 255; some
	// file systems allow more bytes in UTF-8, so leave room).
	syncNameMax = 4096
	// syncFailMax bounds a FAIL message.
	syncFailMax = 64 << 10
	// DefaultListMax bounds the entries LIST returns.
	DefaultListMax = 100000
)

// sync ids as they appear on the wire.
var (
	idStat = [4]byte{'S', 'T', 'A', 'T'}
	idSta2 = [4]byte{'S', 'T', 'A', '2'}
	idList = [4]byte{'L', 'I', 'S', 'T'}
	idLis2 = [4]byte{'L', 'I', 'S', '2'}
	idDent = [4]byte{'D', 'E', 'N', 'T'}
	idDnt2 = [4]byte{'D', 'N', 'T', '2'}
	idRecv = [4]byte{'R', 'E', 'C', 'V'}
	idRcv2 = [4]byte{'R', 'C', 'V', '2'}
	idData = [4]byte{'D', 'A', 'T', 'A'}
	idDone = [4]byte{'D', 'O', 'N', 'E'}
	idFail = [4]byte{'F', 'A', 'I', 'L'}
	idQuit = [4]byte{'Q', 'U', 'I', 'T'}
)

// Sizes of the fixed reply records, id included.
const (
	statV1Size = 16
	statV2Size = 72
	dentV1Size = 20
	dentV2Size = 76
)

// FileInfo is what STAT (or a LIST entry) says about a device file. The
// fields after MTime are filled only by the v2 forms.
type FileInfo struct {
	Mode  uint32 // st_mode: type bits and permissions
	Size  uint64
	MTime time.Time
	V2    bool
	Dev   uint64
	Ino   uint64
	NLink uint32
	UID   uint32
	GID   uint32
	ATime time.Time
	CTime time.Time
}

// Unix file type bits of FileInfo.Mode.
const (
	ModeTypeMask = 0o170000
	ModeDir      = 0o040000
	ModeRegular  = 0o100000
	ModeSymlink  = 0o120000
)

// IsDir reports a directory.
func (fi FileInfo) IsDir() bool { return fi.Mode&ModeTypeMask == ModeDir }

// IsRegular reports a regular file.
func (fi FileInfo) IsRegular() bool { return fi.Mode&ModeTypeMask == ModeRegular }

// DirEntry is one LIST entry. Err is set (v2 only) when the device could
// not stat the entry.
type DirEntry struct {
	Name string
	FileInfo
	Err error
}

// SyncError is a failure the device's sync service reported: a FAIL message
// (Message), or a v2 stat error number (Errno). errors.Is(err,
// fs.ErrNotExist) and fs.ErrPermission work on it.
type SyncError struct {
	Op      string // "stat", "list", "recv"
	Path    string
	Message string
	Errno   syscall.Errno
}

func (e *SyncError) Error() string {
	msg := e.Message
	if msg == "" && e.Errno != 0 {
		msg = e.Errno.Error()
	}
	return fmt.Sprintf("adb: sync %s %s: %s", e.Op, e.Path, msg)
}

// Unwrap gives the errno, when one is known, so that errors.Is matches
// fs.ErrNotExist and fs.ErrPermission.
func (e *SyncError) Unwrap() error {
	if e.Errno != 0 {
		return e.Errno
	}
	return nil
}

// errnoFromMessage recognises the strerror text a device appends to FAIL
// messages ("open failed: No such file or directory"). Bionic capitalises
// what Go's Errno strings spell in lower case, so the match ignores case.
func errnoFromMessage(msg string) syscall.Errno {
	lower := strings.ToLower(msg)
	for _, e := range []syscall.Errno{syscall.ENOENT, syscall.EACCES, syscall.EPERM, syscall.EISDIR, syscall.ENOTDIR} {
		if strings.HasSuffix(lower, ": "+strings.ToLower(e.Error())) {
			return e
		}
	}
	return 0
}

// Sync is one open sync: service on a device. Requests run one at a time;
// a Sync is not safe for concurrent use. After a protocol error, a failed
// RECV or a cancelled request it is broken and every call fails; Close it.
type Sync struct {
	nc     net.Conn
	statV2 bool
	listV2 bool
	recvV2 bool
	broken error
	// ListMax bounds the entries of one List; zero means DefaultListMax.
	ListMax int
}

// NewSync wraps a stream on which "sync:" was accepted. features is the
// device's feature list: the v2 forms are used where it offers them.
func NewSync(nc net.Conn, features []string) *Sync {
	return &Sync{
		nc:     nc,
		statV2: slices.Contains(features, FeatureStatV2),
		listV2: slices.Contains(features, FeatureLsV2),
		recvV2: slices.Contains(features, FeatureSendRecvV2),
	}
}

// Versions reports which requests use the v2 forms.
func (s *Sync) Versions() (stat, list, recv bool) { return s.statV2, s.listV2, s.recvV2 }

// Features returns the device's feature list (host-serial:S:features, or
// host:features for the only device when serial is empty). adb servers
// answer with the features both they and the device support.
func (c *Client) Features(ctx context.Context, serial string) ([]string, error) {
	req := "host:features"
	if serial != "" {
		req = "host-serial:" + serial + ":features"
	}
	msg, err := c.query(ctx, req, c.timeout())
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range strings.Split(strings.TrimSpace(msg), ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out, nil
}

// OpenSync asks for the device's features and opens its sync: service.
func (c *Client) OpenSync(ctx context.Context, serial string) (*Sync, error) {
	feats, err := c.Features(ctx, serial)
	if err != nil {
		return nil, err
	}
	nc, err := c.OpenTransport(ctx, serial, "sync:")
	if err != nil {
		var ae *Error
		if errors.As(err, &ae) {
			return nil, fmt.Errorf("%w: %w", ErrSyncUnavailable, err)
		}
		return nil, err
	}
	return NewSync(nc, feats), nil
}

// Close sends QUIT and closes the stream.
func (s *Sync) Close() error {
	if s.broken == nil {
		_ = s.nc.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = s.nc.Write(appendSyncRequest(nil, idQuit, ""))
	}
	s.broken = errors.New("adb: sync: closed")
	return s.nc.Close()
}

// begin arms ctx's cancellation on the stream for one request.
func (s *Sync) begin(ctx context.Context) (func(), error) {
	if s.broken != nil {
		return nil, s.broken
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = s.nc.SetDeadline(dl)
	} else {
		_ = s.nc.SetDeadline(time.Time{})
	}
	stop := context.AfterFunc(ctx, func() { _ = s.nc.SetDeadline(time.Unix(1, 0)) })
	return func() { stop() }, nil
}

// fail marks the stream broken unless err is a device-reported failure
// after which the service goes on (a STAT/LIST error).
func (s *Sync) fail(ctx context.Context, err error, keep bool) error {
	cerr := ctx.Err()
	if dl, ok := ctx.Deadline(); ok && cerr == nil && !time.Now().Before(dl) {
		// The stream's deadline (ctx's) fired before ctx's own timer.
		cerr = context.DeadlineExceeded
	}
	if cerr != nil && !keep {
		err = fmt.Errorf("%w (%w)", cerr, err)
	}
	if !keep {
		s.broken = fmt.Errorf("adb: sync: unusable after an earlier error: %w", err)
	}
	return err
}

func appendSyncRequest(b []byte, id [4]byte, path string) []byte {
	b = append(b, id[:]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(path)))
	return append(b, path...)
}

// ErrSyncPath is wrapped by the error for a path the sync: service cannot
// carry (empty, or longer than SyncPathMax): the path, not the service, is
// at fault, so no other way of reading it should be tried.
var ErrSyncPath = errors.New("path not accepted by the sync: service")

// ErrSyncUnavailable is wrapped by OpenSync's error when the device refuses
// the sync: service itself (the adb server answers FAIL): the only case in
// which reading a file another way makes sense.
var ErrSyncUnavailable = errors.New("the device refuses the sync: service")

func checkSyncPath(op, path string) error {
	if path == "" || len(path) > SyncPathMax {
		return fmt.Errorf("adb: sync %s: %w: %d bytes (must be 1..%d)", op, ErrSyncPath, len(path), SyncPathMax)
	}
	return nil
}

// Stat returns what the device knows of path (following symlinks with v2;
// v1 devices give lstat). A missing file is a *SyncError that matches
// fs.ErrNotExist (v1 cannot tell "missing" from "not readable").
func (s *Sync) Stat(ctx context.Context, path string) (FileInfo, error) {
	if err := checkSyncPath("stat", path); err != nil {
		return FileInfo{}, err
	}
	done, err := s.begin(ctx)
	if err != nil {
		return FileInfo{}, err
	}
	defer done()
	id := idStat
	if s.statV2 {
		id = idSta2
	}
	if _, err := s.nc.Write(appendSyncRequest(nil, id, path)); err != nil {
		return FileInfo{}, s.fail(ctx, fmt.Errorf("adb: sync stat %s: %w", path, err), false)
	}
	fi, err := readStatReply(s.nc, id, path)
	if err != nil {
		var se *SyncError
		keep := errors.As(err, &se) && se.Op == "stat" && se.Message == ""
		return FileInfo{}, s.fail(ctx, err, keep)
	}
	return fi, nil
}

// readStatReply decodes the reply to a STAT (id idStat) or STA2/LST2.
func readStatReply(r io.Reader, id [4]byte, path string) (FileInfo, error) {
	size := statV1Size
	if id != idStat {
		size = statV2Size
	}
	var b [statV2Size]byte
	if _, err := io.ReadFull(r, b[:4]); err != nil {
		return FileInfo{}, fmt.Errorf("adb: sync stat %s: %w", path, noEOF(err))
	}
	if [4]byte(b[:4]) == idFail {
		return FileInfo{}, readSyncFail(r, "stat", path)
	}
	if [4]byte(b[:4]) != id {
		return FileInfo{}, fmt.Errorf("adb: sync stat %s: %w", path, protocolErrorf("reply %q to %s", b[:4], id[:]))
	}
	if _, err := io.ReadFull(r, b[4:size]); err != nil {
		return FileInfo{}, fmt.Errorf("adb: sync stat %s: %w", path, noEOF(err))
	}
	le := binary.LittleEndian
	if id == idStat {
		fi := FileInfo{Mode: le.Uint32(b[4:]), Size: uint64(le.Uint32(b[8:])), MTime: time.Unix(int64(le.Uint32(b[12:])), 0)}
		if fi.Mode == 0 && fi.Size == 0 && le.Uint32(b[12:]) == 0 {
			return FileInfo{}, &SyncError{Op: "stat", Path: path, Errno: syscall.ENOENT}
		}
		return fi, nil
	}
	fi, errno := decodeStatV2(b[4:size])
	if errno != 0 {
		return FileInfo{}, &SyncError{Op: "stat", Path: path, Errno: errno}
	}
	return fi, nil
}

// decodeStatV2 decodes the 68 bytes after a STA2/DNT2 id.
func decodeStatV2(b []byte) (FileInfo, syscall.Errno) {
	le := binary.LittleEndian
	errno := syscall.Errno(le.Uint32(b[0:]))
	return FileInfo{
		V2:    true,
		Dev:   le.Uint64(b[4:]),
		Ino:   le.Uint64(b[12:]),
		Mode:  le.Uint32(b[20:]),
		NLink: le.Uint32(b[24:]),
		UID:   le.Uint32(b[28:]),
		GID:   le.Uint32(b[32:]),
		Size:  le.Uint64(b[36:]),
		ATime: time.Unix(int64(le.Uint64(b[44:])), 0),
		MTime: time.Unix(int64(le.Uint64(b[52:])), 0),
		CTime: time.Unix(int64(le.Uint64(b[60:])), 0),
	}, errno
}

// readSyncFail reads a FAIL's length and message (its id already read).
func readSyncFail(r io.Reader, op, path string) error {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return fmt.Errorf("adb: sync %s %s: reading FAIL: %w", op, path, noEOF(err))
	}
	l := binary.LittleEndian.Uint32(n[:])
	if l > syncFailMax {
		return fmt.Errorf("adb: sync %s %s: %w", op, path, protocolErrorf("FAIL message of %d bytes (limit %d)", l, syncFailMax))
	}
	msg := make([]byte, l)
	if _, err := io.ReadFull(r, msg); err != nil {
		return fmt.Errorf("adb: sync %s %s: reading FAIL: %w", op, path, noEOF(err))
	}
	m := string(msg)
	return &SyncError{Op: op, Path: path, Message: m, Errno: errnoFromMessage(m)}
}

// List returns the entries of the directory path ("." and ".." included,
// as the device lists them). A missing or unreadable directory gives an
// empty list on every Android version (the device just sends DONE).
func (s *Sync) List(ctx context.Context, path string) ([]DirEntry, error) {
	if err := checkSyncPath("list", path); err != nil {
		return nil, err
	}
	done, err := s.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	id := idList
	if s.listV2 {
		id = idLis2
	}
	if _, err := s.nc.Write(appendSyncRequest(nil, id, path)); err != nil {
		return nil, s.fail(ctx, fmt.Errorf("adb: sync list %s: %w", path, err), false)
	}
	max := s.ListMax
	if max <= 0 {
		max = DefaultListMax
	}
	var out []DirEntry
	err = readListReply(s.nc, s.listV2, path, max, func(e DirEntry) { out = append(out, e) })
	if err != nil {
		return nil, s.fail(ctx, err, false)
	}
	return out, nil
}

// readListReply decodes DENT/DNT2 entries up to the DONE record, calling
// fn for each; more than max entries is an error.
func readListReply(r io.Reader, v2 bool, path string, max int, fn func(DirEntry)) error {
	want, size := idDent, dentV1Size
	if v2 {
		want, size = idDnt2, dentV2Size
	}
	var b [dentV2Size]byte
	var name []byte
	for n := 0; ; n++ {
		if _, err := io.ReadFull(r, b[:4]); err != nil {
			return fmt.Errorf("adb: sync list %s: %w", path, noEOF(err))
		}
		id := [4]byte(b[:4])
		if id == idFail {
			return readSyncFail(r, "list", path)
		}
		if id != want && id != idDone {
			return fmt.Errorf("adb: sync list %s: %w", path, protocolErrorf("record %q", b[:4]))
		}
		if _, err := io.ReadFull(r, b[4:size]); err != nil {
			return fmt.Errorf("adb: sync list %s: %w", path, noEOF(err))
		}
		if id == idDone {
			return nil
		}
		if n >= max {
			return fmt.Errorf("adb: sync list %s: more than %d entries", path, max)
		}
		nameLen := binary.LittleEndian.Uint32(b[size-4:])
		if nameLen > syncNameMax {
			return fmt.Errorf("adb: sync list %s: %w", path, protocolErrorf("name of %d bytes (limit %d)", nameLen, syncNameMax))
		}
		name = slices.Grow(name[:0], int(nameLen))[:nameLen]
		if _, err := io.ReadFull(r, name); err != nil {
			return fmt.Errorf("adb: sync list %s: %w", path, noEOF(err))
		}
		e := DirEntry{Name: string(name)}
		if v2 {
			var errno syscall.Errno
			e.FileInfo, errno = decodeStatV2(b[4:72])
			if errno != 0 {
				e.Err = errno
			}
		} else {
			le := binary.LittleEndian
			e.FileInfo = FileInfo{Mode: le.Uint32(b[4:]), Size: uint64(le.Uint32(b[8:])), MTime: time.Unix(int64(le.Uint32(b[12:])), 0)}
		}
		fn(e)
	}
}

// Recv copies the device file path to w, at most limit bytes (limit ≤ 0:
// no limit), and returns the bytes written. A file larger than limit is an
// error and leaves the Sync broken.
func (s *Sync) Recv(ctx context.Context, path string, w io.Writer, limit int64) (int64, error) {
	if err := checkSyncPath("recv", path); err != nil {
		return 0, err
	}
	done, err := s.begin(ctx)
	if err != nil {
		return 0, err
	}
	defer done()
	var req []byte
	if s.recvV2 {
		req = appendSyncRequest(nil, idRcv2, path)
		req = append(req, idRcv2[:]...)
		req = binary.LittleEndian.AppendUint32(req, 0) // no compression
	} else {
		req = appendSyncRequest(nil, idRecv, path)
	}
	if _, err := s.nc.Write(req); err != nil {
		return 0, s.fail(ctx, fmt.Errorf("adb: sync recv %s: %w", path, err), false)
	}
	n, err := readRecvReply(s.nc, w, path, limit)
	if err != nil {
		// The device closes the service after a failed RECV.
		return n, s.fail(ctx, err, false)
	}
	return n, nil
}

// readRecvReply copies DATA blocks to w until DONE.
func readRecvReply(r io.Reader, w io.Writer, path string, limit int64) (int64, error) {
	var hdr [8]byte
	buf := make([]byte, 0, 4096)
	var total int64
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return total, fmt.Errorf("adb: sync recv %s: %w", path, noEOF(err))
		}
		id := [4]byte(hdr[:4])
		l := binary.LittleEndian.Uint32(hdr[4:])
		switch id {
		case idDone:
			return total, nil
		case idFail:
			return total, readSyncFail(io.MultiReader(bytes.NewReader(hdr[4:]), r), "recv", path)
		case idData:
		default:
			return total, fmt.Errorf("adb: sync recv %s: %w", path, protocolErrorf("record %q", hdr[:4]))
		}
		if l > SyncDataMax {
			return total, fmt.Errorf("adb: sync recv %s: %w", path, protocolErrorf("DATA block of %d bytes (limit %d)", l, SyncDataMax))
		}
		if limit > 0 && total+int64(l) > limit {
			return total, fmt.Errorf("adb: sync recv %s: file exceeds %d bytes", path, limit)
		}
		if cap(buf) < int(l) {
			buf = make([]byte, 0, min(SyncDataMax, max(int(l), 2*cap(buf))))
		}
		b := buf[:l]
		if _, err := io.ReadFull(r, b); err != nil {
			return total, fmt.Errorf("adb: sync recv %s: %w", path, noEOF(err))
		}
		if _, err := w.Write(b); err != nil {
			return total, fmt.Errorf("adb: sync recv %s: writing: %w", path, err)
		}
		total += int64(l)
	}
}

// Pull reads the device file path whole (at most limit bytes; limit ≤ 0:
// no limit) through a new sync: stream.
func (c *Client) Pull(ctx context.Context, serial, path string, limit int64) ([]byte, error) {
	var out bytes.Buffer
	if _, err := c.PullTo(ctx, serial, path, &out, limit); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// PullTo copies the device file path to w as it arrives (at most limit
// bytes; limit ≤ 0: no limit) through a new sync: stream, and returns the
// bytes written. ctx bounds the whole transfer.
func (c *Client) PullTo(ctx context.Context, serial, path string, w io.Writer, limit int64) (int64, error) {
	if err := checkSyncPath("recv", path); err != nil {
		return 0, err
	}
	s, err := c.OpenSync(ctx, serial)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	return s.Recv(ctx, path, w, limit)
}

// Stat stats one device file through a new sync: stream.
func (c *Client) Stat(ctx context.Context, serial, path string) (FileInfo, error) {
	s, err := c.OpenSync(ctx, serial)
	if err != nil {
		return FileInfo{}, err
	}
	defer s.Close()
	return s.Stat(ctx, path)
}

// IsNotExist reports an error that says the device file does not exist.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
