//go:build ignore

// seed writes one Go fuzz corpus file: go run scripts/seed.go DIR NAME HEX [HEX...]
// Each HEX argument is one []byte parameter (or i:N for an int parameter).
package main

import (
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: go run scripts/seed.go DIR NAME HEX [HEX|i:N ...]")
		os.Exit(2)
	}
	dir, name := os.Args[1], os.Args[2]
	var sb strings.Builder
	sb.WriteString("go test fuzz v1\n")
	for _, a := range os.Args[3:] {
		if n, ok := strings.CutPrefix(a, "i:"); ok {
			fmt.Fprintf(&sb, "int(%s)\n", n)
			continue
		}
		b, err := hex.DecodeString(strings.ReplaceAll(a, " ", ""))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Fprintf(&sb, "[]byte(%q)\n", b)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(sb.String()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
