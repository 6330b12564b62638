package monitor

import (
	"testing"

	"github.com/ddmtui/ddmtui/jdwp"
)

// The process budget for ordinary traffic (issue 30's soak lowered it to
// 48 MiB) still reads the largest packet a VM may send unasked, at the 1.5
// times its length a large packet is read at; and the stream budget reads
// the largest awaited transfer.
func TestPacketBudgetsFitTheirLargestPacket(t *testing.T) {
	if need := int64(DefaultVMPacketLen) * 3 / 2; jdwp.DefaultProcessBudget < need {
		t.Errorf("jdwp.DefaultProcessBudget %d cannot read a %d-byte packet (needs %d)", jdwp.DefaultProcessBudget, DefaultVMPacketLen, need)
	}
	o := SessionOptions{}
	o.fillLimits()
	if need := int64(o.StreamPacketLen) * 3 / 2; jdwp.DefaultStreamBudget < need {
		t.Errorf("jdwp.DefaultStreamBudget %d cannot read a %d-byte transfer (needs %d)", jdwp.DefaultStreamBudget, o.StreamPacketLen, need)
	}
}
