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

// FuzzSyncReplies feeds any bytes to the sync reply decoders (STAT v1/v2,
// LIST v1/v2, RECV): they end with a value or an error, never read past a
// bound, and RECV reports exactly the bytes it wrote, within the limit.
func FuzzSyncReplies(f *testing.F) {
	f.Add([]byte("STAT\xa4\x81\x00\x00\x05\x00\x00\x00\x00\xf1\x53\x65"))
	f.Add([]byte("DATA\x03\x00\x00\x00a\r\nDATA\x02\x00\x00\x00\x00bDONE\x00\x00\x00\x00"))
	f.Add([]byte("FAIL\x26\x00\x00\x00open failed: No such file or directory"))
	f.Add([]byte("DENT\xed\x41\x00\x00\x00\x10\x00\x00\x00\xf1\x53\x65\x01\x00\x00\x00.DONE" + strings.Repeat("\x00", 72)))
	f.Add([]byte("STA2" + strings.Repeat("\x01", 68)))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, id := range [][4]byte{idStat, idSta2} {
			fi, err := readStatReply(bytes.NewReader(b), id, "p")
			if err == nil && id == idStat && fi.V2 {
				t.Fatal("v1 reply decoded as v2")
			}
		}
		for _, v2 := range []bool{false, true} {
			n := 0
			_ = readListReply(bytes.NewReader(b), v2, "p", 16, func(e DirEntry) {
				n++
				if len(e.Name) > syncNameMax {
					t.Fatalf("name of %d bytes", len(e.Name))
				}
			})
			if n > 16 {
				t.Fatalf("%d entries past the bound", n)
			}
		}
		var out bytes.Buffer
		n, err := readRecvReply(bytes.NewReader(b), &out, "p", 1<<16)
		if n != int64(out.Len()) || n > 1<<16 {
			t.Fatalf("recv reported %d, wrote %d (err %v)", n, out.Len(), err)
		}
	})
}
