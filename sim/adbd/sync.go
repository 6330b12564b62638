package adbd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"path"
	"strings"
	"syscall"
)

// FileServer is what a Device implements to be served by sync: (STAT, LIST
// and RECV, v1 and v2 as adbd does). Files returns the device's files as an
// fs.FS whose names are absolute device paths without the leading "/"
// ("data/local/tmp/x.hprof"); "." is the root. An error wrapping
// fs.ErrPermission (or syscall.EACCES) is reported as "Permission denied",
// one wrapping fs.ErrNotExist as "No such file or directory".
type FileServer interface {
	Files() fs.FS
}

// DefaultFeatures is the feature list a daemon announces in its CNXN banner
// when Options.Features is nil: the sync v2 forms an Android 11+ adbd
// offers (stat_v2, ls_v2 from Android 8; sendrecv_v2 from Android 11).
var DefaultFeatures = []string{"stat_v2", "ls_v2", "sendrecv_v2"}

// Sync protocol constants (AOSP file_sync_protocol.h); see adb/sync.go for
// the byte layouts.
const (
	syncPathMax = 1024
	syncDataMax = 64 << 10
)

var (
	sidStat = [4]byte{'S', 'T', 'A', 'T'}
	sidSta2 = [4]byte{'S', 'T', 'A', '2'}
	sidLst2 = [4]byte{'L', 'S', 'T', '2'}
	sidList = [4]byte{'L', 'I', 'S', 'T'}
	sidLis2 = [4]byte{'L', 'I', 'S', '2'}
	sidDent = [4]byte{'D', 'E', 'N', 'T'}
	sidDnt2 = [4]byte{'D', 'N', 'T', '2'}
	sidRecv = [4]byte{'R', 'E', 'C', 'V'}
	sidRcv2 = [4]byte{'R', 'C', 'V', '2'}
	sidData = [4]byte{'D', 'A', 'T', 'A'}
	sidDone = [4]byte{'D', 'O', 'N', 'E'}
	sidFail = [4]byte{'F', 'A', 'I', 'L'}
	sidQuit = [4]byte{'Q', 'U', 'I', 'T'}
)

// streamReader reads what the host writes to a stream, acknowledging each
// WRTE once its data is taken.
type streamReader struct {
	st   *stream
	rest []byte
}

func (r *streamReader) Read(p []byte) (int, error) {
	for len(r.rest) == 0 {
		select {
		case data := <-r.st.inbound:
			if err := r.st.c.send(cmdOKAY, r.st.local, r.st.remote, nil); err != nil {
				return 0, err
			}
			r.rest = data
		case <-r.st.ctx.Done():
			return 0, io.EOF
		}
	}
	n := copy(p, r.rest)
	r.rest = r.rest[n:]
	return n, nil
}

// syncService serves sync: requests until QUIT, a failed RECV, or a
// request it cannot parse (adbd's file_sync_service loop).
func (c *conn) syncService(st *stream, fsys fs.FS) {
	defer st.close()
	if st.accept() != nil {
		return
	}
	r := &streamReader{st: st}
	w := streamWriter{st}
	var hdr [8]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return
		}
		id := [4]byte(hdr[:4])
		n := binary.LittleEndian.Uint32(hdr[4:])
		if n > syncPathMax {
			_ = syncFail(w, "path too long")
			return
		}
		p := make([]byte, n)
		if _, err := io.ReadFull(r, p); err != nil {
			return
		}
		name := string(p)
		c.log.Debug("adbd: sync request", "id", string(id[:]), "path", name)
		var err error
		switch id {
		case sidStat:
			err = syncStatV1(w, fsys, name)
		case sidSta2, sidLst2:
			err = syncStatV2(w, id, fsys, name)
		case sidList:
			err = syncList(w, fsys, name, false)
		case sidLis2:
			err = syncList(w, fsys, name, true)
		case sidRecv:
			if !syncRecv(w, fsys, name) {
				return
			}
		case sidRcv2:
			var setup [8]byte
			if _, err := io.ReadFull(r, setup[:]); err != nil {
				return
			}
			if flags := binary.LittleEndian.Uint32(setup[4:]); flags != 0 {
				_ = syncFail(w, fmt.Sprintf("unknown flags: %d", flags))
				return
			}
			if !syncRecv(w, fsys, name) {
				return
			}
		case sidQuit:
			return
		default:
			_ = syncFail(w, fmt.Sprintf("unknown command %08x", binary.LittleEndian.Uint32(id[:])))
			return
		}
		if err != nil {
			return
		}
	}
}

// fsName turns an absolute device path into an fs.FS name.
func fsName(p string) (string, bool) {
	if !strings.HasPrefix(p, "/") {
		return "", false
	}
	p = path.Clean(p)
	if p == "/" {
		return ".", true
	}
	p = strings.TrimPrefix(p, "/")
	return p, fs.ValidPath(p)
}

// errnoOf maps an fs error to the errno a device reports.
func errnoOf(err error) syscall.Errno {
	var e syscall.Errno
	switch {
	case errors.As(err, &e):
		return e
	case errors.Is(err, fs.ErrNotExist):
		return syscall.ENOENT
	case errors.Is(err, fs.ErrPermission):
		return syscall.EACCES
	}
	return syscall.EIO
}

func statFS(fsys fs.FS, p string) (fs.FileInfo, error) {
	name, ok := fsName(p)
	if !ok {
		return nil, syscall.ENOENT
	}
	return fs.Stat(fsys, name)
}

// unixMode converts an fs.FileMode to st_mode bits.
func unixMode(m fs.FileMode) uint32 {
	u := uint32(m.Perm())
	switch {
	case m.IsDir():
		u |= 0o040000
	case m&fs.ModeSymlink != 0:
		u |= 0o120000
	case m.IsRegular():
		u |= 0o100000
	default:
		u |= 0o010000 // FIFO, device files …: reported as such by a device
	}
	return u
}

// inode makes a stable inode number from the path.
func inode(p string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(p))
	return h.Sum64() >> 16
}

func syncStatV1(w io.Writer, fsys fs.FS, p string) error {
	b := make([]byte, 0, 16)
	b = append(b, sidStat[:]...)
	fi, err := statFS(fsys, p)
	if err != nil {
		b = append(b, make([]byte, 12)...) // adbd sends zeros when lstat fails
	} else {
		b = binary.LittleEndian.AppendUint32(b, unixMode(fi.Mode()))
		b = binary.LittleEndian.AppendUint32(b, uint32(fi.Size()))
		b = binary.LittleEndian.AppendUint32(b, uint32(fi.ModTime().Unix()))
	}
	_, err = w.Write(b)
	return err
}

// appendStatV2 appends the 68 bytes after an id: error, dev, ino, mode,
// nlink, uid, gid, size, atime, mtime, ctime. The simulated files belong
// to the shell user (2000), as those under /data/local/tmp do.
func appendStatV2(b []byte, p string, fi fs.FileInfo, errno syscall.Errno) []byte {
	le := binary.LittleEndian
	if fi == nil {
		b = le.AppendUint32(b, uint32(errno))
		return append(b, make([]byte, 64)...)
	}
	nlink := uint32(1)
	if fi.IsDir() {
		nlink = 2
	}
	t := uint64(fi.ModTime().Unix())
	b = le.AppendUint32(b, 0)
	b = le.AppendUint64(b, 0xfd00) // dev
	b = le.AppendUint64(b, inode(p))
	b = le.AppendUint32(b, unixMode(fi.Mode()))
	b = le.AppendUint32(b, nlink)
	b = le.AppendUint32(b, 2000)
	b = le.AppendUint32(b, 2000)
	b = le.AppendUint64(b, uint64(fi.Size()))
	b = le.AppendUint64(b, t)
	b = le.AppendUint64(b, t)
	return le.AppendUint64(b, t)
}

func syncStatV2(w io.Writer, id [4]byte, fsys fs.FS, p string) error {
	fi, err := statFS(fsys, p)
	b := append(make([]byte, 0, 72), id[:]...)
	if err != nil {
		b = appendStatV2(b, p, nil, errnoOf(err))
	} else {
		b = appendStatV2(b, p, fi, 0)
	}
	_, err = w.Write(b)
	return err
}

// syncList sends one DENT/DNT2 per entry ("." and ".." first, as readdir
// gives them) and DONE; a directory that cannot be read gives just DONE.
func syncList(w io.Writer, fsys fs.FS, p string, v2 bool) error {
	le := binary.LittleEndian
	var out []byte
	type ent struct {
		name string
		fi   fs.FileInfo
	}
	var ents []ent
	if name, ok := fsName(p); ok {
		if dir, err := fs.Stat(fsys, name); err == nil && dir.IsDir() {
			if list, err := fs.ReadDir(fsys, name); err == nil {
				ents = append(ents, ent{".", dir}, ent{"..", dir})
				for _, d := range list {
					fi, err := d.Info()
					if err != nil {
						fi = nil
					}
					ents = append(ents, ent{d.Name(), fi})
				}
			}
		}
	}
	for _, e := range ents {
		full := path.Join(p, e.name)
		if v2 {
			out = append(out, sidDnt2[:]...)
			if e.fi == nil {
				out = appendStatV2(out, full, nil, syscall.ENOENT)
			} else {
				out = appendStatV2(out, full, e.fi, 0)
			}
		} else {
			if e.fi == nil {
				continue // v1 leaves out entries lstat failed on
			}
			out = append(out, sidDent[:]...)
			out = le.AppendUint32(out, unixMode(e.fi.Mode()))
			out = le.AppendUint32(out, uint32(e.fi.Size()))
			out = le.AppendUint32(out, uint32(e.fi.ModTime().Unix()))
		}
		out = le.AppendUint32(out, uint32(len(e.name)))
		out = append(out, e.name...)
	}
	size := 20
	if v2 {
		size = 76
	}
	out = append(out, sidDone[:]...)
	out = append(out, make([]byte, size-4)...)
	_, err := w.Write(out)
	return err
}

// syncRecv sends the file in DATA blocks of at most 64 KiB and DONE, or a
// FAIL ("open failed: <strerror>"); it reports whether the service goes on.
func syncRecv(w io.Writer, fsys fs.FS, p string) bool {
	name, ok := fsName(p)
	var data []byte
	err := error(syscall.ENOENT)
	if ok {
		var fi fs.FileInfo
		if fi, err = fs.Stat(fsys, name); err == nil && fi.IsDir() {
			err = syscall.EISDIR
		} else if err == nil {
			data, err = fs.ReadFile(fsys, name)
		}
	}
	if err != nil {
		_ = syncFail(w, "open failed: "+strerror(errnoOf(err)))
		return false
	}
	le := binary.LittleEndian
	for len(data) > 0 {
		n := min(len(data), syncDataMax)
		b := append(sidData[:0:0], sidData[:]...)
		b = le.AppendUint32(b, uint32(n))
		b = append(b, data[:n]...)
		if _, err := w.Write(b); err != nil {
			return false
		}
		data = data[n:]
	}
	b := append(sidDone[:0:0], sidDone[:]...)
	b = le.AppendUint32(b, 0)
	_, err = w.Write(b)
	return err == nil
}

// strerror spells errnos as bionic does.
func strerror(e syscall.Errno) string {
	switch e {
	case syscall.ENOENT:
		return "No such file or directory"
	case syscall.EACCES:
		return "Permission denied"
	case syscall.EISDIR:
		return "Is a directory"
	}
	return e.Error()
}

func syncFail(w io.Writer, msg string) error {
	b := append(sidFail[:0:0], sidFail[:]...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(msg)))
	b = append(b, msg...)
	_, err := w.Write(b)
	return err
}
