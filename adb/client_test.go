package adb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb/internal/adbmock"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// serve answers each request with a fixed reply script: handler gets the
// first request and writes what it wants.
func serve(t *testing.T, split bool, answer func(c *adbmock.Conn, req string)) (*adbmock.Server, *Client) {
	srv := adbmock.Start(t, func(c *adbmock.Conn) {
		c.Split = split
		req, err := c.ReadRequest()
		if err != nil {
			return
		}
		answer(c, req)
	})
	return srv, &Client{Addr: srv.Addr()}
}

func TestVersion(t *testing.T) {
	leakcheck.Check(t)
	for _, split := range []bool{false, true} {
		_, c := serve(t, split, func(c *adbmock.Conn, req string) {
			if req == "host:version" {
				c.Write([]byte("OKAY00040029"))
			}
		})
		v, err := c.Version(ctxT(t))
		if err != nil || v != 41 {
			t.Fatalf("split=%v: version %d, %v; want 41", split, v, err)
		}
	}
}

func TestFailIsTypedError(t *testing.T) {
	leakcheck.Check(t)
	_, c := serve(t, true, func(c *adbmock.Conn, req string) { c.Fail("unknown host service") })
	_, err := c.Version(ctxT(t))
	var fe *Error
	if !errors.As(err, &fe) || fe.Op != "host:version" || fe.Message != "unknown host service" {
		t.Fatalf("got %v, want *Error{host:version, unknown host service}", err)
	}
	if err.Error() != "adb: host:version: unknown host service" {
		t.Errorf("message %q", err)
	}
}

func TestServerUnreachable(t *testing.T) {
	leakcheck.Check(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c := &Client{Addr: addr}
	if _, err := c.Version(ctxT(t)); !errors.Is(err, ErrServerUnreachable) {
		t.Fatalf("got %v, want ErrServerUnreachable", err)
	}
	if _, err := c.TrackDevices(ctxT(t)); !errors.Is(err, ErrServerUnreachable) {
		t.Fatalf("track: got %v, want ErrServerUnreachable", err)
	}
}

// longFormat returns a devices-l list of n devices.
func longFormat(n int) (string, []Device) {
	var b strings.Builder
	var devs []Device
	for i := range n {
		serial := fmt.Sprintf("127.0.0.1:%d", 10000+i)
		fmt.Fprintf(&b, "%-22s %s product:sim%d model:DDM_Sim device:ddmsim transport_id:%d\n", serial, "device", i, i+1)
		devs = append(devs, Device{Serial: serial, State: "device", Properties: map[string]string{
			"product": fmt.Sprintf("sim%d", i), "model": "DDM_Sim", "device": "ddmsim", "transport_id": fmt.Sprint(i + 1)}})
	}
	return b.String(), devs
}

func TestDevicesLongLists(t *testing.T) {
	leakcheck.Check(t)
	for _, n := range []int{0, 1, 4, 900, 1200} { // 4 devices > 255 bytes; 900 ≈ 88 KiB; 1200 > 64 KiB twice
		for _, split := range []bool{false, true} {
			list, want := longFormat(n)
			_, c := serve(t, split, func(c *adbmock.Conn, req string) {
				if req == "host:devices-l" {
					c.Okay()
					c.Reply(list)
				}
			})
			got, err := c.Devices(ctxT(t))
			if err != nil {
				t.Fatalf("%d devices (%d bytes): %v", n, len(list), err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%d devices (%d bytes): got %d devices", n, len(list), len(got))
			}
		}
	}
}

func TestDevicesBounded(t *testing.T) {
	leakcheck.Check(t)
	list, _ := longFormat(100)
	_, c := serve(t, false, func(c *adbmock.Conn, req string) {
		c.Okay()
		c.Reply(list)
	})
	c.MaxReply = 1000
	if _, err := c.Devices(ctxT(t)); !errors.Is(err, ErrProtocol) {
		t.Fatalf("reply above MaxReply: %v, want ErrProtocol", err)
	}
	// A length prefix that does not match what follows.
	_, c = serve(t, false, func(c *adbmock.Conn, req string) {
		c.Write([]byte("OKAY0040a\tdevice\n"))
	})
	if _, err := c.Devices(ctxT(t)); !errors.Is(err, ErrProtocol) {
		t.Fatalf("short reply: %v, want ErrProtocol", err)
	}
}

// trackScript answers host:track-devices-l and then writes each list
// received on lists; when lists is closed it closes the connection (the
// server dying mid-track).
func trackScript(lists <-chan string) func(c *adbmock.Conn) {
	return func(c *adbmock.Conn) {
		req, err := c.ReadRequest()
		if err != nil || req != "host:track-devices-l" {
			c.Fail("unexpected " + req)
			return
		}
		c.Okay()
		for {
			select {
			case l, ok := <-lists:
				if !ok || c.Reply(l) != nil {
					return
				}
			case <-c.Closing():
				return
			}
		}
	}
}

// listsOf returns a channel holding lists, not closed.
func listsOf(lists ...string) chan string {
	ch := make(chan string, len(lists)+1)
	for _, l := range lists {
		ch <- l
	}
	return ch
}

// next receives one update or fails after a few seconds.
func next[T any](t *testing.T, tr *Tracker[T]) (T, bool) {
	t.Helper()
	select {
	case v, ok := <-tr.Updates():
		return v, ok
	case <-time.After(5 * time.Second):
		t.Fatal("no update within 5s")
		panic("unreachable")
	}
}

func TestTrackDevicesAndServerDeath(t *testing.T) {
	leakcheck.Check(t)
	big, bigWant := longFormat(1000) // > 64 KiB: a five-digit length prefix
	lists := []string{"", "127.0.0.1:5556         offline\n", "127.0.0.1:5556         device product:p model:m device:d transport_id:1\n", big}
	feed := make(chan string)
	srv := adbmock.Start(t, trackScript(feed))
	c := &Client{Addr: srv.Addr()}
	tr, err := c.TrackDevices(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var got [][]Device
	for len(got) < len(lists) {
		feed <- lists[len(got)]
		v, ok := next(t, tr)
		if !ok {
			t.Fatalf("tracker ended after %d updates: %v", len(got), tr.Err())
		}
		got = append(got, v)
	}
	if len(got[0]) != 0 || got[1][0].State != "offline" || !got[2][0].Online() || got[2][0].Properties["model"] != "m" {
		t.Fatalf("updates %+v", got[:3])
	}
	if !reflect.DeepEqual(got[3], bigWant) {
		t.Fatalf("big list: %d devices", len(got[3]))
	}
	if tr.Err() != nil {
		t.Fatalf("Err while running: %v", tr.Err())
	}
	close(feed) // the server dies
	if _, ok := next(t, tr); ok {
		t.Fatal("update after the server died")
	}
	if err := tr.Err(); !errors.Is(err, ErrStreamEnded) {
		t.Fatalf("Err = %v, want ErrStreamEnded", err)
	}
}

func TestTrackDevicesServerRestart(t *testing.T) {
	leakcheck.Check(t)
	srv := adbmock.Start(t, trackScript(listsOf("a\tdevice\n")))
	addr := srv.Addr()
	c := &Client{Addr: addr}
	tr, err := c.TrackDevices(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := next(t, tr); len(v) != 1 {
		t.Fatalf("first server: %v", v)
	}
	srv.Close()
	if _, ok := next(t, tr); ok || !errors.Is(tr.Err(), ErrStreamEnded) {
		t.Fatalf("after the server died: ok=%v err=%v", ok, tr.Err())
	}
	tr.Close()
	if _, err := c.TrackDevices(ctxT(t)); !errors.Is(err, ErrServerUnreachable) {
		t.Fatalf("while down: %v, want ErrServerUnreachable", err)
	}
	adbmock.StartAt(t, addr, trackScript(listsOf("a\tdevice\nb\tdevice\n")))
	tr2, err := c.TrackDevices(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tr2.Close()
	if v, _ := next(t, tr2); len(v) != 2 {
		t.Fatalf("restarted server: %v", v)
	}
}

func TestTrackerCancelAndClose(t *testing.T) {
	leakcheck.Check(t)
	srv := adbmock.Start(t, func(c *adbmock.Conn) {
		c.ReadRequest()
		c.Write([]byte("OKAY0009a\tdevice\n"))
		c.WaitClosed(10 * time.Second)
	})
	c := &Client{Addr: srv.Addr()}

	ctx, cancel := context.WithCancel(context.Background())
	tr, err := c.TrackDevices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next(t, tr)
	cancel()
	if _, ok := next(t, tr); ok {
		t.Fatal("update after cancel")
	}
	if !errors.Is(tr.Err(), context.Canceled) {
		t.Fatalf("Err after cancel = %v", tr.Err())
	}

	tr, err = c.TrackDevices(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	next(t, tr)
	tr.Close()
	if _, ok := <-tr.Updates(); ok || tr.Err() != nil {
		t.Fatalf("after Close: ok=%v err=%v", ok, tr.Err())
	}
}

func TestTrackerCoalesces(t *testing.T) {
	leakcheck.Check(t)
	var lists []string
	for i := 1; i <= 200; i++ {
		lists = append(lists, deviceList(i))
	}
	srv := adbmock.Start(t, trackScript(listsOf(lists...)))
	c := &Client{Addr: srv.Addr()}
	tr, err := c.TrackDevices(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	// Take nothing until the server has written everything: the reader
	// must not have blocked on us, and the newest list must arrive.
	time.Sleep(300 * time.Millisecond)
	n := 0
	for {
		v, ok := next(t, tr)
		if !ok {
			t.Fatal(tr.Err())
		}
		n++
		if len(v) == 200 {
			break
		}
	}
	if n > 3 {
		t.Errorf("took %d updates to reach the newest list; stale ones were not replaced", n)
	}
}

func TestTrackDevicesShortFallback(t *testing.T) {
	leakcheck.Check(t)
	srv := adbmock.Start(t, func(c *adbmock.Conn) {
		req, _ := c.ReadRequest()
		if req != "host:track-devices" {
			c.Fail("unknown host service")
			return
		}
		c.Okay()
		c.Reply("emulator-5554\tdevice\n")
		c.WaitClosed(10 * time.Second)
	})
	tr, err := (&Client{Addr: srv.Addr()}).TrackDevices(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if v, ok := next(t, tr); !ok || len(v) != 1 || v[0].Serial != "emulator-5554" {
		t.Fatalf("got %v (%v)", v, tr.Err())
	}
	if got := srv.Requests(); !reflect.DeepEqual(got, []string{"host:track-devices-l", "host:track-devices"}) {
		t.Fatalf("requests %q", got)
	}
}

func TestTrackerServerDiesMidMessage(t *testing.T) {
	leakcheck.Check(t)
	srv := adbmock.Start(t, func(c *adbmock.Conn) {
		c.ReadRequest()
		c.Write([]byte("OKAY0010emulator-55"))
	})
	tr, err := (&Client{Addr: srv.Addr()}).TrackDevices(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, ok := next(t, tr); ok || !errors.Is(tr.Err(), ErrStreamEnded) {
		t.Fatalf("ok=%v err=%v, want ErrStreamEnded", ok, tr.Err())
	}
}

func TestTrackerProtocolError(t *testing.T) {
	leakcheck.Check(t)
	srv := adbmock.Start(t, func(c *adbmock.Conn) {
		c.ReadRequest()
		c.Write([]byte("OKAY0004abcd"))
		c.WaitClosed(5 * time.Second)
	})
	tr, err := (&Client{Addr: srv.Addr()}).TrackDevices(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, ok := next(t, tr); ok || !errors.Is(tr.Err(), ErrProtocol) {
		t.Fatalf("ok=%v err=%v, want ErrProtocol", ok, tr.Err())
	}
}

// transportScript plays a server with one device "SER" whose services are
// given: the handler gets the connection after both OKAYs.
func transportScript(services map[string]func(c *adbmock.Conn)) func(c *adbmock.Conn) {
	return func(c *adbmock.Conn) {
		req, err := c.ReadRequest()
		if err != nil {
			return
		}
		if req != "host:transport:SER" {
			c.Fail("device '" + strings.TrimPrefix(req, "host:transport:") + "' not found")
			return
		}
		c.Okay()
		svc, err := c.ReadRequest()
		if err != nil {
			return
		}
		h, ok := services[svc]
		if !ok {
			c.Fail("closed")
			return
		}
		c.Okay()
		h(c)
	}
}

func TestTrackJDWP(t *testing.T) {
	leakcheck.Check(t)
	srv := adbmock.Start(t, transportScript(map[string]func(*adbmock.Conn){
		"track-jdwp": func(c *adbmock.Conn) {
			c.Split = true
			c.Write([]byte("000a4242\n4251\n"))
			c.Write([]byte("00054242\n"))
			c.Write([]byte("0000"))
			// then the device goes away
		},
	}))
	c := &Client{Addr: srv.Addr()}
	tr, err := c.TrackJDWP(ctxT(t), "SER")
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	want := [][]int{{4242, 4251}, {4242}, nil}
	for i, w := range want {
		v, ok := next(t, tr)
		if !ok || !reflect.DeepEqual(v, w) {
			// Coalescing may skip a state only if we were slow; at this
			// pace each arrives, and the order must hold.
			t.Fatalf("update %d: %v (ok=%v, err=%v), want %v", i, v, ok, tr.Err(), w)
		}
	}
	if _, ok := next(t, tr); ok || !errors.Is(tr.Err(), ErrStreamEnded) {
		t.Fatalf("end: ok=%v err=%v", ok, tr.Err())
	}

	_, err = c.TrackJDWP(ctxT(t), "OTHER")
	var fe *Error
	if !errors.As(err, &fe) || fe.Message != "device 'OTHER' not found" {
		t.Fatalf("unknown device: %v", err)
	}
}

func TestOpenJDWPAndShell(t *testing.T) {
	leakcheck.Check(t)
	payload := bytes.Repeat([]byte("0123456789abcdef"), 1<<14) // 256 KiB
	srv := adbmock.Start(t, transportScript(map[string]func(*adbmock.Conn){
		"jdwp:42": func(c *adbmock.Conn) { io.Copy(c.Raw(), c.Raw()) },
		"shell:cat /data/anr/traces.txt": func(c *adbmock.Conn) {
			c.Split = true
			c.Write([]byte("----- pid 42 at 2024 -----\n"))
		},
		"shell:yes": func(c *adbmock.Conn) { c.Write(bytes.Repeat([]byte("y\n"), 5000)) },
	}))
	c := &Client{Addr: srv.Addr()}
	ctx := ctxT(t)

	nc, err := c.OpenJDWP(ctx, "SER", 42)
	if err != nil {
		t.Fatal(err)
	}
	go nc.Write(payload)
	got := make([]byte, len(payload))
	if _, err := io.ReadFull(nc, got); err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("echo through jdwp stream: %v", err)
	}
	nc.Close()

	_, err = c.OpenJDWP(ctx, "SER", 43)
	var fe *Error
	if !errors.As(err, &fe) || fe.Op != "jdwp:43" || fe.Message != "closed" {
		t.Fatalf("refused pid: %v", err)
	}

	out, err := c.Shell(ctx, "SER", "cat /data/anr/traces.txt")
	if err != nil || string(out) != "----- pid 42 at 2024 -----\n" {
		t.Fatalf("shell: %q, %v", out, err)
	}
	c.MaxShellOutput = 1000
	if _, err := c.Shell(ctx, "SER", "yes"); err == nil || !strings.Contains(err.Error(), "exceeds 1000 bytes") {
		t.Fatalf("unbounded shell output: %v", err)
	}
	if _, err := c.Shell(ctx, "SER", ""); err == nil {
		t.Fatal("empty shell command accepted")
	}
}

func TestConnectDisconnectForward(t *testing.T) {
	leakcheck.Check(t)
	_, c := serve(t, true, func(c *adbmock.Conn, req string) {
		switch req {
		case "host:connect:127.0.0.1:6001":
			c.Okay()
			c.Reply("connected to 127.0.0.1:6001")
		case "host:connect:127.0.0.1:6002":
			c.Okay()
			c.Reply("already connected to 127.0.0.1:6002")
		case "host:connect:127.0.0.1:6003":
			c.Okay()
			c.Reply("failed to connect to '127.0.0.1:6003': Connection refused")
		case "host:disconnect:127.0.0.1:6001":
			c.Okay()
			c.Reply("disconnected 127.0.0.1:6001")
		case "host:disconnect:127.0.0.1:6003":
			c.Fail("no such device '127.0.0.1:6003'")
		case "host-serial:SER:forward:tcp:0;jdwp:42":
			c.Write([]byte("OKAYOKAY000541234"))
		case "host-serial:SER:forward:tcp:8700;jdwp:42":
			c.Write([]byte("OKAYOKAY"))
		case "host-serial:SER:forward:tcp:8701;jdwp:42":
			c.Write([]byte("OKAYFAIL000ccannot bind!"))
		case "host-serial:SER:killforward:tcp:8700":
			c.Write([]byte("OKAYOKAY"))
		default:
			c.Fail("unknown host service")
		}
	})
	ctx := ctxT(t)
	if msg, err := c.Connect(ctx, "127.0.0.1:6001"); err != nil || msg != "connected to 127.0.0.1:6001" {
		t.Errorf("connect: %q, %v", msg, err)
	}
	if msg, err := c.Connect(ctx, "127.0.0.1:6002"); err != nil || !strings.HasPrefix(msg, "already") {
		t.Errorf("connect again: %q, %v", msg, err)
	}
	var fe *Error
	if _, err := c.Connect(ctx, "127.0.0.1:6003"); !errors.As(err, &fe) || !strings.Contains(fe.Message, "Connection refused") {
		t.Errorf("failed connect: %v", err)
	}
	if msg, err := c.Disconnect(ctx, "127.0.0.1:6001"); err != nil || msg != "disconnected 127.0.0.1:6001" {
		t.Errorf("disconnect: %q, %v", msg, err)
	}
	if _, err := c.Disconnect(ctx, "127.0.0.1:6003"); !errors.As(err, &fe) {
		t.Errorf("disconnect unknown: %v", err)
	}
	if got, err := c.Forward(ctx, "SER", "tcp:0", "jdwp:42"); err != nil || got != "tcp:41234" {
		t.Errorf("forward tcp:0: %q, %v", got, err)
	}
	if got, err := c.Forward(ctx, "SER", "tcp:8700", "jdwp:42"); err != nil || got != "tcp:8700" {
		t.Errorf("forward tcp:8700: %q, %v", got, err)
	}
	if _, err := c.Forward(ctx, "SER", "tcp:8701", "jdwp:42"); !errors.As(err, &fe) || fe.Message != "cannot bind!" {
		t.Errorf("failed forward: %v", err)
	}
	if err := c.KillForward(ctx, "SER", "tcp:8700"); err != nil {
		t.Errorf("killforward: %v", err)
	}
}

func TestContextAndTimeout(t *testing.T) {
	leakcheck.Check(t)
	srv := adbmock.Start(t, func(c *adbmock.Conn) {
		c.ReadRequest()
		c.WaitClosed(10 * time.Second) // never answers
	})
	c := &Client{Addr: srv.Addr()}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start := time.Now()
	_, err := c.Devices(ctx)
	if !errors.Is(err, context.Canceled) || time.Since(start) > 3*time.Second {
		t.Fatalf("cancelled: %v after %v", err, time.Since(start))
	}

	c.Timeout = 150 * time.Millisecond
	start = time.Now()
	_, err = c.Version(context.Background())
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || time.Since(start) > 3*time.Second {
		t.Fatalf("timeout: %v after %v", err, time.Since(start))
	}
}

func TestDefaultServerAddr(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
		ok   bool
	}{
		{map[string]string{}, "127.0.0.1:5037", true},
		{map[string]string{"ANDROID_ADB_SERVER_PORT": "15037"}, "127.0.0.1:15037", true},
		{map[string]string{"ANDROID_ADB_SERVER_PORT": "0"}, "", false},
		{map[string]string{"ANDROID_ADB_SERVER_PORT": "abc"}, "", false},
		{map[string]string{"ANDROID_ADB_SERVER_ADDRESS": "::1", "ANDROID_ADB_SERVER_PORT": "6000"}, "[::1]:6000", true},
		{map[string]string{"ADB_SERVER_SOCKET": "tcp:7000", "ANDROID_ADB_SERVER_PORT": "6000"}, "127.0.0.1:7000", true},
		{map[string]string{"ADB_SERVER_SOCKET": "tcp:localhost:7001"}, "localhost:7001", true},
		{map[string]string{"ADB_SERVER_SOCKET": "localabstract:adb"}, "", false},
	}
	for _, tt := range tests {
		for _, k := range []string{"ADB_SERVER_SOCKET", "ANDROID_ADB_SERVER_ADDRESS", "ANDROID_ADB_SERVER_PORT"} {
			t.Setenv(k, tt.env[k])
		}
		got, err := DefaultServerAddr()
		if tt.ok != (err == nil) || got != tt.want {
			t.Errorf("%v: %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
}

func TestEnsureServerStartsAdb(t *testing.T) {
	leakcheck.Check(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_, port, _ := net.SplitHostPort(addr)
	ln.Close()

	// A stand-in adb that records its arguments and fails: EnsureServer
	// must run it with -P PORT start-server and report its output.
	dir := t.TempDir()
	script := filepath.Join(dir, "adb")
	argsFile := filepath.Join(dir, "args")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"$@\" > "+argsFile+"\necho 'cannot start daemon' >&2\nexit 1\n"), 0o755)
	c := &Client{Addr: addr, ADBPath: script}
	_, err = c.EnsureServer(ctxT(t))
	if err == nil || !strings.Contains(err.Error(), "cannot start daemon") {
		t.Fatalf("got %v", err)
	}
	args, _ := os.ReadFile(argsFile)
	if string(args) != "-P "+port+" start-server\n" {
		t.Fatalf("adb ran with %q", args)
	}

	// Nothing is started for a server that is not on this machine.
	os.Remove(argsFile)
	c.Addr = "192.0.2.1:5037" // TEST-NET-1: never answers
	c.DialTimeout = 100 * time.Millisecond
	if _, err := c.EnsureServer(ctxT(t)); !errors.Is(err, ErrServerUnreachable) {
		t.Fatalf("remote: %v", err)
	}
	if _, err := os.Stat(argsFile); err == nil {
		t.Fatal("adb was run for a remote address")
	}
}
