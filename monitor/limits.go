package monitor

import "github.com/ddmtui/ddmtui/jdwp"

// DefaultVMPacketLen bounds the packets a VM sends a session unasked or in
// reply (THST, HPSG, REAL, STKL …): far above what real VMs send (an
// allocation tracker dump of 64k records is a few MiB), far below a streamed
// heap dump, which alone is allowed up to SessionOptions.StreamPacketLen
// while the session waits for it.
const DefaultVMPacketLen = 32 << 20

func (o *SessionOptions) fillLimits() {
	if o.MaxPacketLen <= 0 {
		o.MaxPacketLen = DefaultVMPacketLen
	}
	if o.StreamPacketLen <= 0 {
		o.StreamPacketLen = jdwp.DefaultMaxPacketLen
	}
	o.StreamPacketLen = max(o.StreamPacketLen, o.MaxPacketLen)
	if o.MaxDeviceFile <= 0 {
		o.MaxDeviceFile = DefaultMaxDeviceFile
	}
}

// DefaultMaxDeviceFile bounds a file pulled from the device (a heap dump of
// a large app is a few hundred MB); it streams to its destination, so the
// bound is on disk, not memory.
const DefaultMaxDeviceFile = 2 << 30

// maxHeldDeviceFile bounds a device file read into memory (a method trace
// written by MPRS, the ANR file).
const maxHeldDeviceFile = 256 << 20
