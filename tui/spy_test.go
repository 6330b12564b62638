package tui

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/tui/style"
)

// J opens the debugger traffic over the dashboard, fed by the inspector
// as traffic comes (spyview.Follow through the dashboard's post); the
// viewer base's / filter narrows it; q returns to the panes, and J again
// shows the same view.
func TestSpyOverlayFollowsFiltersAndLeaves(t *testing.T) {
	in := jdwpspy.NewInspector(64)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Add(1)
	go func() {
		defer wg.Done()
		in.Run(ctx)
	}()
	hs := startCfg(t, 140, 30, style.Palette{}, twoVMs, func(c *Config) { c.Inspector = in })
	hs.waitText("Binder:1234_1")

	at := time.Now()
	in.Observe(jdwpspy.Observation{At: at, VM: "local:8000", Port: 8600, Dir: jdwpspy.Session, Text: "debugger [:::http://evil]x[:::-] attached"})
	hs.key(tcell.KeyRune, 'J')
	hs.waitText("JDWP traffic through the debugger ports")
	hs.waitText("== debugger [:::http://evil]x[:::-] attached") // a tag from the peer is text

	// New traffic is appended while the overlay is up.
	cmd := &jdwp.Packet{ID: 7, CommandSet: jdwp.CmdSetVirtualMachine, Command: jdwp.CmdVMVersion}
	in.Observe(jdwpspy.Observation{At: at, VM: "local:8000", Port: 8600, Dir: jdwpspy.ToVM, Packet: cmd})
	in.Observe(jdwpspy.Observation{At: at.Add(time.Millisecond), VM: "local:8000", Port: 8600, Dir: jdwpspy.FromVM,
		Packet: &jdwp.Packet{ID: 7, Flags: jdwp.FlagReply}, Req: jdwpspy.Command{Set: cmd.CommandSet, Cmd: cmd.Command, Sent: at}, Paired: true})
	hs.waitText("-> #7 VirtualMachine.Version")
	hs.waitText("<- #7 reply VirtualMachine.Version 1.00ms")
	hs.waitText("debugger traffic: 3 ")

	hs.key(tcell.KeyRune, '/')
	hs.runes("reply")
	hs.key(tcell.KeyEnter, 0)
	hs.waitText(`debugger traffic: 1 of 3, filter "reply"`)
	hs.waitGone("-> #7 VirtualMachine.Version")

	hs.key(tcell.KeyRune, 'q')
	hs.waitGone("JDWP traffic through the debugger ports")
	hs.waitText("Binder:1234_1")
	hs.key(tcell.KeyRune, 'J')
	hs.waitText(`debugger traffic: 1 of 3, filter "reply"`)
	hs.key(tcell.KeyEscape, 0) // clears the filter first
	hs.waitText("debugger traffic: 3 ")
	hs.key(tcell.KeyEscape, 0) // then leaves
	hs.waitGone("JDWP traffic through the debugger ports")
}
