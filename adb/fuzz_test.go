package adb

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// FuzzParseDevices: any bytes either fail with ErrProtocol or give devices
// with a serial and a state, and a short-format list re-encodes to the
// same devices.
func FuzzParseDevices(f *testing.F) {
	f.Add([]byte("emulator-5554\tdevice\n127.0.0.1:5556\toffline\n"))
	f.Add([]byte("127.0.0.1:16001        device product:ddmsim model:DDM_Sim device:ddmsim transport_id:1\n"))
	f.Add([]byte("0123456789ABCDEF       no permissions (user in plugdev group; are your udev rules wrong?); see [http://developer.android.com/tools/device.html] usb:1-2\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		devs, err := ParseDevices(b)
		if err != nil {
			return
		}
		var short strings.Builder
		for _, d := range devs {
			if d.Serial == "" || d.State == "" {
				t.Fatalf("empty field in %+v", d)
			}
			fmt.Fprintf(&short, "%s\t%s\n", d.Serial, d.State)
		}
		if strings.ContainsAny(short.String(), "\r") {
			return
		}
		again, err := ParseDevices([]byte(short.String()))
		if err != nil || len(again) != len(devs) {
			t.Fatalf("short re-encoding: %v, %d vs %d devices", err, len(again), len(devs))
		}
		for i := range devs {
			if again[i].Serial != devs[i].Serial || again[i].State != devs[i].State {
				t.Fatalf("device %d: %+v vs %+v", i, again[i], devs[i])
			}
		}
	})
}

// FuzzParsePIDs: accepted lists are sorted, unique, positive, and
// re-encode to an accepted list with the same pids.
func FuzzParsePIDs(f *testing.F) {
	f.Add([]byte("4242\n4251\n"))
	f.Add([]byte(""))
	f.Add([]byte("1\n2147483647\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		pids, err := ParsePIDs(b)
		if err != nil {
			return
		}
		var enc []byte
		for i, p := range pids {
			if p <= 0 || (i > 0 && pids[i-1] >= p) {
				t.Fatalf("bad list %v", pids)
			}
			enc = fmt.Appendf(enc, "%d\n", p)
		}
		again, err := ParsePIDs(enc)
		if err != nil || !slices.Equal(again, pids) {
			t.Fatalf("re-encoding: %v %v vs %v", err, again, pids)
		}
	})
}

// FuzzReadFramed reads track messages back to back from arbitrary bytes:
// it must end in an error (EOF at the latest) without panicking, never
// return more than the bound, and never consume more than it was given.
func FuzzReadFramed(f *testing.F) {
	f.Add([]byte("000a4242\n4251\n00054242\n0000"))
	f.Add([]byte("0017127.0.0.1:16001\tdevice\n"))
	f.Add([]byte("10000" + strings.Repeat("a", 0x10000)))
	f.Add([]byte("fffff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		const bound = 1 << 16
		r := bytes.NewReader(b)
		for i := 0; ; i++ {
			msg, err := readFramed(r, bound)
			if err != nil {
				break
			}
			if len(msg) > bound {
				t.Fatalf("message of %d bytes beyond the bound", len(msg))
			}
			if i > len(b) {
				t.Fatal("more messages than bytes")
			}
		}
		if payload, err := splitOneShot(b); err == nil && len(payload) >= len(b) {
			t.Fatalf("one-shot payload of %d bytes from %d", len(payload), len(b))
		}
	})
}
