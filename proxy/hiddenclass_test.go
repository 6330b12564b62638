package proxy

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/internal/wire"
	"github.com/ddmtui/ddmtui/jdwp"
	"github.com/ddmtui/ddmtui/jdwpspy"
	"github.com/ddmtui/ddmtui/testkit/leakcheck"
	"github.com/ddmtui/ddmtui/testkit/testjvm"
	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

// TestHiddenClassNamesAsJDB: issue 29 #18. A real JVM's lambda classes are
// hidden classes, whose JDWP signatures have a '.' before the suffix; the
// spy named them "Target$$Lambda$14.0x…" where jdb prints
// "Target$$Lambda$14/0x…". Every lambda class the JVM lists is named here as
// jdb's classes command names it.
func TestHiddenClassNamesAsJDB(t *testing.T) {
	leakcheck.Check(t)
	jdb := testpeer.Require(t, "jdb")
	jvm := testjvm.Start(t)

	// What jdb prints.
	s := startJDB(t, jdb, jvm.Port)
	s.expect("> ", 30*time.Second)
	s.send("classes")
	out := s.expect("Target\n", 15*time.Second)
	s.send("exit")
	<-s.exited
	want := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "Target$$Lambda") {
			want[l] = true
		}
	}
	if len(want) == 0 {
		t.Fatalf("jdb listed no Target lambda class:\n%s", out)
	}

	// What the JVM sends, named by jdwpspy.ClassNameFromSignature.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, err := jdwp.Dial(ctx, jvm.Addr, jdwp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	sz, err := c.IDSizes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := c.Request(ctx, jdwp.CmdSetVirtualMachine, 3 /* AllClasses */, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := wire.NewReader(rep.Data, 0)
	got := map[string]bool{}
	for n := r.Count(uint64(r.U4("classes")), 1+sz.ReferenceTypeID+4+4, "classes"); n > 0 && r.Err() == nil; n-- {
		r.U1("tag")
		r.ID(sz.ReferenceTypeID, "type")
		sig := r.JDWPString("signature")
		r.U4("status")
		if strings.HasPrefix(sig, "LTarget$$Lambda") {
			if !strings.Contains(sig, ".0x") {
				t.Errorf("signature %q: expected the hidden-class '.'", sig)
			}
			got[jdwpspy.ClassNameFromSignature(sig)] = true
		}
	}
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	for name := range want {
		if !got[name] {
			t.Errorf("jdb names %q; the spy's names: %v", name, got)
		}
	}
}
