package spyview

import (
	"context"
	"time"

	"github.com/rivo/tview"

	"github.com/ddmtui/ddmtui/jdwpspy"
)

// Updater is the part of *tview.Application that background code needs;
// tests substitute their own.
type Updater interface {
	QueueUpdateDraw(f func(), p ...tview.Primitive) *tview.Application
}

// frame is the shortest time between two updates of the view.
const frame = 33 * time.Millisecond

// Follow shows the inspector's records in v until ctx ends: first those it
// already holds, then new ones in batches, at most one update per frame.
// Records the view's feed loses when the UI is slow are counted in v's
// title. It never blocks the proxy.
func Follow(ctx context.Context, in *jdwpspy.Inspector, app Updater, v *View) {
	feed := in.Subscribe(4096)
	defer feed.Close()
	initial := in.Records()
	app.QueueUpdateDraw(func() { v.SetRecords(initial) })
	var lastSeq uint64
	if len(initial) > 0 {
		lastSeq = initial[len(initial)-1].Seq
	}

	tick := time.NewTicker(frame)
	defer tick.Stop()
	var batch []jdwpspy.Record
	for {
		select {
		case <-ctx.Done():
			return
		case r := <-feed.C():
			if r.Seq > lastSeq { // not already in the initial snapshot
				batch = append(batch, r)
				if len(batch) > 2*v.max {
					// The view keeps only v.max anyway.
					batch = append(batch[:0:0], batch[len(batch)-v.max:]...)
				}
			}
		case <-tick.C:
			if len(batch) == 0 {
				continue
			}
			recs, dropped := batch, feed.Dropped()+in.Dropped()
			batch = nil
			app.QueueUpdateDraw(func() {
				v.Add(recs...)
				v.SetDropped(dropped)
			})
		}
	}
}
