package adb

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb/internal/adbmock"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// Tests for the boundaries and branches mutation testing found unchecked.

func TestParseDevicesErrorNamesLine(t *testing.T) {
	_, err := ParseDevices([]byte("a\tdevice\nb\tdevice\nbroken\n"))
	if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "device list line 3:") {
		t.Fatalf("got %v, want ErrProtocol naming line 3", err)
	}
	// An empty line is an error of its own, not glued to the next one.
	_, err = ParseDevices([]byte("\nserial\tdevice\n"))
	if !errors.Is(err, ErrProtocol) || !strings.Contains(err.Error(), "device list line 1:") {
		t.Fatalf("leading empty line: %v", err)
	}
}

func TestParseDevicesPropertyWords(t *testing.T) {
	for _, c := range []struct {
		in    string
		state string
		props map[string]string
	}{
		// Keys: lower case letters, '_', and digits after the first byte.
		{"S device abc:1 a09:2 z_:3 _x:4", "device", map[string]string{"abc": "1", "a09": "2", "z_": "3", "_x": "4"}},
		// A word whose key starts with a digit, or holds an upper-case
		// letter or punctuation, is still part of the state.
		{"S odd 9p:1 Ab:2 a-b:3 :4 k:5", "odd 9p:1 Ab:2 a-b:3 :4", map[string]string{"k": "5"}},
		{"S odd a/:1", "odd a/:1", map[string]string{}},
		// The first property word ends the state whatever follows it.
		{"S odd a0:1 Z:2", "odd", map[string]string{"a0": "1", "Z": "2"}},
		{"S odd a9:1", "odd", map[string]string{"a9": "1"}},
		{"S odd a:1", "odd", map[string]string{"a": "1"}},
		{"S odd z:1", "odd", map[string]string{"z": "1"}},
		{"S odd a{:1", "odd a{:1", map[string]string{}},
		{"S odd a`:1", "odd a`:1", map[string]string{}},
	} {
		got, err := ParseDevices([]byte(c.in + "\n"))
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		want := []Device{{Serial: "S", State: c.state, Properties: c.props}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got  %#v\n want %#v", c.in, got, want)
		}
	}
}

func TestParsePIDsRejectsZeroAndNamesLine(t *testing.T) {
	for _, in := range []string{"-0\n", "1\n-0\n"} {
		if got, err := ParsePIDs([]byte(in)); !errors.Is(err, ErrProtocol) || got != nil {
			t.Errorf("%q: %v, %v; want ErrProtocol", in, got, err)
		}
	}
	_, err := ParsePIDs([]byte("1\n2\nx\n"))
	if err == nil || !strings.Contains(err.Error(), "pid list line 3:") {
		t.Fatalf("got %v, want line 3", err)
	}
}

func TestDefaultServerAddrEmptyHost(t *testing.T) {
	t.Setenv("ADB_SERVER_SOCKET", "tcp::7002")
	// "tcp::PORT" names no host: the address is the local system's.
	if got, err := DefaultServerAddr(); err != nil || got != ":7002" {
		t.Fatalf("got %q, %v; want \":7002\"", got, err)
	}
}

func TestNegativeDialTimeoutUsesDefault(t *testing.T) {
	leakcheck.Check(t)
	_, c := serve(t, false, func(c *adbmock.Conn, req string) { c.Write([]byte("OKAY00040029")) })
	c.DialTimeout = -time.Second
	if v, err := c.Version(ctxT(t)); err != nil || v != 41 {
		t.Fatalf("version %d, %v; want 41", v, err)
	}
}

func TestDevicesReplyAtMaxReply(t *testing.T) {
	leakcheck.Check(t)
	list, want := longFormat(20)
	_, c := serve(t, false, func(c *adbmock.Conn, req string) {
		c.Okay()
		c.Reply(list)
	})
	c.MaxReply = len(list)
	got, err := c.Devices(ctxT(t))
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("list of exactly MaxReply bytes: %d devices, %v", len(got), err)
	}
}

func TestOpenJDWPRejectsPidZero(t *testing.T) {
	leakcheck.Check(t)
	srv, c := serve(t, false, func(c *adbmock.Conn, req string) { c.Okay() })
	for _, pid := range []int{0, -1} {
		if _, err := c.OpenJDWP(ctxT(t), "SER", pid); err == nil || !strings.Contains(err.Error(), "invalid pid") {
			t.Fatalf("pid %d: %v", pid, err)
		}
	}
	if r := srv.Requests(); len(r) != 0 {
		t.Fatalf("requests sent for an invalid pid: %q", r)
	}
}

func TestShellOutputAtLimit(t *testing.T) {
	leakcheck.Check(t)
	srv := adbmock.Start(t, transportScript(map[string]func(*adbmock.Conn){
		"shell:ten": func(c *adbmock.Conn) { c.Write([]byte("0123456789")) },
	}))
	c := &Client{Addr: srv.Addr(), MaxShellOutput: 10}
	if out, err := c.Shell(ctxT(t), "SER", "ten"); err != nil || string(out) != "0123456789" {
		t.Fatalf("output of exactly MaxShellOutput: %q, %v", out, err)
	}
	c.MaxShellOutput = 9
	if out, err := c.Shell(ctxT(t), "SER", "ten"); err == nil || string(out) != "012345678" {
		t.Fatalf("output above MaxShellOutput: %q, %v", out, err)
	}
}

func TestKillForwardFails(t *testing.T) {
	leakcheck.Check(t)
	_, c := serve(t, false, func(c *adbmock.Conn, req string) {
		switch req {
		case "host-serial:SER:killforward:tcp:1":
			c.Fail("listener 'tcp:1' not found")
		case "host-serial:SER:killforward:tcp:2":
			c.Write([]byte("OKAYFAIL0006nope!!"))
		}
	})
	var fe *Error
	if err := c.KillForward(ctxT(t), "SER", "tcp:1"); !errors.As(err, &fe) || fe.Message != "listener 'tcp:1' not found" {
		t.Fatalf("first status FAIL: %v", err)
	}
	if err := c.KillForward(ctxT(t), "SER", "tcp:2"); !errors.As(err, &fe) || fe.Message != "nope!!" {
		t.Fatalf("second status FAIL: %v", err)
	}
	if err := c.KillForward(ctxT(t), "", "tcp:1"); err == nil {
		t.Fatal("empty serial accepted")
	}
}

func TestStartServerEnvironmentAndOutputBound(t *testing.T) {
	leakcheck.Check(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	t.Setenv("ADB_SERVER_SOCKET", "tcp:1")
	t.Setenv("ANDROID_ADB_SERVER_PORT", "2")
	t.Setenv("DDMTUI_MUTATION_KEPT", "yes")
	dir := t.TempDir()
	script := filepath.Join(dir, "adb")
	envFile := filepath.Join(dir, "env")
	long := strings.Repeat("x", 600)
	os.WriteFile(script, []byte("#!/bin/sh\nenv > "+envFile+"\necho "+long+"\nexit 1\n"), 0o755)
	c := &Client{Addr: addr, ADBPath: script, ServerEnv: []string{"ADB_EMU=0"}}
	_, err = c.EnsureServer(ctxT(t))
	if err == nil || !strings.HasSuffix(err.Error(), ": "+strings.Repeat("x", 512)) {
		t.Fatalf("error does not end in the first 512 bytes of output: %v", err)
	}
	b, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	env := "\n" + string(b)
	for _, kv := range []string{"DDMTUI_MUTATION_KEPT=yes", "ADB_EMU=0"} {
		if !strings.Contains(env, "\n"+kv+"\n") {
			t.Errorf("%s missing from adb's environment", kv)
		}
	}
	for _, k := range []string{"ADB_SERVER_SOCKET=", "ANDROID_ADB_SERVER_PORT="} {
		if strings.Contains(env, "\n"+k) {
			t.Errorf("%s passed to adb", k)
		}
	}
}

func TestSyncErrorTextFromErrno(t *testing.T) {
	err := &SyncError{Op: "stat", Path: "/x", Errno: syscall.ENOENT}
	if got, want := err.Error(), "adb: sync stat /x: "+syscall.ENOENT.Error(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	err = &SyncError{Op: "list", Path: "/y"}
	if got := err.Error(); got != "adb: sync list /y: " {
		t.Errorf("got %q", got)
	}
	if err.Unwrap() != nil {
		t.Errorf("Unwrap without errno: %v", err.Unwrap())
	}
}

func TestSyncCloseSendsQuitOnce(t *testing.T) {
	host, dev := net.Pipe()
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(dev)
		got <- string(b)
	}()
	s := NewSync(host, nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if b := <-got; b != "QUIT\x00\x00\x00\x00" {
		t.Fatalf("Close sent %q, want QUIT", b)
	}
	if _, err := s.Stat(context.Background(), "/x"); err == nil {
		t.Fatal("Stat after Close succeeded")
	}

	// A stream already broken gets no QUIT.
	host, dev = net.Pipe()
	go func() {
		b, _ := io.ReadAll(dev)
		got <- string(b)
	}()
	s = NewSync(host, nil)
	s.broken = errors.New("broken")
	s.Close()
	if b := <-got; b != "" {
		t.Fatalf("Close of a broken stream sent %q", b)
	}
}

func TestSyncPeerCloseIsNotDeadline(t *testing.T) {
	host, dev := net.Pipe()
	go func() {
		req := make([]byte, 8+2)
		io.ReadFull(dev, req)
		dev.Close()
	}()
	s := NewSync(host, nil)
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := s.Stat(ctx, "/x")
	if err == nil || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("device closed the stream: %v, want an error that is not DeadlineExceeded", err)
	}
	if s.broken == nil {
		t.Fatal("stream not marked broken after the device closed it")
	}
}

func TestSplitOneShotMessages(t *testing.T) {
	for in, want := range map[string]string{
		"":        "reply of 0 bytes has no length prefix",
		"00":      "reply of 2 bytes has no length prefix",
		"000":     "reply of 3 bytes has no length prefix",
		"0005":    `length prefix "0005" does not match the 0 bytes that follow`,
		"0002abc": `length prefix "0002" does not match the 3 bytes that follow`,
	} {
		_, err := splitOneShot([]byte(in))
		if !errors.Is(err, ErrProtocol) || !strings.HasSuffix(err.Error(), ": "+want) {
			t.Errorf("%q: %v, want …%s", in, err, want)
		}
	}
}

func TestServerPortBounds(t *testing.T) {
	t.Setenv("ADB_SERVER_SOCKET", "")
	t.Setenv("ANDROID_ADB_SERVER_ADDRESS", "")
	for port, want := range map[string]string{"1": "127.0.0.1:1", "65535": "127.0.0.1:65535", "0": "", "65536": ""} {
		t.Setenv("ANDROID_ADB_SERVER_PORT", port)
		got, err := DefaultServerAddr()
		if got != want || (err == nil) != (want != "") {
			t.Errorf("port %s: %q, %v; want %q", port, got, err, want)
		}
	}
}
