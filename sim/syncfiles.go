package sim

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"syscall"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/scan"
)

// SyncFiles is the device's files as adb's sync: service serves them
// (STAT and RECV on Files, with the service's path limit), for endpoints
// handed to the engine in-process (Endpoints): the monitor reads heap
// dumps and traces from them exactly as from a device behind adb.
func (d *Device) SyncFiles() scan.DeviceFiles { return syncFiles{d} }

type syncFiles struct{ d *Device }

// open finds path in a snapshot of the device's files.
func (f syncFiles) open(op, path string) (fs.File, fs.FileInfo, error) {
	if path == "" || len(path) > adb.SyncPathMax {
		return nil, nil, fmt.Errorf("adb: sync %s: %w: %d bytes", op, adb.ErrSyncPath, len(path))
	}
	name := strings.TrimPrefix(path, "/")
	file, err := f.d.Files().Open(name)
	if err != nil {
		return nil, nil, &adb.SyncError{Op: op, Path: path, Message: "open failed: No such file or directory", Errno: syscall.ENOENT}
	}
	fi, err := file.Stat()
	if err != nil {
		file.Close()
		return nil, nil, err
	}
	return file, fi, nil
}

func (f syncFiles) Stat(ctx context.Context, path string) (adb.FileInfo, error) {
	file, fi, err := f.open("stat", path)
	if err != nil {
		return adb.FileInfo{}, err
	}
	file.Close()
	mode := uint32(adb.ModeRegular)
	if fi.IsDir() {
		mode = adb.ModeDir
	}
	return adb.FileInfo{Mode: mode | uint32(fi.Mode().Perm()), Size: uint64(fi.Size()), MTime: fi.ModTime()}, nil
}

func (f syncFiles) PullTo(ctx context.Context, path string, w io.Writer, limit int64) (int64, error) {
	file, fi, err := f.open("recv", path)
	if err != nil {
		return 0, err
	}
	defer file.Close()
	if fi.IsDir() {
		return 0, &adb.SyncError{Op: "recv", Path: path, Message: "open failed: Is a directory", Errno: syscall.EISDIR}
	}
	if limit > 0 && fi.Size() > limit {
		return 0, fmt.Errorf("adb: sync recv %s: file exceeds %d bytes", path, limit)
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return io.Copy(w, file)
}
