package viewer_test

import (
	"fmt"
	"strconv"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/tui/keymap"
	"github.com/ddmtui/ddmtui/tui/style"
	"github.com/ddmtui/ddmtui/tui/viewer"
)

// classRows is a view's Rows: its model, filtered and sorted on demand.
type classRows struct {
	names []string
	shown []int
}

func (r *classRows) Columns() []viewer.Column {
	return []viewer.Column{{Title: "CLASS", Expand: 1, Sort: "name"}, {Title: "#", Align: tview.AlignRight}}
}

func (r *classRows) Update(q viewer.Query) int {
	r.shown = r.shown[:0]
	for i, n := range r.names {
		if q.Filter == "" || n == q.Filter {
			r.shown = append(r.shown, i)
		}
	}
	return len(r.shown)
}

func (r *classRows) Cell(i, c int) *tview.TableCell {
	if c == 0 {
		return tview.NewTableCell(style.Escape(r.names[r.shown[i]]))
	}
	return tview.NewTableCell(strconv.Itoa(r.shown[i]))
}

func (r *classRows) Key(i int) string { return r.names[r.shown[i]] }

// A viewer embeds a Frame, adds its root table and its own actions; Enter
// drills into a page pushed on the tab. viewer.Run(opts, build) would show
// it full screen.
func ExampleFrame() {
	type view struct {
		*viewer.Frame
		classes *viewer.Table
	}
	v := &view{Frame: viewer.NewFrame(viewer.FrameOptions{HelpTitle: "Heap keys", Item: "class"})}
	v.classes = viewer.NewTable(&classRows{names: []string{"java.lang.String", "byte[]"}},
		viewer.TableOptions{Title: "Classes", Sorts: []viewer.Sort{{Key: 'n', Name: "name", Help: "sort by name"}}})
	v.AddTab(v.classes)
	v.AddKeys(keymap.Bind(tcell.KeyEnter, 0, "Enter", "instances of the class", "View", func() {
		v.Push(viewer.NewMessage("Instances of "+v.classes.SelectedKey(), "no heap dump loaded yet"))
	}))
	v.InputHandler()(tcell.NewEventKey(tcell.KeyEnter, 0, 0), func(tview.Primitive) {})
	fmt.Println(v.Depth(), v.Current().Title())
	// Output: 2 Instances of java.lang.String
}
