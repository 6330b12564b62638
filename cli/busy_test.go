package cli

import (
	"fmt"
	"net"
	"strings"
	"testing"
)

// A VM whose one JDWP connection another monitor or debugger holds closes
// each new one before the handshake: `views --pid` (and every command that
// looks for one VM) says it is busy rather than that no VM was found
// (issue 38 #16).
func TestVMLookupSaysBusy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close() // held elsewhere: closed before the handshake
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	_, _, err = runAppSplit(t, "views", "--pid", "1234", "--adb", "off", "--scan", fmt.Sprintf("%d-%d", port, port), "--wait", "700ms")
	want := fmt.Sprintf("pid 1234: busy: another monitor or debugger holds it (local:%d)", port)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want %q", err, want)
	}
}
