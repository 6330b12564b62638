package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// syncBuffer is a bytes.Buffer safe for a writer goroutine and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The acceptance check: `ddmtui sim --local PORT --vms 3` answers a
// DDM HELO from a raw client with its pid and app name.
func TestSimCommandAnswersHELO(t *testing.T) {
	leakcheck.Check(t)
	port := freePorts(t, 3) // the sim serves its three VMs on port, port+1, port+2
	app := NewApp()
	var out syncBuffer
	app.Writer = &out
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- app.RunContext(ctx, []string{"ddmtui", "sim", "--local", fmt.Sprint(port), "--vms", "3", "--seed", "1"})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("sim exited with %v", err)
		}
	}()

	var c *jdwp.Conn
	deadline := time.Now().Add(5 * time.Second)
	for {
		dctx, dcancel := context.WithTimeout(ctx, time.Second)
		var err error
		c, err = jdwp.Dial(dctx, fmt.Sprintf("127.0.0.1:%d", port), jdwp.Options{})
		dcancel()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("sim not listening: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	defer c.Close()
	p, err := c.Request(ctx, jdwp.CmdSetDDM, jdwp.CmdDDMChunk, ddm.AppendMessage(nil, &ddm.HelloRequest{ServerVersion: 1}))
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := ddm.ParseChunks(p.Data, len(p.Data))
	if err != nil || len(chunks) != 1 {
		t.Fatalf("reply framing: %v", err)
	}
	h, err := ddm.DecodeHello(chunks[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	// The listing is printed once every VM listens; the HELO may come first.
	var line string
	for wait := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if l, _, ok := strings.Cut(out.String(), "\n"); ok || time.Now().After(wait) {
			line = l
			break
		}
	}
	if !strings.Contains(line, fmt.Sprintf("127.0.0.1:%d", port)) || !strings.Contains(line, fmt.Sprintf("pid %d", h.PID)) || !strings.HasSuffix(line, h.AppName) || h.AppName == "" {
		t.Fatalf("HELO pid %d app %q does not match the sim's listing %q", h.PID, h.AppName, line)
	}
}
