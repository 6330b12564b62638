package hostile

import (
	"context"
	"net"
	"time"

	"github.com/ddmtui/ddmtui/jdwp"
)

// HandshakeChurn is a debugger client that connects to addr, completes the
// JDWP handshake and closes without a command, every interval until ctx
// ends (issue 30 item 4: twice a second locked a real debugger out). It
// returns how many handshakes completed.
func HandshakeChurn(ctx context.Context, addr string, interval time.Duration) int {
	n := 0
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if nc, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", addr); err == nil {
			if jdwp.ClientHandshake(nc, time.Second) == nil {
				n++
			}
			nc.Close()
		}
		select {
		case <-ctx.Done():
			return n
		case <-t.C:
		}
	}
}
