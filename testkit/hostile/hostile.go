// Package hostile serves misbehaving JDWP peers on loopback ports, for tests
// and the reliability suite (`make soak`): anything listening on a scanned
// port can talk to ddmtui, so each behaviour here is something a local
// process could do to it. Every Server accepts any number of connections and
// stops, closing them all, on Close.
package hostile

import (
	"encoding/binary"
	"io"
	"net"
	"sync"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
)

// Behaviour is what a hostile peer does with one connection. It returns
// when it is done or stop closes; the connection is closed afterwards.
type Behaviour func(nc net.Conn, stop <-chan struct{})

// Server serves one Behaviour on a loopback port.
type Server struct {
	ln    net.Listener
	stop  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	conns map[net.Conn]bool
}

// Serve listens on addr ("127.0.0.1:0" for any port) and runs b for every
// connection.
func Serve(addr string, b Behaviour) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{ln: ln, stop: make(chan struct{}), conns: map[net.Conn]bool{}}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns[nc] = true
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer func() {
					s.mu.Lock()
					delete(s.conns, nc)
					s.mu.Unlock()
					nc.Close()
				}()
				b(nc, s.stop)
			}()
		}
	}()
	return s, nil
}

// Addr is the listening address.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Port is the listening port.
func (s *Server) Port() int { return s.ln.Addr().(*net.TCPAddr).Port }

// Close stops listening, ends every connection and waits for them.
func (s *Server) Close() error {
	select {
	case <-s.stop:
		return nil
	default:
	}
	close(s.stop)
	s.ln.Close()
	s.mu.Lock()
	for nc := range s.conns {
		nc.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
	return nil
}

// Garbage answers the handshake with bytes that are not JDWP.
func Garbage(nc net.Conn, stop <-chan struct{}) {
	_, _ = io.WriteString(nc, "HTTP/1.1 400 Bad Request\r\n\r\n")
	<-stop
}

// Slowloris accepts and never answers the handshake.
func Slowloris(nc net.Conn, stop <-chan struct{}) {
	drain(nc, stop)
}

// Handshaken answers the handshake, then runs then.
func Handshaken(then func(nc net.Conn, stop <-chan struct{})) Behaviour {
	return func(nc net.Conn, stop <-chan struct{}) {
		if err := jdwp.ServerHandshake(nc, 5*time.Second); err != nil {
			return
		}
		then(nc, stop)
	}
}

// NoHELO completes the handshake, then reads and never answers.
var NoHELO = Handshaken(drain)

// BadLength completes the handshake, then sends a packet header whose
// length is shorter than the header itself.
var BadLength = Handshaken(func(nc net.Conn, stop <-chan struct{}) {
	hdr := make([]byte, jdwp.HeaderLen)
	binary.BigEndian.PutUint32(hdr, 3)
	_, _ = nc.Write(hdr)
	drain(nc, stop)
})

// Oversize completes the handshake, then claims a packet of 4 GiB-1.
var Oversize = Handshaken(func(nc net.Conn, stop <-chan struct{}) {
	hdr := make([]byte, jdwp.HeaderLen)
	binary.BigEndian.PutUint32(hdr, 0xFFFFFFFF)
	_, _ = nc.Write(hdr)
	drain(nc, stop)
})

// SlowPacket completes the handshake, then claims a packet of claim bytes
// and sends its body at rate bytes per second, forever (or until claim).
func SlowPacket(claim uint32, rate int) Behaviour {
	return Handshaken(func(nc net.Conn, stop <-chan struct{}) {
		hdr := jdwp.NewCommand(1, jdwp.CmdSetDDM, jdwp.CmdDDMChunk, nil).AppendHeader(nil)
		binary.BigEndian.PutUint32(hdr, claim)
		if _, err := nc.Write(hdr); err != nil {
			return
		}
		go drain(nc, stop)
		step := max(rate/10, 1)
		buf := make([]byte, step)
		sent := uint64(jdwp.HeaderLen)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for sent < uint64(claim) {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			n := min(uint64(step), uint64(claim)-sent)
			if _, err := nc.Write(buf[:n]); err != nil {
				return
			}
			sent += n
		}
		<-stop
	})
}

// HelloVM answers HELO (and FEAT with nothing) as an ART VM with pid, then
// runs then with a function that sends one DDM chunk to the monitor. A
// RawChunks message is sent as it is, without encoding it again.
func HelloVM(pid int, then func(send func(ddm.Message) error, stop <-chan struct{})) Behaviour {
	return Handshaken(func(nc net.Conn, stop <-chan struct{}) {
		jc := jdwp.NewConn(nc, jdwp.Options{IDBase: 0x10000000})
		defer jc.Close()
		send := func(m ddm.Message) error {
			data, ok := m.(RawChunks)
			if !ok {
				data = ddm.AppendMessage(nil, m)
			}
			_, err := jc.Post(jdwp.CmdSetDDM, jdwp.CmdDDMChunk, data)
			return err
		}
		started := false
		for {
			var p *jdwp.Packet
			var ok bool
			select {
			case <-stop:
				return
			case p, ok = <-jc.Incoming():
			}
			if !ok {
				return
			}
			if !p.IsDDM() {
				_ = jc.WritePacket(jdwp.NewReply(p.ID, jdwp.ErrNotImplemented, nil))
				continue
			}
			chunks, err := ddm.ParseChunks(p.Data, len(p.Data))
			if err != nil || len(chunks) == 0 {
				continue
			}
			var reply []byte
			switch chunks[0].Type {
			case ddm.TypeHELO:
				reply = ddm.AppendMessage(nil, &ddm.Hello{ClientVersion: 1, PID: uint32(pid), VMIdent: "Dalvik v2.1.0", AppName: "hostile"})
			case ddm.TypeFEAT:
				reply = ddm.AppendMessage(nil, &ddm.Features{})
			}
			_ = jc.WritePacket(jdwp.NewReply(p.ID, jdwp.ErrNone, reply))
			if !started && chunks[0].Type == ddm.TypeFEAT {
				started = true
				go then(send, stop)
			}
		}
	})
}

// drain reads and discards until the peer leaves or stop closes.
// RawChunks is a DDM packet body already encoded (ddm.AppendMessage), for
// HelloVM's send: a sender of large chunks encodes once.
type RawChunks []byte

// ChunkType is never used: RawChunks is sent as it is.
func (RawChunks) ChunkType() ddm.Type { return 0 }

// AppendBody appends the encoded chunks.
func (r RawChunks) AppendBody(b []byte) []byte { return append(b, r...) }

func drain(nc net.Conn, stop <-chan struct{}) {
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-stop:
			nc.Close()
		case <-done:
		}
	}()
	_, _ = io.Copy(io.Discard, nc)
}
