package cli

import (
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/monitor"
	"github.com/ddmtui/ddmtui/proxy"
	"github.com/ddmtui/ddmtui/scan"
)

// Issue 29 #17: the scan's first port maps to --debug-base, so a local VM
// keeps its debugger port from run to run (8000 → 8600, 8005 → 8605).
func TestProxyOptionsLocalFirst(t *testing.T) {
	for _, tc := range []struct {
		d    monitor.Discovery
		want int
	}{
		{monitor.Discovery{}, 0},
		{monitor.Discovery{Local: &scan.Local{Ports: scan.PortRange{First: 8000, Last: 8040}}}, 8000},
		{monitor.Discovery{Local: &scan.Local{Ports: scan.PortRange{First: 7100, Last: 7140}}}, 7100},
	} {
		var got proxy.Options
		app := &cli.App{Flags: proxyFlags(), Action: func(c *cli.Context) error {
			var err error
			got, err = proxyOptions(c, tc.d)
			return err
		}}
		if err := app.Run([]string{"ddmtui"}); err != nil {
			t.Fatal(err)
		}
		if got.LocalFirst != tc.want {
			t.Errorf("LocalFirst %d, want %d", got.LocalFirst, tc.want)
		}
	}
}
