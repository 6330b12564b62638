package cli

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/sim"
)

// Issue 25 item 5: every command that accepts --thread-interval and
// --meminfo-interval hands them to the sessions it makes. Each command runs
// through NewApp with both flags set; newEngine's hook (engineHook) reports
// the options of every engine and ends the command. A command that accepts
// the flags and is missing from the table fails the test.
func TestSessionFlagsReachEveryEngine(t *testing.T) {
	const thread, meminfo = 3 * time.Second, 9 * time.Second
	want := monitor.SessionOptions{ThreadInterval: thread, MeminfoInterval: meminfo}
	off := []string{"--scan", "off", "--adb", "off"}
	nowhere := []string{"--scan", "1-1", "--adb", "off"} // for commands that refuse to look nowhere
	pid := append([]string{"--pid", "1", "--wait", "5s"}, off...)
	type tc struct {
		args []string
		want func(monitor.SessionOptions) monitor.SessionOptions
	}
	same := func(o monitor.SessionOptions) monitor.SessionOptions { return o }
	var logcatArgs []string // set below: logcat needs a device
	cases := map[string]tc{
		"list": {append([]string{"--wait", "5s"}, off...), func(o monitor.SessionOptions) monitor.SessionOptions {
			o.MeminfoInterval = -1 // list prints no memory
			return o
		}},
		"snapshot": {append([]string{"--wait", "5s"}, off...), same},
		"profile":  {append([]string{"-o", t.TempDir() + "/x.trace"}, pid...), same},
		"dump":     {pid, same},
		"heap":     {pid, same},
		"hprof":    {append([]string{"-o", t.TempDir() + "/x.hprof"}, pid...), same},
		"allocs":   {pid, same},
		"views":    {pid, same},
		"record":   {append([]string{"-o", t.TempDir() + "/x.rec"}, nowhere...), same},
		"serve":    {append([]string{"--selected-port", "0"}, nowhere...), same},
		"logcat":   {nil, same},
	}
	for _, cmd := range NewApp().Commands {
		accepts := false
		for _, f := range cmd.Flags {
			for _, n := range f.Names() {
				accepts = accepts || n == "thread-interval"
			}
		}
		if !accepts {
			continue
		}
		c, ok := cases[cmd.Name]
		if !ok {
			t.Errorf("%s accepts --thread-interval but has no case here", cmd.Name)
			continue
		}
		t.Run(cmd.Name, func(t *testing.T) {
			args := c.args
			if cmd.Name == "logcat" {
				if logcatArgs == nil {
					r := startADBRig(t, sim.Scenario(1, 1))
					logcatArgs = []string{"--adb", r.server.Addr(), "--scan", "off", "--app", "com.example.none", "--json", "--wait", "5s"}
				}
				args = logcatArgs
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var mu sync.Mutex
			var got []monitor.SessionOptions
			app := NewApp()
			var out bytes.Buffer
			app.Writer, app.ErrWriter = &out, &out
			app.Metadata = map[string]any{engineHook: func(o monitor.SessionOptions) {
				mu.Lock()
				got = append(got, o)
				mu.Unlock()
				cancel() // the engine is made: that is all this test needs
			}}
			full := append([]string{"ddmtui", cmd.Name, "--thread-interval", thread.String(), "--meminfo-interval", meminfo.String()}, args...)
			err := app.RunContext(ctx, full) // ends cancelled, or with no VM found
			mu.Lock()
			defer mu.Unlock()
			if len(got) == 0 {
				t.Fatalf("%s made no engine: %v (output: %s)", cmd.Name, err, out.String())
			}
			for _, o := range got {
				if w := c.want(want); o.ThreadInterval != w.ThreadInterval || o.MeminfoInterval != w.MeminfoInterval {
					t.Errorf("%s made an engine with thread interval %v, meminfo interval %v; want %v, %v",
						cmd.Name, o.ThreadInterval, o.MeminfoInterval, w.ThreadInterval, w.MeminfoInterval)
				}
			}
		})
	}
}

// --meminfo-interval 0 turns the meminfo reader off in a command that had
// ignored the flag (heap).
func TestMeminfoIntervalZeroIsOff(t *testing.T) {
	app := NewApp()
	var out bytes.Buffer
	app.Writer, app.ErrWriter = &out, &out
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var got *monitor.SessionOptions
	app.Metadata = map[string]any{engineHook: func(o monitor.SessionOptions) { got = &o; cancel() }}
	_ = app.RunContext(ctx, []string{"ddmtui", "heap", "--meminfo-interval", "0", "--pid", "1", "--wait", "5s", "--scan", "off", "--adb", "off"})
	if got == nil || got.MeminfoInterval != -1 || got.ThreadInterval != time.Second {
		t.Fatalf("heap --meminfo-interval 0 made %+v (output: %s)", got, out.String())
	}
}
