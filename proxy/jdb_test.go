package proxy

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/internal/wire"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/testkit/testjvm"
	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// jdbSession drives a jdb process over its stdin and stdout.
type jdbSession struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser

	mu     sync.Mutex
	out    bytes.Buffer
	mark   int // expect searches from here
	notify chan struct{}
	exited chan struct{}
}

func startJDB(t *testing.T, jdb string, port int) *jdbSession {
	t.Helper()
	s := &jdbSession{t: t, notify: make(chan struct{}, 1), exited: make(chan struct{})}
	s.cmd = exec.Command(jdb, "-attach", fmt.Sprintf("127.0.0.1:%d", port))
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	pr, pw := io.Pipe()
	s.cmd.Stdout, s.cmd.Stderr = pw, pw
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := pr.Read(buf)
			s.mu.Lock()
			s.out.Write(buf[:n])
			s.mu.Unlock()
			select {
			case s.notify <- struct{}{}:
			default:
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		_ = s.cmd.Wait()
		pw.Close()
		close(s.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
		if t.Failed() {
			t.Logf("jdb output:\n%s", s.output())
		}
	})
	return s
}

func (s *jdbSession) output() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.String()
}

// expect waits until jdb printed want after the last match, and returns the
// text up to and including it.
func (s *jdbSession) expect(want string, timeout time.Duration) string {
	s.t.Helper()
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		text := s.out.String()[s.mark:]
		if i := strings.Index(text, want); i >= 0 {
			s.mark += i + len(want)
			s.mu.Unlock()
			return text[:i+len(want)]
		}
		s.mu.Unlock()
		select {
		case <-s.notify:
		case <-deadline:
			s.t.Fatalf("jdb did not print %q within %v", want, timeout)
		case <-s.exited:
			if !strings.Contains(s.output()[s.mark:], want) {
				s.t.Fatalf("jdb exited before printing %q", want)
			}
		}
	}
}

func (s *jdbSession) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatalf("writing %q to jdb: %v", line, err)
	}
}

// A real JVM monitored by ddmtui, debugged with jdb through the VM's port
// and then through the selected port: threads, a breakpoint that is hit,
// cont, exit. The inspector shows the breakpoint request and the hit by
// name; after jdb left, the JVM runs on (its worker's counter advances, no
// thread is suspended) and the monitor still lists it.
func TestJDBThroughProxy(t *testing.T) {
	leakcheck.Check(t)
	jdb := testpeer.Require(t, "jdb")
	jvm := testjvm.Start(t)
	r := startRig(t, onePort(jvm.Port), Options{})
	key := localKey(jvm.Port)
	port := r.waitPort(key)
	waitFor(t, "the JVM's session", 10*time.Second, func() bool { return r.vm(key).Family == "jvm" })
	r.proxy.Select(key)

	for round, p := range []int{port, r.opts.SelectedPort} {
		t.Logf("round %d: jdb -attach 127.0.0.1:%d", round+1, p)
		since := time.Now()
		s := startJDB(t, jdb, p)
		s.expect("> ", 30*time.Second)
		waitFor(t, "attached state", 5*time.Second, func() bool { return r.vm(key).Debugger == monitor.DebuggerAttached })
		s.send("threads")
		s.expect("ddmtui-worker", 15*time.Second)
		s.send("stop in Target.work")
		s.expect("Set breakpoint Target.work", 15*time.Second)
		s.expect("Breakpoint hit:", 15*time.Second)
		s.expect("Target.work()", 5*time.Second)
		s.send("cont")
		// The worker comes back every 50 ms: it hits the breakpoint again
		// and the VM is suspended when jdb exits.
		s.expect("Breakpoint hit:", 15*time.Second)
		s.send("exit")
		select {
		case <-s.exited:
		case <-time.After(20 * time.Second):
			t.Fatal("jdb did not exit")
		}

		// The inspector saw the request and the hits, by name.
		set := r.waitRecord("EventRequest.Set BREAKPOINT", func(rec jdwpspy.Record) bool {
			return rec.Time.After(since) && rec.EventRequest != nil && rec.EventRequest.EventKind == jdwp.EventBreakpoint
		})
		var loc *jdwpspy.Location
		for _, m := range set.EventRequest.Modifiers {
			if m.Location != nil {
				loc = m.Location
			}
		}
		if loc == nil || loc.ClassName != "Target" || loc.MethodName != "work" || !strings.HasPrefix(loc.String(), "Target.work@") {
			t.Errorf("breakpoint request: %s", set.Line())
		}
		if set.Port != p {
			t.Errorf("breakpoint request recorded on port %d, want %d", set.Port, p)
		}
		ev := r.waitRecord("the breakpoint hit", func(rec jdwpspy.Record) bool {
			return rec.Time.After(since) && rec.Composite != nil && len(rec.Composite.Events) > 0 &&
				rec.Composite.Events[0].Kind == jdwp.EventBreakpoint
		})
		e := ev.Composite.Events[0]
		if e.Location == nil || e.Location.ClassName != "Target" || e.Location.MethodName != "work" || e.Thread == nil {
			t.Errorf("breakpoint hit: %s", ev.Line())
		}
		if e.ThreadName != "ddmtui-worker" {
			t.Errorf("hit thread name %q (jdb's threads command named it): %s", e.ThreadName, ev.Line())
		}
		left := r.waitRecord("jdb left", func(rec jdwpspy.Record) bool { return rec.Time.After(since) && strings.Contains(rec.Summary, "left") })
		t.Logf("%s", left.Line())
		t.Logf("%s", set.Line())
		t.Logf("%s", ev.Line())

		waitFor(t, "state none", 5*time.Second, func() bool { return r.vm(key).Debugger == monitor.DebuggerNone })
		checkJVMRunning(t, port)
		if !jvm.Alive() {
			t.Fatal("the JVM died")
		}
		if v := r.vm(key); v.Key != key || v.DebugPort != port {
			t.Fatalf("the monitor lost the JVM: %+v", v)
		}
	}
}

// checkJVMRunning attaches a plain JDWP client through the proxy and checks
// that no thread is suspended and that Target.counter advances.
func checkJVMRunning(t *testing.T, port int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c := dialDebugger(t, port, 1)
	defer c.Close()
	sz, err := c.IDSizes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := c.AllThreads(ctx, sz)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		name, err := c.ThreadName(ctx, sz, id)
		if err != nil {
			continue
		}
		st, err := c.ThreadStatus(ctx, sz, id)
		if err != nil {
			continue
		}
		rep, err := c.Request(ctx, jdwp.CmdSetThreadReference, jdwp.CmdThreadSuspendCnt, jdwp.AppendID(nil, sz.ObjectID, id))
		if err != nil {
			t.Fatal(err)
		}
		if n := binary.BigEndian.Uint32(rep.Data); n != 0 || st.SuspendStatus != 0 {
			t.Errorf("thread %q is suspended (count %d, status %d) after the debugger left", name, n, st.SuspendStatus)
		}
	}
	first, err := readCounter(ctx, c, sz)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	second, err := readCounter(ctx, c, sz)
	if err != nil {
		t.Fatal(err)
	}
	if second <= first {
		t.Errorf("Target.counter stood still: %d then %d", first, second)
	}
}

// readCounter reads the static long Target.counter.
func readCounter(ctx context.Context, c *jdwp.Conn, sz jdwp.IDSizes) (int64, error) {
	rep, err := c.Request(ctx, jdwp.CmdSetVirtualMachine, 2, jdwp.AppendString(nil, "LTarget;"))
	if err != nil {
		return 0, err
	}
	r := wire.NewReader(rep.Data, 0)
	if r.U4("count") != 1 {
		return 0, fmt.Errorf("Target loaded %v times", rep.Data)
	}
	r.U1("tag")
	class := r.ID(sz.ReferenceTypeID, "class")
	rep, err = c.Request(ctx, jdwp.CmdSetReferenceType, 4, jdwp.AppendID(nil, sz.ReferenceTypeID, class)) // Fields
	if err != nil {
		return 0, err
	}
	r = wire.NewReader(rep.Data, 0)
	n := r.U4("fields")
	var field uint64
	for i := uint32(0); i < n && r.Err() == nil; i++ {
		id := r.ID(sz.FieldID, "field")
		name := r.JDWPString("name")
		r.JDWPString("signature")
		r.U4("modifiers")
		if name == "counter" {
			field = id
		}
	}
	if r.Err() != nil || field == 0 {
		return 0, fmt.Errorf("no field counter: %v", r.Err())
	}
	w := wire.Writer{}
	w.ID(sz.ReferenceTypeID, class)
	w.U4(1)
	w.ID(sz.FieldID, field)
	rep, err = c.Request(ctx, jdwp.CmdSetReferenceType, 6, w.B) // GetValues
	if err != nil {
		return 0, err
	}
	r = wire.NewReader(rep.Data, 0)
	if r.U4("values") != 1 || r.U1("tag") != 'J' {
		return 0, fmt.Errorf("GetValues reply %x", rep.Data)
	}
	v := int64(r.U8("counter"))
	return v, r.Err()
}
