package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/proxy"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
)

// startServeSim serves an ART and a JVM-like simulated VM on free ports and
// returns the --scan value and the ART VM's port.
func startServeSim(t *testing.T) (scanFlag string, artPort int) {
	t.Helper()
	dev := sim.NewDevice("t")
	dev.Add(sim.NewVM(sim.VMSpec{PID: 501, App: "com.example.debuggee", Family: sim.ART, Threads: 2, Seed: 5}))
	dev.Add(sim.NewVM(sim.VMSpec{PID: 502, App: "jvm", Family: sim.JVM, Threads: 1, Seed: 6}))
	t.Cleanup(func() { dev.Close() })
	base := freePorts(t, 2)
	if _, err := dev.ServeLocal("127.0.0.1", base); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%d-%d", base, base+1), base
}

// attachWhenReady connects to a proxy port as a debugger, retrying while
// the proxy turns it away (no VM selected yet), and asks Version.
func attachWhenReady(t *testing.T, port int) jdwp.Version {
	t.Helper()
	deadline := time.Now().Add(8 * time.Second)
	for time.Now().Before(deadline) {
		nc, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err != nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if err := jdwp.ClientHandshake(nc, 2*time.Second); err != nil {
			nc.Close()
			time.Sleep(50 * time.Millisecond)
			continue
		}
		c := jdwp.NewConn(nc, jdwp.Options{IDBase: 1})
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		v, err := c.Version(ctx)
		if err == nil {
			_, err = c.IDSizes(ctx)
		}
		cancel()
		if err == nil {
			// Stay attached for a moment: serve prints the VM's latest state,
			// and an attach shorter than its turn of the event loop is
			// folded into the detach that follows (the bus coalesces).
			time.Sleep(300 * time.Millisecond)
		}
		c.Close()
		if err == nil {
			return v
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no debugger session through port %d", port)
	return jdwp.Version{}
}

func TestServeSpyJSON(t *testing.T) {
	leakcheck.Check(t)
	scanFlag, artPort := startServeSim(t)
	base := freePorts(t, 3)
	selected := base + 2
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := runApp(t, "serve", "--adb", "off", "--scan", scanFlag, "--scan-interval", "100ms",
			"--debug-base", fmt.Sprint(base), "--selected-port", fmt.Sprint(selected), "--select", "501",
			"--spy", "--json", "--duration", "4s")
		done <- result{out, err}
	}()
	v := attachWhenReady(t, selected)
	if !strings.Contains(v.Description, "Android Runtime") {
		t.Errorf("the selected port led to %q, want the ART VM (pid 501)", v.Description)
	}
	res := <-done
	if res.err != nil {
		t.Fatalf("serve: %v\n%s", res.err, res.out)
	}
	artKey := fmt.Sprintf("local:%d", artPort)
	var (
		ports      = map[string]int{}
		attached   bool
		selectedOK bool
		cmd, reply map[string]any
		leftNote   string
	)
	sc := bufio.NewScanner(strings.NewReader(res.out))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("not a JSON line: %q (%v)", sc.Text(), err)
		}
		key, _ := m["key"].(string)
		switch m["event"] {
		case "vm":
			if p, ok := m["debug_port"].(float64); ok && p != 0 {
				ports[key] = int(p)
			}
			if key == artKey && m["debugger"] == "attached" {
				attached = true
			}
		case "selected":
			selectedOK = selectedOK || (key == artKey && m["port"] == float64(selected))
		case "packet":
			// A dial that lands before --select has picked the VM is refused
			// (attachWhenReady then dials again): that record has no VM key.
			if key == "" && m["note"] == "no VM is selected" {
				continue
			}
			if key != artKey {
				t.Errorf("packet of %s: %s", key, sc.Text())
			}
			if m["name"] == "VirtualMachine.Version" && m["type"] == "command" && cmd == nil {
				cmd = m
			}
			if m["name"] == "VirtualMachine.Version" && m["type"] == "reply" && reply == nil {
				reply = m
			}
			if s, _ := m["summary"].(string); strings.Contains(s, "left") {
				leftNote, _ = m["note"].(string)
			}
		}
	}
	if len(ports) != 2 || ports[artKey] < base || ports[artKey] > base+1 {
		t.Errorf("debug ports %v, want two from %d", ports, base)
	}
	if !attached || !selectedOK {
		t.Errorf("attached line %v, selected line %v", attached, selectedOK)
	}
	if cmd == nil || cmd["dir"] != "to_vm" || cmd["port"] != float64(selected) {
		t.Errorf("Version command line: %v", cmd)
	}
	if reply == nil || reply["dir"] != "from_vm" || reply["latency_ms"] == nil || !strings.Contains(fmt.Sprint(reply["summary"]), "Dalvik") {
		t.Errorf("Version reply line: %v", reply)
	}
	if !strings.Contains(leftNote, "re-opened") {
		t.Errorf("leave note %q, want the DDM VM re-opened", leftNote)
	}
}

func TestServeText(t *testing.T) {
	leakcheck.Check(t)
	scanFlag, artPort := startServeSim(t)
	base := freePorts(t, 3)
	selected := base + 2
	done := make(chan string, 1)
	go func() {
		out, err := runApp(t, "serve", "--adb", "off", "--scan", scanFlag, "--scan-interval", "100ms",
			"--debug-base", fmt.Sprint(base), "--selected-port", fmt.Sprint(selected), "--spy", "--duration", "3s")
		if err != nil {
			out += "\nerror: " + err.Error()
		}
		done <- out
	}()
	attachWhenReady(t, selected)
	out := <-done
	artKey := fmt.Sprintf("local:%d", artPort)
	for _, want := range []string{
		artKey + "  pid 501  com.example.debuggee  Dalvik v2.1.0  debugger port ",
		"selected-VM port " + fmt.Sprint(selected) + " leads to local:",
		"-> #1 VirtualMachine.Version",
		"<- #1 reply VirtualMachine.Version",
		"debugger attached",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "error:") {
		t.Errorf("serve failed:\n%s", out)
	}
}

func TestServeFlags(t *testing.T) {
	base := freePorts(t, 1)
	out, err := runApp(t, "serve", "--adb", "off", "--scan", "off", "--debug-bind", "0.0.0.0",
		"--debug-base", fmt.Sprint(base), "--selected-port", "0", "--duration", "200ms")
	if err != nil || !strings.Contains(out, "warning: debugger ports listen on 0.0.0.0") {
		t.Errorf("non-loopback bind: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--scan", "8000-8700"}, "overlaps the debugger ports"},
		{[]string{"--scan", "8690-8710", "--debug-base", "9000"}, "contains the selected-VM port 8700"},
		{[]string{"--debug-base", "0"}, "--debug-base 0"},
		{[]string{"--selected-port", "70000"}, "--selected-port 70000"},
		{[]string{"--debug-spin", "-1ms"}, "--debug-spin -1ms: want 0"},
		{[]string{"--debug-spin", "11ms"}, "--debug-spin 11ms: want 0"},
	} {
		_, err := runApp(t, append([]string{"serve", "--adb", "off", "--duration", "100ms"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("serve %v: %v, want %q", tc.args, err, tc.want)
		}
	}
}

// serve polls threads at --thread-interval (it used to ignore the flag).
func TestServeHonoursThreadInterval(t *testing.T) {
	leakcheck.Check(t)
	dev := sim.NewDevice("t")
	vm := sim.NewVM(sim.VMSpec{PID: 531, App: "com.example.poll", Family: sim.ART, Threads: 2, Seed: 3})
	dev.Add(vm)
	t.Cleanup(func() { dev.Close() })
	port := freePorts(t, 1)
	if _, err := dev.ServeLocal("127.0.0.1", port); err != nil {
		t.Fatal(err)
	}
	base := freePorts(t, 1)
	out, err := runApp(t, "serve", "--adb", "off", "--scan", fmt.Sprint(port), "--scan-interval", "50ms",
		"--debug-base", fmt.Sprint(base+100), "--selected-port", "0", "--thread-interval", "50ms", "--duration", "1500ms")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// At 50 ms a second and more of polling is 20 THST requests or more; at
	// the 1 s default it would be two or three, with the session's few others.
	if n := vm.Stats().DDMRequests.Load(); n < 15 {
		t.Fatalf("%d DDM requests in 1.5 s at a 50 ms thread interval", n)
	}
}

// --debug-spin reaches the proxy: its default as proxy.DefaultSpin, 0 as
// "off" (negative in proxy.Options, where 0 would mean the default).
func TestProxyOptionsSpin(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want time.Duration
	}{
		{nil, proxy.DefaultSpin},
		{[]string{"--debug-spin", "0"}, -1},
		{[]string{"--debug-spin", "50us"}, 50 * time.Microsecond},
		{[]string{"--debug-spin", "10ms"}, 10 * time.Millisecond},
	} {
		var got proxy.Options
		app := &cli.App{Flags: proxyFlags(), Action: func(c *cli.Context) error {
			var err error
			got, err = proxyOptions(c, monitor.Discovery{})
			return err
		}}
		if err := app.Run(append([]string{"ddmtui"}, tc.args...)); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if got.Spin != tc.want {
			t.Errorf("%v: Spin %v, want %v", tc.args, got.Spin, tc.want)
		}
	}
}
