package adbd

import (
	"bytes"
	"fmt"

	"github.com/ddmtui/ddmtui/adb"
)

// AppLister is a Device whose daemon offers track-app (Android 12+,
// spec/adb-track-app.md). A Device without it refuses the service, as a
// device before Android 12 does.
type AppLister interface {
	// AppProcesses returns the debuggable and profileable processes and
	// a channel closed at the next change; ok is false when the device
	// has no track-app (the service is refused).
	AppProcesses() (procs []adb.AppProcess, changed <-chan struct{}, ok bool)
}

// maxAppMessage is the most a real adbd puts in one track-app message:
// min(0xffff, the transport's max payload) including the hex4 prefix;
// processes beyond it are cut silently (daemon/jdwp_service.cpp).
const maxAppMessage = 0xffff

// trackAppService returns the track-app service, or false when the device
// does not offer it.
func (c *conn) trackAppService() (func(*stream), bool) {
	l, ok := c.srv.dev.(AppLister)
	if !ok {
		return nil, false
	}
	if _, _, ok := l.AppProcesses(); !ok {
		return nil, false
	}
	return func(st *stream) { c.trackApp(st, l) }, true
}

// trackApp sends the framed AppProcesses message now and on every change.
func (c *conn) trackApp(st *stream, l AppLister) {
	defer st.close()
	if st.accept() != nil {
		return
	}
	st.discardInbound()
	var last []byte
	for {
		procs, changed, ok := l.AppProcesses()
		if !ok {
			return
		}
		msg := appMessage(procs, min(maxAppMessage, int(st.maxPayload)))
		if !bytes.Equal(msg, last) {
			if err := st.write(msg); err != nil {
				return
			}
			last = msg
		}
		select {
		case <-changed:
		case <-st.ctx.Done():
			return
		}
	}
}

// appMessage formats one track-app message within limit bytes (the hex4
// prefix included), leaving out the processes that do not fit.
func appMessage(procs []adb.AppProcess, limit int) []byte {
	var body []byte
	for _, p := range procs {
		next := adb.AppendAppProcesses(body, []adb.AppProcess{p})
		if 4+len(next) > limit {
			break
		}
		body = next
	}
	return append(fmt.Appendf(nil, "%04x", len(body)), body...)
}
