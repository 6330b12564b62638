//go:build unix

package config

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadRefusesNonRegularFiles: issue 30 #16. --config /dev/zero read 3 GiB
// before the size check, and a FIFO blocked. Only a regular file is read.
func TestLoadRefusesNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"/dev/zero": "not a regular file (a character device)",
		fifo:        "not a regular file (a named pipe)",
		dir:         "not a regular file (a directory)",
	}
	for path, want := range cases {
		done := make(chan error, 1)
		go func() { _, err := Load(path); done <- err }()
		select {
		case err := <-done:
			var ce *Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), path+": "+want) {
				t.Errorf("Load(%s) = %v, want %q", path, err, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("Load(%s) blocked", path)
		}
	}
}
