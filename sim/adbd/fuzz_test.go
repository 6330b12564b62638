package adbd

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"
)

// FuzzReadPacket reads transport messages back to back from arbitrary
// bytes: it must stop with an error (never panic or over-allocate), and
// every message it accepts re-encodes to the bytes it consumed, apart from
// the checksum field, which is never verified.
func FuzzReadPacket(f *testing.F) {
	f.Add(appendPacket(nil, packet{cmdCNXN, versionSkipChecksum, 1 << 20, []byte("host::features=shell_v2,cmd\x00")}))
	f.Add(append(appendPacket(nil, packet{cmdOPEN, 9, 0, []byte("track-jdwp\x00")}), appendPacket(nil, packet{cmdOKAY, 9, 1, nil})...))
	f.Add(appendPacket(nil, packet{cmdWRTE, 1, 2, bytes.Repeat([]byte{0xff}, 100)}))
	f.Add([]byte("CNXN\x01\x00\x00\x01\x00\x00\x10\x00\xff\xff\xff\xff\x00\x00\x00\x00\xbc\xb1\xa7\xb1"))
	f.Fuzz(func(t *testing.T, b []byte) {
		const max = 4096
		r := bytes.NewReader(b)
		off := 0
		for {
			p, err := readPacket(r, max)
			if err != nil {
				return
			}
			if len(p.Data) > max {
				t.Fatalf("payload of %d bytes", len(p.Data))
			}
			enc := appendPacket(nil, p)
			got := b[off : off+len(enc)]
			if !bytes.Equal(enc[:16], got[:16]) || !bytes.Equal(enc[20:], got[20:]) {
				t.Fatalf("message at %d re-encodes differently", off)
			}
			off += len(enc)
		}
	})
}

// FuzzHostMessages feeds arbitrary messages from a "host" into a daemon
// connection after a valid CNXN. Whatever the bytes, the connection must
// keep to the protocol in what it sends and must end, with every stream
// goroutine, once the host goes away.
func FuzzHostMessages(f *testing.F) {
	msgs := func(ps ...packet) []byte {
		var b []byte
		for _, p := range ps {
			b = appendPacket(b, p)
		}
		return b
	}
	f.Add(msgs(packet{cmdOPEN, 1, 0, []byte("track-jdwp\x00")}, packet{cmdOKAY, 1, 1, nil}, packet{cmdCLSE, 1, 1, nil}))
	f.Add(msgs(packet{cmdOPEN, 2, 0, []byte("jdwp:42\x00")}, packet{cmdWRTE, 2, 1, []byte("JDWP-Handshake")}, packet{cmdWRTE, 2, 1, []byte("x")}))
	f.Add(msgs(packet{cmdOPEN, 3, 0, []byte("shell:echo 'hi\x00")}, packet{cmdOPEN, 4, 0, []byte("shell:kill -3 42\x00")}, packet{cmdOPEN, 5, 0, []byte("jdwp\x00")}))
	syncReq := func(id, path string) []byte {
		return append(binary.LittleEndian.AppendUint32([]byte(id), uint32(len(path))), path...)
	}
	f.Add(msgs(packet{cmdOPEN, 6, 0, []byte("sync:\x00")},
		packet{cmdWRTE, 6, 1, append(syncReq("STA2", "/proc/version"), syncReq("LIS2", "/proc")...)},
		packet{cmdWRTE, 6, 1, append(syncReq("RCV2", "/proc/version"), "RCV2\x00\x00\x00\x00"...)},
		packet{cmdWRTE, 6, 1, syncReq("QUIT", "")}))
	f.Add(msgs(packet{cmdOPEN, 7, 0, []byte("sync:\x00")}, packet{cmdWRTE, 7, 1, []byte("RECV\xff\xff\xff\xff")},
		packet{cmdOPEN, 8, 0, []byte("exec:cat /proc/version\x00")}))
	f.Add(msgs(packet{cmdCNXN, 0, 0, nil}))
	f.Add(msgs(packet{cmdOPEN, 0, 0, []byte("jdwp:042")}, packet{cmdAUTH, 1, 0, []byte("x")}))
	f.Fuzz(func(t *testing.T, b []byte) {
		dev := newFakeDevice(42, 7)
		s := New(dev, Options{MaxPayload: 4096})
		host, daemon := net.Pipe()
		c := s.newConn(daemon)
		done := make(chan struct{})
		go func() { c.run(); close(done) }()
		// The host reads everything and checks each message's shape.
		readErr := make(chan error, 1)
		go func() {
			for {
				p, err := readPacket(host, maxPayloadLimit)
				if err != nil {
					readErr <- nil
					return
				}
				if p.Command == cmdWRTE && len(p.Data) > 4096 {
					readErr <- io.ErrShortBuffer
					return
				}
				if p.Command == cmdOKAY && p.Arg0 == 0 {
					readErr <- io.ErrUnexpectedEOF
					return
				}
				// Acknowledge every WRTE so streams make progress.
				if p.Command == cmdWRTE {
					var ack [24]byte
					copy(ack[:], appendPacket(nil, packet{cmdOKAY, p.Arg1, p.Arg0, nil}))
					go host.Write(ack[:])
				}
			}
		}()
		in := appendPacket(nil, packet{cmdCNXN, versionSkipChecksum, 1 << 20, []byte("host::\x00")})
		in = append(in, b...)
		host.SetWriteDeadline(time.Now().Add(2 * time.Second))
		host.Write(in)
		time.Sleep(time.Millisecond)
		host.Close()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			// Generous: under a loaded fuzzing run the machine can stall for
			// seconds (this once failed at 5 s without a real hang).
			t.Fatal("connection did not end after the host went away")
		}
		if err := <-readErr; err != nil {
			t.Fatalf("daemon sent a bad message: %v", err)
		}
		dev.wait()
		if got := binary.LittleEndian.Uint32(in[:4]); got != cmdCNXN {
			t.Fatal("corrupted input")
		}
	})
}
