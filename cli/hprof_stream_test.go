package cli

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// bigHPROF is an Android HPROF file of a few MiB: byte arrays in a heap
// dump, so that the VM sends it as one packet over 1 MiB (streamed to the
// file as it arrives).
func bigHPROF(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := hprof.NewWriter(&buf, hprof.Header{IDSize: 4, Timestamp: 1700000000000})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(&hprof.HeapDump{}); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		data := bytes.Repeat([]byte{byte(i), 0x5a, byte(i * 3)}, 400_000)
		if err := w.Write(&hprof.PrimitiveArrayDump{Array: hprof.ID(i + 1), Type: hprof.TypeByte, Count: uint32(len(data)), Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// serveDumpVM runs a VM of pid on port that answers HELO and FEAT and
// sends dump as one HPDS packet when asked, or, with dieAt > 0, its first
// dieAt bytes and then closes the connection.
func serveDumpVM(t *testing.T, port int, pid uint32, dump []byte, dieAt int) {
	t.Helper()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, nc)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer nc.Close()
				if jdwp.ServerHandshake(nc, 2*time.Second) != nil {
					return
				}
				for {
					p, err := jdwp.ReadPacket(nc, 0)
					if err != nil {
						return
					}
					if p.IsReply() || p.CommandSet != jdwp.CmdSetDDM || len(p.Data) < 8 {
						continue
					}
					var reply []byte
					switch ddm.Type(binary.BigEndian.Uint32(p.Data)) {
					case ddm.TypeHELO:
						reply = ddm.AppendMessage(nil, &ddm.Hello{ClientVersion: 1, PID: pid, VMIdent: "Dalvik v2.1.0", AppName: "com.example.big"})
					case ddm.TypeFEAT:
						reply = ddm.AppendMessage(nil, &ddm.Features{Names: []string{"hprof-heap-dump-streaming"}})
					case ddm.TypeHPDS:
						packet := (&jdwp.Packet{ID: 0x200, CommandSet: jdwp.CmdSetDDM, Command: jdwp.CmdDDMChunk,
							Data: ddm.AppendMessage(nil, &ddm.HeapDumpData{HPROF: dump})}).Marshal()
						if dieAt > 0 {
							nc.Write(packet[:jdwp.HeaderLen+8+dieAt])
							return
						}
						nc.Write(packet)
					default:
						continue
					}
					jdwp.WritePacket(nc, jdwp.NewReply(p.ID, jdwp.ErrNone, reply))
				}
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
}

// `hprof --android` of a VM streaming a dump of several MiB writes the
// file the VM sent, byte for byte, with nothing else left in the
// directory; converted, it parses; a VM that dies mid-dump leaves nothing.
func TestHprofStreamsToFile(t *testing.T) {
	leakcheck.Check(t)
	dump := bigHPROF(t)
	port, err := freeLocalRange(39700, 2)
	if err != nil {
		t.Fatal(err)
	}
	serveDumpVM(t, port, 4343, dump, 0)
	serveDumpVM(t, port+1, 4344, dump, len(dump)/2)
	scanFlag := fmt.Sprintf("%d-%d", port, port+1)
	dir := t.TempDir()
	out := filepath.Join(dir, "big.hprof")
	if _, err := runApp(t, "hprof", "--adb", "off", "--scan", scanFlag, "--pid", "4343", "--android", "-o", out); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(out)
	if err != nil || !bytes.Equal(got, dump) {
		t.Fatalf("the file (%d bytes, %v) is not the %d bytes the VM sent", len(got), err, len(dump))
	}
	std := filepath.Join(dir, "std.hprof")
	if _, err := runApp(t, "hprof", "--adb", "off", "--scan", scanFlag, "--pid", "4343", "-o", std); err != nil {
		t.Fatal(err)
	}
	if h := readHeader(t, std); h.Version != "JAVA PROFILE 1.0.2" {
		t.Fatalf("converted file is %q", h.Version)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("the directory holds %d files, want the 2 dumps", len(entries))
	}

	dead := filepath.Join(dir, "dead.hprof")
	_, err = runApp(t, "hprof", "--adb", "off", "--scan", scanFlag, "--pid", "4344", "-o", dead)
	if err == nil || !strings.Contains(err.Error(), "heap dump of pid 4344") {
		t.Fatalf("a VM dying mid-dump: %v", err)
	}
	entries, _ = os.ReadDir(dir)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("after a failed dump the directory holds %v", names)
	}
}
