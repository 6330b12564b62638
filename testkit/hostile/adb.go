package hostile

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// EndlessRecv is an adb server (host protocol, spec/adb.md) that accepts
// any device, offers no features, opens any transport service, and
// answers a sync: RECV with DATA blocks of 64 KiB that never end, at rate
// bytes per second (0: as fast as the client reads). Everything else on
// sync: is answered FAIL. It is what a hostile adb server, or a device
// file that never stops growing, does to a pull.
func EndlessRecv(rate int) Behaviour {
	return func(nc net.Conn, stop <-chan struct{}) {
		serveHost(nc, stop, func(req string) bool {
			switch {
			case strings.HasSuffix(req, ":features"):
				_, _ = io.WriteString(nc, "OKAY0000")
				return false
			case strings.HasPrefix(req, "host:transport"):
				_, _ = io.WriteString(nc, "OKAY") // the service's name follows
				return true
			case req == "sync:":
				_, _ = io.WriteString(nc, "OKAY")
				endlessSync(nc, rate, stop)
				return false
			default:
				_, _ = io.WriteString(nc, "OKAY")
				return false
			}
		})
	}
}

// serveHost answers the host requests on nc, one after another while
// answer says more follow on the connection (a transport, then its
// service), until the peer goes or stop is closed.
func serveHost(nc net.Conn, stop <-chan struct{}, answer func(req string) (more bool)) {
	go func() {
		<-stop
		nc.Close()
	}()
	for {
		req, err := readHostRequest(nc)
		if err != nil || !answer(req) {
			return
		}
	}
}

// readHostRequest reads one hex4-framed request.
func readHostRequest(r io.Reader) (string, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return "", err
	}
	n, err := strconv.ParseUint(string(hdr[:]), 16, 16)
	if err != nil {
		return "", fmt.Errorf("bad length %q", hdr)
	}
	b := make([]byte, n)
	_, err = io.ReadFull(r, b)
	return string(b), err
}

func endlessSync(nc net.Conn, rate int, stop <-chan struct{}) {
	var hdr [8]byte
	if _, err := io.ReadFull(nc, hdr[:]); err != nil {
		return
	}
	l := binary.LittleEndian.Uint32(hdr[4:])
	if l > 1024 {
		return
	}
	if _, err := io.ReadFull(nc, make([]byte, l)); err != nil {
		return
	}
	if string(hdr[:4]) != "RECV" {
		msg := "not served"
		fail := append([]byte("FAIL"), binary.LittleEndian.AppendUint32(nil, uint32(len(msg)))...)
		_, _ = nc.Write(append(fail, msg...))
		return
	}
	const block = 64 << 10
	data := make([]byte, 8+block)
	copy(data, "DATA")
	binary.LittleEndian.PutUint32(data[4:], block)
	var pace <-chan time.Time
	if rate > 0 {
		t := time.NewTicker(max(time.Duration(float64(time.Second)*block/float64(rate)), time.Millisecond))
		defer t.Stop()
		pace = t.C
	}
	for {
		if pace != nil {
			select {
			case <-stop:
				return
			case <-pace:
			}
		}
		if _, err := nc.Write(data); err != nil {
			return
		}
	}
}

// TrackAppFlood is an adb server (host protocol, spec/adb.md) with one
// online device, "flood", whose track-app stream opens with one message
// listing n profileable processes (pids 10000 on, about 8 bytes each: a
// message of 30,000 is 240 KB, past what a real adbd sends, which is
// 64 KiB at most) and then sends nothing more; track-jdwp lists none,
// and a shell or exec service returns no output. It counts the shell and
// exec services opened (Shells). It is what issue 37 #9 measured: one
// message making a monitor follow, and poll, every process it lists.
func TrackAppFlood(n int, shells *atomic.Int64) Behaviour {
	msg := appProcesses(n)
	const device = "flood                  device product:p model:m device:d transport_id:1\n"
	return func(nc net.Conn, stop <-chan struct{}) {
		serveHost(nc, stop, func(req string) bool {
			switch {
			case req == "host:version":
				_, _ = io.WriteString(nc, "OKAY"+frame("0029"))
			case strings.HasPrefix(req, "host:track-devices"):
				_, _ = io.WriteString(nc, "OKAY"+frame(device))
				_, _ = io.Copy(io.Discard, nc)
			case strings.HasPrefix(req, "host:devices"):
				_, _ = io.WriteString(nc, "OKAY"+frame(device))
			case strings.HasSuffix(req, "features"):
				_, _ = io.WriteString(nc, "OKAY"+frame("cmd,stat_v2,ls_v2"))
			case strings.HasPrefix(req, "host:transport"):
				_, _ = io.WriteString(nc, "OKAY") // the service's name follows
				return true
			case req == "track-app":
				// A length past four hex digits: adbd's framing grows.
				_, _ = io.WriteString(nc, "OKAY"+fmt.Sprintf("%04x", len(msg)))
				_, _ = nc.Write(msg)
				_, _ = io.Copy(io.Discard, nc)
			case req == "track-jdwp":
				_, _ = io.WriteString(nc, "OKAY0000")
				_, _ = io.Copy(io.Discard, nc)
			case strings.HasPrefix(req, "shell") || strings.HasPrefix(req, "exec:"):
				if shells != nil {
					shells.Add(1)
				}
				_, _ = io.WriteString(nc, "OKAY")
			default:
				_, _ = io.WriteString(nc, "FAIL"+frame("unknown host service"))
			}
			return false
		})
	}
}

// frame is adb's hex4-framed string.
func frame(s string) string { return fmt.Sprintf("%04x%s", len(s), s) }

// appProcesses is an AppProcesses message (spec/adb-track-app.md) of n
// profileable processes: ProcessEntry{pid: 10000+i, profileable: true}.
func appProcesses(n int) []byte {
	var b []byte
	for i := range n {
		e := []byte{0x08}
		e = binary.AppendUvarint(e, uint64(10000+i))
		e = append(e, 0x18, 1)
		b = append(b, 0x0a, byte(len(e)))
		b = append(b, e...)
	}
	return b
}
