package proxy

import (
	"errors"
	"testing"

	"github.com/ddmtui/ddmtui/internal/wire"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/jdwpspy"
)

// TestCompositeWithoutIDSizes: events that carry no ids (ClassUnload,
// VMDeath) decode before the VM's id sizes are known; one that carries a
// thread id does not, and says why.
func TestCompositeWithoutIDSizes(t *testing.T) {
	var w wire.Writer
	w.U1(0) // suspend policy NONE
	w.U4(2)
	w.U1(jdwp.EventClassUnload)
	w.S4(7)
	w.JDWPString("Lcom/example/Gone;")
	w.U1(jdwp.EventVMDeath)
	w.S4(0)
	c, err := jdwpspy.DecodeComposite(w.B, jdwp.IDSizes{}, nil)
	if err != nil || len(c.Events) != 2 || c.Events[0].Signature != "Lcom/example/Gone;" || c.Events[0].RequestID != 7 ||
		c.Events[1].Kind != jdwp.EventVMDeath {
		t.Fatalf("ClassUnload + VMDeath without id sizes: %+v %v", c, err)
	}

	var t2 wire.Writer
	t2.U1(0) // suspend policy NONE
	t2.U4(1)
	t2.U1(jdwp.EventThreadStart)
	t2.S4(3)
	t2.U8(1)
	if _, err := jdwpspy.DecodeComposite(t2.B, jdwp.IDSizes{}, nil); !errors.Is(err, jdwpspy.ErrNoIDSizes) {
		t.Fatalf("ThreadStart without id sizes: %v", err)
	}
}
