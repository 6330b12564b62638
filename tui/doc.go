// Package tui is ddmtui's terminal dashboard: a VM list, the selected VM's
// live thread table, its heap (HPIF summary, the HPSG bitmap, and the
// process memory from dumpsys meminfo), the stack of the selected thread,
// the device log, and a status line. It never touches a socket; requests to
// VMs go through a Controller (one VMControl per VM), off the UI goroutine,
// and every widget change happens on the UI goroutine through
// QueueUpdateDraw, at most about 30 times a second whatever the traffic.
//
// The model reaches the panes by two paths. VMs, threads, heaps and
// memory: the monitor's Store, through a coalescing Bus subscription, each
// change handed to every pane's Update. The device log does not use the
// bus: the log pane holds a devicelog.Cursor on the VM's devicelog.Log
// (from Config.Log) and an owned job waits on the cursor's Changed channel
// and posts a pull to the UI goroutine at most once a frame (logpane.go,
// watch).
//
// Each pane is a component of its own (see Pane): vmpane.go,
// threadpane.go, heappane.go (with memview.go), stackpane.go, logpane.go
// (with logrender.go), statusline.go. The Dashboard (this file and
// layout.go, overlays.go) keeps only the layout, the focus, the event pump
// and key routing; vmactions.go holds the actions on the selected VM.
//
// Sub-packages hold pieces shared with other views: keymap (key tables that
// generate help), style (palette, NO_COLOR, escaping), viewer (the base the
// full-screen viewers are built on), and the viewers themselves.
package tui
