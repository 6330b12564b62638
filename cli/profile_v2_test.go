package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/sim"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/trace"
)

// On a device whose ART writes method-trace format V2 (API 35 on), `ddmtui
// profile` asks for it: MPRS with ddm.TraceFormatV2 in its flags (ART
// writes V2 only to files), and reads the version 5 file back through
// adb. On API 34 it asks for format V1 over DDM (MPSS, flags 0).
func TestProfileAsksModernDeviceForFormatV2(t *testing.T) {
	leakcheck.Check(t)
	v2 := sim.ProfileStart{Mode: ddm.ProfilingMethodTrace, BufferSize: 8 << 20, Flags: ddm.TraceFormatV2, File: "/sdcard/com.example.v2.trace"}
	v1 := sim.ProfileStart{Mode: ddm.ProfilingMethodTrace, BufferSize: 8 << 20}
	for _, c := range []struct {
		api, vmAPI int // the device's API level, the one its VM behaves as
		noSDCard   bool
		want       sim.ProfileStart
		version    int
	}{
		{35, 35, false, v2, trace.VersionDualClockV2},
		{34, 34, false, v1, 3},
		// An ART that ignores the flag writes format V1: read the same way.
		{35, 34, false, v2, 3},
		// A VM that cannot create the file (FAIL) gets the V1 request (MPSS).
		{35, 35, true, v1, 3},
	} {
		r := startADBRig(t, []sim.VMSpec{{PID: 3500, App: "com.example.v2", Package: "com.example.v2", Family: sim.ART, API: c.vmAPI, Threads: 2, Seed: 4, NoSDCard: c.noSDCard}})
		r.dev.SetAPI(c.api)
		out := filepath.Join(t.TempDir(), "v2.trace")
		text, err := runApp(t, "profile", "--pid", "3500", "--duration", "200ms", "-o", out, "--adb", r.server.Addr(), "--scan", "off")
		if err != nil {
			t.Fatalf("API %d: %v\n%s", c.api, err, text)
		}
		if got := r.dev.VM(3500).LastProfileStart(); got != c.want {
			t.Errorf("API %d: started %+v, want %+v", c.api, got, c.want)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		p, err := trace.ReadProfile(bytes.NewReader(data), trace.BuildOptions{})
		if err != nil {
			t.Fatalf("API %d: the trace does not parse: %v", c.api, err)
		}
		if p.Header.DataVersion != c.version || p.Records < 2000 || p.Clocks != trace.Dual {
			t.Errorf("API %d: data version %d, %d records, clocks %v", c.api, p.Header.DataVersion, p.Records, p.Clocks)
		}
		if !strings.Contains(text, "wrote "+out) {
			t.Errorf("API %d: output %q", c.api, text)
		}
	}
}
