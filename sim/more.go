package sim

import (
	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/jdwp"
)

// handleMoreDDMLocked answers the allocation-tracker and profiling-status
// chunks. It reports whether it replied.
func (vm *VM) handleMoreDDMLocked(c *vmConn, p *jdwp.Packet, msg ddm.Message) bool {
	switch m := msg.(type) {
	case *ddm.AllocTrackerStatusRequest:
		c.replyChunk(p, &ddm.AllocTrackerStatus{Enabled: c.allocTrack})
		return true
	case *ddm.AllocTrackerEnableRequest:
		c.allocTrack = m.Enable
		c.replyEmpty(p)
		return true
	}
	return false
}
