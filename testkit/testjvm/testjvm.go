// Package testjvm starts a real JVM with the JDWP agent on a loopback port
// for integration tests: a tiny Java program (compiled with javac into the
// test's temp dir) that runs two named worker threads, so tests can check
// thread discovery of a VM that speaks JDWP but not DDM. When java or javac
// is missing the test is skipped with the reason, or fails under CI.
package testjvm

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// Source is the Java program. It prints READY once its threads run, and
// calls Target.work() in a loop on the "ddmtui-worker" thread so a debugger
// test can set a breakpoint there.
const Source = `
public class Target {
    static volatile long counter;

    static void work(int i) {
        counter += i;
    }

    public static void main(String[] args) throws Exception {
        Thread worker = new Thread(() -> {
            int i = 0;
            while (true) {
                work(i++);
                try { Thread.sleep(50); } catch (InterruptedException e) { return; }
            }
        }, "ddmtui-worker");
        Thread sleeper = new Thread(() -> {
            try { Thread.sleep(Long.MAX_VALUE); } catch (InterruptedException e) { }
        }, "ddmtui-sleeper");
        sleeper.setDaemon(true);
        worker.start();
        sleeper.start();
        // READY promises the sleeper sleeps: wait until it does.
        while (sleeper.getState() != Thread.State.TIMED_WAITING) {
            Thread.sleep(1);
        }
        System.out.println("READY");
        System.out.flush();
        worker.join();
    }
}
`

// ThreadNames are the names of the two threads Source starts.
var ThreadNames = []string{"ddmtui-worker", "ddmtui-sleeper"}

// JVM is a running JVM with JDWP on Addr.
type JVM struct {
	Addr string
	Port int
	Cmd  *exec.Cmd
}

// FreePort returns a loopback TCP port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Start compiles Source and runs it with -agentlib:jdwp on a loopback port.
// The JVM is killed when the test ends.
func Start(t testing.TB) *JVM {
	t.Helper()
	java := testpeer.Require(t, "java")
	javac := testpeer.Require(t, "javac")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Target.java"), []byte(Source), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(javac, "-g", "-d", dir, filepath.Join(dir, "Target.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	for attempt := 0; attempt < 3; attempt++ {
		port := FreePort(t)
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		cmd := exec.Command(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1",
			"-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address="+addr,
			"-cp", dir, "Target")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ready := make(chan bool, 1)
		go func() {
			sc := bufio.NewScanner(stdout)
			ok := false
			for sc.Scan() {
				line := sc.Text()
				if strings.Contains(line, "READY") && !ok {
					ok = true
					ready <- true
				}
			}
			if !ok {
				ready <- false
			}
		}()
		select {
		case ok := <-ready:
			if ok {
				jvm := &JVM{Addr: addr, Port: port, Cmd: cmd}
				t.Cleanup(jvm.Kill)
				return jvm
			}
		case <-time.After(30 * time.Second):
		}
		cmd.Process.Kill()
		cmd.Wait()
	}
	t.Fatal("the JVM did not start (port collisions or a slow machine)")
	return nil
}

// Kill ends the JVM and waits for it.
func (j *JVM) Kill() {
	if j.Cmd.ProcessState == nil {
		j.Cmd.Process.Kill()
		j.Cmd.Wait()
	}
}

// Alive reports whether the JVM process is still running.
func (j *JVM) Alive() bool {
	return j.Cmd.ProcessState == nil && j.Cmd.Process.Signal(syscallZero) == nil
}
