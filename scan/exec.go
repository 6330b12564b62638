package scan

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ddmtui/ddmtui/adb"
)

// adbExec runs cmd through the device's exec: service (Android 5 and
// later: no PTY, so no CR LF and binary-safe) and returns its output,
// bounded as adb.Client.Shell bounds shell: output. A device without
// exec: refuses the stream, which is the error callers fall back on.
// (A minimal stand-in until adb/ offers its own exec client.)
func adbExec(ctx context.Context, c *adb.Client, serial, cmd string) ([]byte, error) {
	nc, err := c.OpenTransport(ctx, serial, "exec:"+cmd)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	stop := context.AfterFunc(ctx, func() { _ = nc.SetReadDeadline(time.Unix(1, 0)) })
	defer stop()
	limit := c.MaxShellOutput
	if limit <= 0 {
		limit = adb.DefaultMaxShellOutput
	}
	out, err := io.ReadAll(io.LimitReader(nc, int64(limit)+1))
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			err = cerr
		}
		return out, fmt.Errorf("adb: exec:%s: reading output: %w", cmd, err)
	}
	if len(out) > limit {
		return out[:limit], fmt.Errorf("adb: exec:%s: output exceeds %d bytes", cmd, limit)
	}
	return out, nil
}
