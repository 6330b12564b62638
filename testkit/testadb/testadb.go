// Package testadb runs a real adb server (Debian's adb) on a private
// loopback port for integration tests, with its own HOME and TMPDIR and
// emulator probing off (ADB_EMU=0), so it never touches the user's server on
// 5037 or other programs' ports. It is killed when the test ends. A missing
// adb skips the test with a reason, or fails it under CI.
package testadb

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// Server is a private adb server.
type Server struct {
	t    testing.TB
	Path string
	Port int
	Dir  string
	Env  []string
}

// New prepares a server on a free port; Start starts it.
func New(t testing.TB) *Server {
	t.Helper()
	path := testpeer.Require(t, "adb")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	s := &Server{t: t, Path: path, Port: port, Dir: dir, Env: []string{"HOME=" + dir, "TMPDIR=" + dir, "ADB_EMU=0"}}
	t.Cleanup(s.Kill)
	return s
}

// Addr is "127.0.0.1:PORT".
func (s *Server) Addr() string { return fmt.Sprintf("127.0.0.1:%d", s.Port) }

// Client returns an adb client for this server, able to restart it.
func (s *Server) Client() *adb.Client {
	return &adb.Client{Addr: s.Addr(), ADBPath: s.Path, ServerEnv: s.Env}
}

// Run runs `adb -P PORT args…` with the server's environment.
func (s *Server) Run(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.Path, append([]string{"-P", fmt.Sprint(s.Port)}, args...)...)
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "ADB_") || strings.HasPrefix(k, "ANDROID_") {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, s.Env...)
	cmd.WaitDelay = 2 * time.Second
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Start starts the server.
func (s *Server) Start() {
	s.t.Helper()
	if out, err := s.Run("start-server"); err != nil {
		s.t.Fatalf("adb start-server: %v\n%s", err, out)
	}
}

// Connect asks the server to connect to a (simulated) device at addr.
func (s *Server) Connect(addr string) {
	s.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		out, err := s.Run("connect", addr)
		if err == nil && strings.Contains(out, "connected to") {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("adb connect %s: %v %s", addr, err, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// Kill stops the server and waits until its port is free.
func (s *Server) Kill() {
	s.Run("kill-server")
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		nc, err := net.DialTimeout("tcp", s.Addr(), 200*time.Millisecond)
		if err != nil {
			return
		}
		nc.Close()
		time.Sleep(50 * time.Millisecond)
	}
	s.t.Errorf("adb server on %s still answering after kill-server", s.Addr())
}
