package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadAtMaxSize: a file of exactly maxSize bytes is read; one byte more
// is refused with the limit named (docs/TESTING.md, "Mutation testing").
func TestLoadAtMaxSize(t *testing.T) {
	dir := t.TempDir()
	doc := "[ui]\nlog = \"-\"\n# "
	at := filepath.Join(dir, "at.toml")
	if err := os.WriteFile(at, []byte(doc+strings.Repeat("x", maxSize-len(doc)-1)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Load(at)
	if err != nil || f.UI.Log == nil || *f.UI.Log != "-" || len(f.text) != maxSize {
		t.Fatalf("a file of exactly %d bytes: %v", maxSize, err)
	}
	over := filepath.Join(dir, "over.toml")
	if err := os.WriteFile(over, []byte(doc+strings.Repeat("x", maxSize-len(doc))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(over); err == nil || err.Error() != over+": larger than 1048576 bytes" {
		t.Fatalf("a file of %d bytes: %v", maxSize+1, err)
	}
}

// TestFileKind: each kind of non-regular file by name, in the order the
// mode bits are tested (a character device is also a device); others by
// their mode string. Load cannot reach a socket on Linux (opening one fails
// with ENXIO), so the names are checked here.
func TestFileKind(t *testing.T) {
	for m, want := range map[os.FileMode]string{
		os.ModeDir:                        "a directory",
		os.ModeNamedPipe:                  "a named pipe",
		os.ModeDevice | os.ModeCharDevice: "a character device",
		os.ModeDevice:                     "a device",
		os.ModeSocket:                     "a socket",
		os.ModeIrregular:                  "?---------",
		os.ModeSymlink:                    "L---------",
	} {
		if got := fileKind(m); got != want {
			t.Errorf("fileKind(%v) = %q, want %q", m, got, want)
		}
	}
}
