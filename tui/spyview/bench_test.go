package spyview

import (
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/ddmtui/ddmtui/tui/style"
)

// One frame of a busy debugger while following: a batch of 32 records
// added to a full view (DefaultMaxRecords kept, the oldest dropped), with
// a filter in force; "draw" then draws a 200x50 screen. Follow does this
// at most about 30 times a second; "add" is what the dashboard pays while
// the overlay is hidden, "draw" what it pays while it is shown.
func BenchmarkFollowFrame(b *testing.B) {
	for _, draw := range []bool{false, true} {
		name := "add"
		if draw {
			name = "draw"
		}
		b.Run(name, func(b *testing.B) {
			screen := tcell.NewSimulationScreen("UTF-8")
			if err := screen.Init(); err != nil {
				b.Fatal(err)
			}
			defer screen.Fini()
			screen.SetSize(200, 50)
			v := New(Options{Palette: style.Palette{}})
			v.SetRect(0, 0, 200, 50)
			all := traffic(DefaultMaxRecords)
			v.Add(all[:DefaultMaxRecords]...)
			v.Table().SetFilter("reply")
			v.Draw(screen)
			batch := all[:32]
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				v.Add(batch...)
				if draw {
					v.Draw(screen)
				}
			}
		})
	}
}
