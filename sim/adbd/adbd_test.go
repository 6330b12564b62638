package adbd

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Byte-exact vectors from spec/adb.md §2.2 and §2.7.
func TestPacketVectors(t *testing.T) {
	devBanner := "device::ro.product.name=ddmsim;ro.product.model=DDM Sim;ro.product.device=ddmsim;features=cmd"
	hostBanner := "host::features=shell_v2,cmd"
	tests := []struct {
		name string
		p    packet
		hdr  string
	}{
		{"device CNXN", packet{cmdCNXN, 0x01000001, 0x00040000, []byte(devBanner)},
			"43 4E 58 4E  01 00 00 01  00 00 04 00  5D 00 00 00  12 23 00 00  BC B1 A7 B1"},
		{"host CNXN", packet{cmdCNXN, 0x01000001, 0x00100000, []byte(hostBanner)},
			"43 4E 58 4E  01 00 00 01  00 00 10 00  1B 00 00 00  4D 0A 00 00  BC B1 A7 B1"},
		{"OKAY", packet{cmdOKAY, 0x100, 1, nil},
			"4F 4B 41 59  00 01 00 00  01 00 00 00  00 00 00 00  00 00 00 00  B0 B4 BE A6"},
	}
	for _, tt := range tests {
		want := append(unhex(t, tt.hdr), tt.p.Data...)
		if got := appendPacket(nil, tt.p); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got % x\nwant % x", tt.name, got[:24], want[:24])
		}
		got, err := readPacket(bytes.NewReader(want), maxPayloadLimit)
		if err != nil || got.Command != tt.p.Command || got.Arg0 != tt.p.Arg0 || got.Arg1 != tt.p.Arg1 || !bytes.Equal(got.Data, tt.p.Data) {
			t.Errorf("%s: decoded %+v, %v", tt.name, got, err)
		}
	}
	// The host's OPEN and the device's WRTE from §2.2 carry checksum 0
	// (protocol 0x01000001); the receiver must not care.
	open := unhex(t, "4F 50 45 4E  01 00 00 00  00 00 00 00  0B 00 00 00  00 00 00 00  B0 AF BA B1  74 72 61 63 6B 2D 6A 64 77 70 00")
	p, err := readPacket(bytes.NewReader(open), 4096)
	if err != nil || p.Command != cmdOPEN || p.Arg0 != 1 || string(p.Data) != "track-jdwp\x00" {
		t.Fatalf("OPEN: %+v, %v", p, err)
	}
	wrte := unhex(t, "57 52 54 45  00 01 00 00  01 00 00 00  0E 00 00 00  00 00 00 00  A8 AD AB BA  30 30 30 61 34 32 34 32 0A 34 32 35 31 0A")
	p, err = readPacket(bytes.NewReader(wrte), 4096)
	if err != nil || p.Command != cmdWRTE || string(p.Data) != "000a4242\n4251\n" {
		t.Fatalf("WRTE: %+v, %v", p, err)
	}
	if got := pidListMessage([]int{4251, 4242}, DefaultJDWPListMax); string(got) != "000a4242\n4251\n" {
		t.Fatalf("pid list message %q", got)
	}
}

func TestHeaderValidation(t *testing.T) {
	good := appendPacket(nil, packet{cmdWRTE, 1, 2, []byte("abc")})
	bad := slices.Clone(good)
	bad[20] ^= 1
	if _, err := readPacket(bytes.NewReader(bad), 4096); !errors.Is(err, errBadMagic) {
		t.Errorf("bad magic: %v", err)
	}
	if _, err := readPacket(bytes.NewReader(good), 2); !errors.Is(err, errTooLong) {
		t.Errorf("too long: %v", err)
	}
	if _, err := readPacket(bytes.NewReader(good[:26]), 4096); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short payload: %v", err)
	}
	// Unknown commands are well-formed messages (ignored later).
	odd := appendPacket(nil, packet{0x534C5453, 0, 0, nil}) // STLS
	if p, err := readPacket(bytes.NewReader(odd), 4096); err != nil || commandName(p.Command) != "0x534c5453" {
		t.Errorf("STLS: %+v %v", p, err)
	}
}

func TestBanner(t *testing.T) {
	got := banner(map[string]string{
		"ro.product.name": "n", "ro.product.model": "a:b;c=d\x01", "ro.product.device": "dev", "other": "x",
	}, nil)
	if got != "device::ro.product.name=n;ro.product.model=a_b_c_d;ro.product.device=dev" {
		t.Fatalf("banner %q", got)
	}
	got = banner(map[string]string{"ro.product.name": "n"}, DefaultFeatures)
	if got != "device::ro.product.name=n;features=stat_v2,ls_v2,sendrecv_v2" {
		t.Fatalf("banner with features %q", got)
	}
	if len(banner(map[string]string{"ro.product.model": strings.Repeat("m", 10000)}, DefaultFeatures)) > maxPayloadV1 {
		t.Fatal("banner exceeds a version-1 payload")
	}
}

// testHost plays the adb server's side of the transport protocol.
type testHost struct {
	t  *testing.T
	nc net.Conn
}

func dialHost(t *testing.T, addr string) *testHost {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return &testHost{t: t, nc: nc}
}

func (h *testHost) send(cmd, a0, a1 uint32, data string) {
	h.t.Helper()
	if _, err := h.nc.Write(appendPacket(nil, packet{cmd, a0, a1, []byte(data)})); err != nil {
		h.t.Fatalf("send %s: %v", commandName(cmd), err)
	}
}

func (h *testHost) recv() packet {
	h.t.Helper()
	h.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	p, err := readPacket(h.nc, maxPayloadLimit)
	if err != nil {
		h.t.Fatalf("recv: %v", err)
	}
	return p
}

// expect receives one message and checks its command and arguments.
func (h *testHost) expect(cmd, a0, a1 uint32) packet {
	h.t.Helper()
	p := h.recv()
	if p.Command != cmd || p.Arg0 != a0 || p.Arg1 != a1 {
		h.t.Fatalf("got %s(%#x, %#x) %q, want %s(%#x, %#x)", commandName(p.Command), p.Arg0, p.Arg1, p.Data, commandName(cmd), a0, a1)
	}
	return p
}

// quiet checks that nothing arrives for d.
func (h *testHost) quiet(d time.Duration) {
	h.t.Helper()
	h.nc.SetReadDeadline(time.Now().Add(d))
	p, err := readPacket(h.nc, maxPayloadLimit)
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		h.t.Fatalf("expected silence, got %s %q (%v)", commandName(p.Command), p.Data, err)
	}
}

// connect performs the CNXN exchange and checks the device's answer.
func (h *testHost) connect(maxPayload uint32) {
	h.t.Helper()
	h.send(cmdCNXN, versionMin, maxPayload, "host::features=shell_v2,cmd\x00")
	p := h.recv()
	if p.Command != cmdCNXN || p.Arg0 != versionSkipChecksum {
		h.t.Fatalf("got %s(%#x), want CNXN(0x01000001)", commandName(p.Command), p.Arg0)
	}
	if want := "device::ro.product.name=ddmsim;ro.product.model=DDM Sim;ro.product.device=ddmsim;features=stat_v2,ls_v2,sendrecv_v2"; string(p.Data) != want {
		h.t.Fatalf("banner %q, want %q", p.Data, want)
	}
}

// open sends OPEN and returns the device's id for the stream.
func (h *testHost) open(local uint32, service string) uint32 {
	h.t.Helper()
	h.send(cmdOPEN, local, 0, service+"\x00")
	p := h.recv()
	if p.Command != cmdOKAY || p.Arg1 != local || p.Arg0 == 0 {
		h.t.Fatalf("OPEN %s: got %s(%#x, %#x)", service, commandName(p.Command), p.Arg0, p.Arg1)
	}
	return p.Arg0
}

func TestConnectAndIgnoreBeforeCNXN(t *testing.T) {
	leakcheck.Check(t)
	dev := newFakeDevice()
	_, addr := startServer(t, dev, Options{})
	h := dialHost(t, addr)
	// Messages before CNXN are ignored (spec §2.7), AUTH included.
	h.send(cmdOPEN, 1, 0, "track-jdwp\x00")
	h.send(cmdAUTH, 2, 0, "sig")
	h.connect(1 << 20)
	h.quiet(50 * time.Millisecond)
	h.nc.Close()
}

func TestTrackJDWPFlowControl(t *testing.T) {
	leakcheck.Check(t)
	dev := newFakeDevice(4242, 4251)
	_, addr := startServer(t, dev, Options{})
	h := dialHost(t, addr)
	h.connect(1 << 20)
	d := h.open(9, "track-jdwp")
	if p := h.expect(cmdWRTE, d, 9); string(p.Data) != "000a4242\n4251\n" {
		t.Fatalf("first list %q", p.Data)
	}
	// Until we acknowledge, nothing more may arrive, however the set
	// changes; then the newest set comes.
	dev.pids.Remove(4251)
	dev.pids.Add(7)
	h.quiet(100 * time.Millisecond)
	h.send(cmdOKAY, 9, d, "")
	if p := h.expect(cmdWRTE, d, 9); string(p.Data) != "00077\n4242\n" {
		t.Fatalf("second list %q", p.Data)
	}
	h.send(cmdOKAY, 9, d, "")
	dev.pids.Remove(7)
	dev.pids.Remove(4242)
	got := ""
	for got != "0000" {
		p := h.expect(cmdWRTE, d, 9)
		got = string(p.Data)
		h.send(cmdOKAY, 9, d, "")
	}
	// Our CLSE ends the stream without an answer, and no list follows.
	// The refused OPEN after it proves the CLSE was processed.
	h.send(cmdCLSE, 9, d, "")
	h.send(cmdOPEN, 10, 0, "nonesuch\x00")
	h.expect(cmdCLSE, 0, 10)
	dev.pids.Add(8)
	h.quiet(100 * time.Millisecond)
}

func TestTrackJDWPListLimit(t *testing.T) {
	leakcheck.Check(t)
	dev := newFakeDevice()
	for p := 100000; p < 100300; p++ { // 300 pids × 7 bytes
		dev.pids.Add(p)
	}
	_, addr := startServer(t, dev, Options{})
	h := dialHost(t, addr)
	h.connect(1 << 20)
	d := h.open(3, "track-jdwp")
	p := h.expect(cmdWRTE, d, 3)
	if len(p.Data) != 4+1015 || string(p.Data[:4]) != "03f7" {
		t.Fatalf("truncated list: %d bytes, prefix %q", len(p.Data), p.Data[:4])
	}
	h.nc.Close()
}

func TestJDWPStreamLargePayload(t *testing.T) {
	// The smaller of the two announced maximums bounds the device's WRTEs.
	for _, tt := range []struct{ device, host uint32 }{{4096, 1 << 20}, {0, 4096}} {
		t.Run(fmt.Sprintf("device %d host %d", tt.device, tt.host), func(t *testing.T) {
			testJDWPStream(t, tt.device, tt.host)
		})
	}
}

func testJDWPStream(t *testing.T, deviceMax, hostMax uint32) {
	leakcheck.Check(t)
	dev := newFakeDevice(42)
	const maxPayload = 4096
	_, addr := startServer(t, dev, Options{MaxPayload: deviceMax})
	h := dialHost(t, addr)
	h.connect(hostMax)
	d := h.open(5, "jdwp:42")

	// send writes one WRTE and collects the echo until it is complete
	// and our WRTE was acknowledged; the two may interleave.
	var echoed []byte
	send := func(chunk []byte) {
		h.send(cmdWRTE, 5, d, string(chunk))
		want := len(echoed) + len(chunk)
		acked := false
		for !acked || len(echoed) < want {
			p := h.recv()
			switch {
			case p.Command == cmdOKAY && p.Arg0 == d && p.Arg1 == 5 && !acked:
				acked = true
			case p.Command == cmdWRTE && p.Arg0 == d && p.Arg1 == 5:
				if len(p.Data) > maxPayload {
					t.Fatalf("WRTE of %d bytes", len(p.Data))
				}
				echoed = append(echoed, p.Data...)
				h.send(cmdOKAY, 5, d, "")
			default:
				t.Fatalf("unexpected %s(%#x, %#x)", commandName(p.Command), p.Arg0, p.Arg1)
			}
		}
	}
	send([]byte(jdwp.Handshake))
	if string(echoed) != jdwp.Handshake {
		t.Fatalf("handshake answer %q", echoed)
	}
	echoed = nil
	// 40 KiB in 4 KiB WRTEs, one at a time, each echoed back.
	payload := bytes.Repeat([]byte("JDWP-payload-"), 40<<10/13)
	for off := 0; off < len(payload); off += maxPayload {
		send(payload[off:min(off+maxPayload, len(payload))])
	}
	if !bytes.Equal(echoed, payload) {
		t.Fatal("echo differs")
	}
	// Closing the stream closes the VM connection (the echo VM ends).
	h.send(cmdCLSE, 5, d, "")
	done := make(chan struct{})
	go func() { dev.wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("VM connection still open after CLSE")
	}
}

func TestWRTEBeforeOKAYClosesStream(t *testing.T) {
	leakcheck.Check(t)
	dev := newFakeDevice(42)
	dev.stuck = map[int]bool{42: true}
	_, addr := startServer(t, dev, Options{})
	h := dialHost(t, addr)
	h.connect(1 << 20)
	d := h.open(5, "jdwp:42")
	// The VM takes nothing: the first WRTE stays unacknowledged, the second
	// waits its turn, the third breaks flow control and ends the stream
	// (and the stuck VM write with it).
	h.send(cmdWRTE, 5, d, "x")
	h.send(cmdWRTE, 5, d, "y")
	h.send(cmdWRTE, 5, d, "z")
	h.expect(cmdCLSE, d, 5)
	h.quiet(50 * time.Millisecond)
}

func TestRefusedServices(t *testing.T) {
	leakcheck.Check(t)
	dev := newFakeDevice(42)
	_, addr := startServer(t, dev, Options{})
	h := dialHost(t, addr)
	h.connect(1 << 20)
	for i, svc := range []string{"jdwp:999", "jdwp:042", "jdwp:", "shell:", "exec:", "exec: ", "sync:x", "framebuffer:", ""} {
		local := uint32(20 + i)
		h.send(cmdOPEN, local, 0, svc+"\x00")
		h.expect(cmdCLSE, 0, local)
	}
}

func TestShellAndJDWPList(t *testing.T) {
	leakcheck.Check(t)
	dev := newFakeDevice(42, 7)
	_, addr := startServer(t, dev, Options{})
	h := dialHost(t, addr)
	h.connect(1 << 20)

	run := func(local uint32, service string) string {
		d := h.open(local, service)
		var out []byte
		for {
			p := h.recv()
			if p.Command == cmdCLSE {
				if p.Arg0 != d || p.Arg1 != local {
					t.Fatalf("CLSE(%#x, %#x)", p.Arg0, p.Arg1)
				}
				return string(out)
			}
			if p.Command != cmdWRTE || p.Arg0 != d || p.Arg1 != local {
				t.Fatalf("unexpected %s(%#x, %#x)", commandName(p.Command), p.Arg0, p.Arg1)
			}
			out = append(out, p.Data...)
			h.send(cmdOKAY, local, d, "")
		}
	}
	if got := run(1, "shell:echo hi"); got != "hi\n" {
		t.Errorf("echo: %q", got)
	}
	if got := run(2, "shell:getprop ro.product.model"); got != "DDM Sim\n" {
		t.Errorf("getprop: %q", got)
	}
	if got := run(3, "shell:kill -3 42"); got != "" {
		t.Errorf("kill: %q", got)
	}
	if got := run(4, "shell:cat /data/anr/traces.txt"); !strings.HasPrefix(got, "----- pid 42 ") {
		t.Errorf("traces: %q", got)
	}
	if got := run(5, "jdwp"); got != "7\n42\n" {
		t.Errorf("jdwp list: %q", got)
	}
	if s := dev.signalsSeen(); !slices.Equal(s, []string{"3 42"}) {
		t.Errorf("signals %v", s)
	}
}

func TestBadHeaderEndsConnection(t *testing.T) {
	leakcheck.Check(t)
	dev := newFakeDevice(42)
	_, addr := startServer(t, dev, Options{MaxPayload: 4096})
	for _, raw := range [][]byte{
		func() []byte { b := appendPacket(nil, packet{cmdCNXN, 1, 4096, nil}); b[20]++; return b }(),
		appendPacket(nil, packet{cmdWRTE, 1, 1, make([]byte, 4097)}),
	} {
		h := dialHost(t, addr)
		h.nc.Write(raw)
		h.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
		// EOF, or a reset when our unread bytes were discarded.
		n, err := h.nc.Read(make([]byte, 1))
		var ne net.Error
		if err == nil || errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("connection not closed: %d, %v", n, err)
		}
	}
}

func TestCloseEndsEverything(t *testing.T) {
	leakcheck.Check(t)
	dev := newFakeDevice(42)
	s, addr := startServer(t, dev, Options{})
	h := dialHost(t, addr)
	h.connect(1 << 20)
	h.open(1, "jdwp:42")
	h.open(2, "track-jdwp")
	s.Close()
	h.nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.Copy(io.Discard, h.nc); err != nil {
		t.Fatalf("after Close: %v", err)
	}
	if _, err := net.Dial("tcp", addr); err == nil {
		t.Fatal("still listening after Close")
	}
}

func TestServeContext(t *testing.T) {
	leakcheck.Check(t)
	dev := newFakeDevice(1)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, dev) }()
	h := dialHost(t, ln.Addr().String())
	h.connect(1 << 20)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
	h.nc.Close()
}
