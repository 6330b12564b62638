package jdwp

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/testkit/testjvm"
)

// A real JVM speaks JDWP but not DDM: it must reject a DDM HELO with a JDWP
// error code (NOT_IMPLEMENTED) while standard commands succeed on the same
// connection (spec/jdwp.md §3).
func TestRealJVMRejectsDDMButAnswersJDWP(t *testing.T) {
	jvm := testjvm.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := Dial(ctx, jvm.Addr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	helo := []byte{'H', 'E', 'L', 'O', 0, 0, 0, 4, 0, 0, 0, 1}
	_, err = c.Request(ctx, CmdSetDDM, CmdDDMChunk, helo)
	var re *ReplyError
	if !errors.As(err, &re) || re.Code != ErrNotImplemented {
		t.Fatalf("DDM HELO to a JVM: err = %v, want NOT_IMPLEMENTED", err)
	}

	v, err := c.Version(ctx)
	if err != nil {
		t.Fatalf("Version after the rejected HELO: %v", err)
	}
	if v.JDWPMajor < 1 || v.VMName == "" || !strings.Contains(strings.ToLower(v.Description), "java") {
		t.Fatalf("implausible version reply: %+v", v)
	}
	sz, err := c.IDSizes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := c.AllThreads(ctx, sz)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, id := range ids {
		n, err := c.ThreadName(ctx, sz, id)
		if err != nil {
			t.Fatalf("name of thread %#x: %v", id, err)
		}
		st, err := c.ThreadStatus(ctx, sz, id)
		if err != nil {
			t.Fatalf("status of %q: %v", n, err)
		}
		if n == "ddmtui-sleeper" && st.Status != ThreadSleeping {
			t.Errorf("ddmtui-sleeper status %s, want sleeping", ThreadStatusName(st.Status))
		}
		names = append(names, n)
	}
	for _, want := range testjvm.ThreadNames {
		if !slices.Contains(names, want) {
			t.Errorf("thread %q not among %q", want, names)
		}
	}
	if !jvm.Alive() {
		t.Fatal("the JVM died during the test")
	}
}
