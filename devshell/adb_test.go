package devshell

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/adb"
	"github.com/ddmtui/ddmtui/testkit/hostile"
)

// The adb implementation pulls through the adb client's sync: RECV, bound
// by the limit: an adb server whose RECV never ends is cut there.
func TestADBPullBounded(t *testing.T) {
	srv, err := hostile.Serve("127.0.0.1:0", hostile.EndlessRecv(0))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	d := NewADB(&adb.Client{Addr: srv.Addr(), Timeout: 5 * time.Second}, "hostile", nil)
	if !d.HasSync() {
		t.Fatal("an adb device without sync:")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const limit = 1 << 20
	n, err := d.PullTo(ctx, "/data/local/tmp/x.hprof", io.Discard, limit)
	if err == nil || !strings.Contains(err.Error(), "exceeds") || n > limit {
		t.Fatalf("endless RECV: %d bytes, %v; want a size error within %d bytes", n, err, limit)
	}
}
