// Package viewer is the base every full-screen view of ddmtui is built on:
// the run loop (Shell: finding a terminal or failing with ErrNoTerminal,
// background work that never outlives the run) and the table-viewer frame
// that the viewers (profile, thread dump, allocations, and the heap, view
// hierarchy and call-tree viewers) embed instead of each writing its own.
//
// A Frame owns what every viewer shares: a header line; tabs, each a stack
// of pages (Enter drills in with Push, Backspace/Esc comes back); a footer
// with key hints, messages, background progress (Work) and the / filter
// prompt; the ? help page generated from the key table (tui/keymap), so
// help cannot drift from the keys; the movement keys; copy (y) and quit (q).
// A view adds only its pages and its actions.
//
// Pages:
//   - Table: rows from a Rows source (columns, Update for a Query of filter
//     and order, cells drawn on demand, a key per row that keeps the
//     selection), the sort keys of its Sorts (listed in help, the sorted
//     column marked ▼/▲), headings the selection skips, an optional detail
//     pane (Tab gives it the movement keys), and a line saying why it is
//     empty.
//   - a tree-table (NewTree): a TreeSource's nodes with depth, expanded and
//     collapsed with →/←/Space, the hot path opened with * (HotPather); a
//     filter shows the matching nodes and the path to each.
//   - Text: scrolled text (a stack, an object's fields); NewMessage says why
//     a page is empty ("no heap dump: the VM refused HPDU").
//   - Custom: any tview.Primitive the view draws itself (a flame chart),
//     with the frame's header, footer, help and keys around it; keys no
//     binding takes go to it.
//
// Keys a page brings (its sorts, the tree's keys) and keys a view adds with
// keymap.Binding.In(scope) act only while a page of that scope is shown;
// all of them are in Keys(), for help and for the configuration's checks.
//
// A standalone command runs a view with Run (or NewRun in tests):
//
//	type View struct {
//		*viewer.Frame
//		classes *viewer.Table
//	}
//
//	func New(h viewer.Host, data *Model) *View {
//		v := &View{Frame: viewer.NewFrame(viewer.FrameOptions{
//			Palette: h.Palette, Quit: h.Quit, HelpTitle: "Heap keys", Item: "class"})}
//		v.SetRunner(h.Runner)
//		v.classes = viewer.NewTable(classRows{data}, viewer.TableOptions{
//			Title: "Classes", Scope: "classes",
//			Sorts: []viewer.Sort{{Key: 's', Name: "size", Help: "sort by retained size"}}})
//		v.AddTab(v.classes)
//		v.AddKeys(keymap.Bind(tcell.KeyEnter, 0, "Enter", "instances of the class", "View",
//			v.showInstances).In("classes"))
//		return v
//	}
//
//	err := viewer.Run(viewer.RunOptions{Title: path}, func(h viewer.Host) *View { return New(h, model) })
//
// Strings from a VM, a device or a file are data: cells and headers pass
// them through style.Escape; the footer's messages and hints are escaped
// by the frame.
package viewer
