package scan

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb"
)

func TestADBStatus(t *testing.T) {
	a := &ADB{Client: &adb.Client{Addr: "127.0.0.1:5999"}}
	for _, c := range []struct {
		state   string
		devices int
		want    string
	}{
		{"", 0, "adb 127.0.0.1:5999: connecting"},
		{"connected", 0, "adb 127.0.0.1:5999: 0 devices"},
		{"connected", 1, "adb 127.0.0.1:5999: 1 device"},
		{"connected", 2, "adb 127.0.0.1:5999: 2 devices"},
		{"unreachable (retrying)", 0, "adb 127.0.0.1:5999: unreachable (retrying)"},
	} {
		a.setState(c.state, c.devices)
		if got := a.Status(); got != c.want {
			t.Errorf("state %q, %d devices: %q, want %q", c.state, c.devices, got, c.want)
		}
	}
}

func TestADBNameDefault(t *testing.T) {
	t.Setenv("ADB_SERVER_SOCKET", "")
	t.Setenv("ANDROID_ADB_SERVER_ADDRESS", "")
	t.Setenv("ANDROID_ADB_SERVER_PORT", "6123")
	if got := (&ADB{Client: &adb.Client{}}).Name(); got != "127.0.0.1:6123" {
		t.Errorf("Name() = %q", got)
	}
	t.Setenv("ANDROID_ADB_SERVER_PORT", "bad")
	if got := (&ADB{Client: &adb.Client{}}).Name(); got != "adb" {
		t.Errorf("Name() with a bad port = %q, want \"adb\"", got)
	}
}

// A required server that does not answer fails Run at once (before any
// retry), naming it.
func TestADBRequiredUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	a := &ADB{Client: &adb.Client{Addr: addr}, Required: true, Retry: time.Hour} // no second try
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = a.Run(ctx, func(context.Context, Endpoint) error { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), "adb server "+addr+": ") || !errors.Is(err, adb.ErrServerUnreachable) {
		t.Fatalf("got %v", err)
	}
	if got := a.Status(); got != "adb "+addr+": unreachable (retrying)" {
		t.Errorf("status %q", got)
	}
}

// A zero Retry means one second between attempts: within 300 ms a server
// that fails every request is asked once.
func TestADBDefaultRetry(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	a := &ADB{Client: &adb.Client{Addr: ln.Addr().String()}}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, func(context.Context, Endpoint) error { return nil }) }()
	accepted := 0
	for {
		// Accept until Run has returned and no connection is left waiting.
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			done = nil
		default:
		}
		ln.(*net.TCPListener).SetDeadline(time.Now().Add(50 * time.Millisecond))
		c, err := ln.Accept()
		if err != nil {
			if done == nil {
				break
			}
			continue
		}
		accepted++
		c.Close()
	}
	if accepted != 1 {
		t.Fatalf("server asked %d times within 300 ms, want once (retry after 1 s)", accepted)
	}
}
