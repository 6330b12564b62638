package devshell

import (
	"bytes"
	"strings"
	"testing"
)

// What the device prints is data: the parsers of it never panic, and what
// they keep stays within its bounds.
func FuzzDeviceOutput(f *testing.F) {
	f.Add([]byte("com.example.app\x00--flag\x00"), []byte("----- pid 7 at a -----\n----- end 7 -----\n"))
	f.Add([]byte("cat: /proc/9/cmdline: No such file or directory\n"), []byte(""))
	f.Add([]byte(strings.Repeat("\n", 10)+"x"), []byte("----- pid 7 "))
	f.Fuzz(func(t *testing.T, out, before []byte) {
		if name, ok := ParseCmdline(out); len(name) > MaxProcName || ok != (name != "") {
			t.Fatalf("ParseCmdline: %d bytes, %v", len(name), ok)
		}
		if l := FirstLine(out); len(l) > 120 || strings.ContainsRune(l, '\n') {
			t.Fatalf("FirstLine: %q", l)
		}
		marker := []byte("----- pid 7 ")
		if newDumpIn(out, before, marker, 7) && !bytes.Contains(out, []byte("----- end 7 -----")) {
			t.Fatal("a dump without its end line taken as new")
		}
		if name := FileName(string(out), "x"); CheckPath("/sdcard/"+name) != nil {
			t.Fatalf("FileName gave %q, which CheckPath refuses", name)
		}
	})
}
