package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadBoundsTheRead: a file over the limit is refused, and a missing
// file is still os.ErrNotExist.
func TestLoadBoundsTheRead(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.toml")
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", maxSize)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big); err == nil || !strings.Contains(err.Error(), "larger than 1048576 bytes") {
		t.Errorf("big file: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "none.toml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	ok := filepath.Join(dir, "ok.toml")
	if err := os.WriteFile(ok, []byte("[ui]\nmouse = true\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.toml")
	if err := os.Symlink(ok, link); err != nil {
		t.Fatal(err)
	}
	f, err := Load(link)
	if err != nil || f.UI.Mouse == nil || !*f.UI.Mouse {
		t.Fatalf("a symlink to a regular file: %v", err)
	}
}
