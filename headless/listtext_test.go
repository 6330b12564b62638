package headless

import (
	"bytes"
	"strings"
	"testing"
)

// list's text table says yes/no in the DDM column, as the dashboard does
// (issue 29 #15: it printed true/false), and puts failed endpoints after it.
func TestWriteListText(t *testing.T) {
	var b bytes.Buffer
	port := 8600
	err := WriteListText(&b, []ListEntry{
		{Source: "local:8000", PID: 12, App: "com.a", VM: "Dalvik v2.1.0", DDM: true, Debugger: "none", DebugPort: &port},
		{Source: "local:8001", PID: 13, App: "jvm\x1b]0;x\x07", VM: "OpenJDK", DDM: false, Debugger: "none"},
		{Source: "local:8002", Error: "jdwp: handshake: unexpected EOF"},
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	if f := strings.Fields(lines[1]); len(f) < 7 || f[5] != "yes" || f[7] != "8600" {
		t.Errorf("DDM VM row %q", lines[1])
	}
	if f := strings.Fields(lines[2]); len(f) < 6 || f[4] != "no" || f[len(f)-1] != "-" {
		t.Errorf("non-DDM VM row %q", lines[2])
	}
	if strings.Contains(b.String(), "\x1b") || strings.Contains(b.String(), "true") || strings.Contains(b.String(), "false") {
		t.Errorf("escape or true/false in the table:\n%q", b.String())
	}
	if lines[3] != "failed: local:8002: jdwp: handshake: unexpected EOF" {
		t.Errorf("failed line %q", lines[3])
	}
}
