package jdwp

import (
	"context"
	"fmt"

	"github.com/ddmtui/ddmtui/internal/wire"
)

// The standard commands a monitor uses for VMs that do not speak DDM
// (spec/jdwp.md §6). Each has a pure encoder and decoder, used by both the
// monitor (through Conn) and the simulator (which answers them), and a Conn
// method that runs the request.
//
// Never send these to a VM that answered HELO: any non-DDM packet makes a VM
// believe a debugger is attached (spec/jdwp.md §3).

// Version is the reply to VirtualMachine.Version.
type Version struct {
	Description string
	JDWPMajor   int32
	JDWPMinor   int32
	VMVersion   string
	VMName      string
}

// AppendVersion encodes a VirtualMachine.Version reply.
func AppendVersion(b []byte, v Version) []byte {
	w := wire.Writer{B: b}
	w.JDWPString(v.Description)
	w.S4(v.JDWPMajor)
	w.S4(v.JDWPMinor)
	w.JDWPString(v.VMVersion)
	w.JDWPString(v.VMName)
	return w.B
}

// DecodeVersion decodes a VirtualMachine.Version reply.
func DecodeVersion(b []byte) (Version, error) {
	r := wire.NewReader(b, HeaderLen)
	v := Version{
		Description: r.JDWPString("version description"),
		JDWPMajor:   r.S4("jdwp major"),
		JDWPMinor:   r.S4("jdwp minor"),
		VMVersion:   r.JDWPString("vm version"),
		VMName:      r.JDWPString("vm name"),
	}
	return v, r.Err()
}

// IDSizes are the VM-chosen sizes of JDWP ids (VirtualMachine.IDSizes).
type IDSizes struct {
	FieldID, MethodID, ObjectID, ReferenceTypeID, FrameID int
}

// Valid reports whether every size is within 1..8.
func (s IDSizes) Valid() bool {
	for _, n := range []int{s.FieldID, s.MethodID, s.ObjectID, s.ReferenceTypeID, s.FrameID} {
		if n < 1 || n > 8 {
			return false
		}
	}
	return true
}

// AppendIDSizes encodes an IDSizes reply.
func AppendIDSizes(b []byte, s IDSizes) []byte {
	w := wire.Writer{B: b}
	for _, n := range []int{s.FieldID, s.MethodID, s.ObjectID, s.ReferenceTypeID, s.FrameID} {
		w.S4(int32(n))
	}
	return w.B
}

// DecodeIDSizes decodes an IDSizes reply; sizes outside 1..8 are an error.
func DecodeIDSizes(b []byte) (IDSizes, error) {
	r := wire.NewReader(b, HeaderLen)
	s := IDSizes{
		FieldID:         int(r.S4("fieldID size")),
		MethodID:        int(r.S4("methodID size")),
		ObjectID:        int(r.S4("objectID size")),
		ReferenceTypeID: int(r.S4("referenceTypeID size")),
		FrameID:         int(r.S4("frameID size")),
	}
	if r.Err() != nil {
		return s, r.Err()
	}
	if !s.Valid() {
		return s, fmt.Errorf("jdwp: IDSizes reply with a size outside 1..8: %+v", s)
	}
	return s, nil
}

// AppendIDList encodes `int count` followed by ids of one size (AllThreads,
// TopLevelThreadGroups).
func AppendIDList(b []byte, size int, ids []uint64) []byte {
	w := wire.Writer{B: b}
	w.U4(uint32(len(ids)))
	for _, id := range ids {
		w.ID(size, id)
	}
	return w.B
}

// DecodeIDList decodes `int count` + ids. The count is checked against the
// bytes present before anything is allocated.
func DecodeIDList(b []byte, size int) ([]uint64, error) {
	r := wire.NewReader(b, HeaderLen)
	n := r.U4("id count")
	if r.Err() != nil {
		return nil, r.Err()
	}
	if size < 1 || size > 8 {
		return nil, fmt.Errorf("jdwp: id size %d out of range", size)
	}
	if uint64(n)*uint64(size) > uint64(r.Len()) {
		r.Fail("id list", wire.ErrTooLong)
		return nil, r.Err()
	}
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = r.ID(size, "id")
	}
	return ids, r.Err()
}

// AppendID encodes a single id (the data of ThreadReference commands).
func AppendID(b []byte, size int, id uint64) []byte {
	w := wire.Writer{B: b}
	w.ID(size, id)
	return w.B
}

// DecodeID decodes a single id that must fill b.
func DecodeID(b []byte, size int) (uint64, error) {
	r := wire.NewReader(b, HeaderLen)
	id := r.ID(size, "id")
	if r.Err() == nil && r.Len() != 0 {
		r.Failf("id", "%d trailing bytes", r.Len())
	}
	return id, r.Err()
}

// AppendString encodes a JDWP string (ThreadReference.Name reply).
func AppendString(b []byte, s string) []byte {
	w := wire.Writer{B: b}
	w.JDWPString(s)
	return w.B
}

// DecodeString decodes a reply that is one JDWP string.
func DecodeString(b []byte) (string, error) {
	r := wire.NewReader(b, HeaderLen)
	s := r.JDWPString("string")
	return s, r.Err()
}

// ThreadStatusReply is the reply to ThreadReference.Status.
type ThreadStatusReply struct {
	Status        int32 // ThreadZombie … ThreadWait
	SuspendStatus int32 // 1 = suspended
}

// AppendThreadStatus encodes a ThreadReference.Status reply.
func AppendThreadStatus(b []byte, s ThreadStatusReply) []byte {
	w := wire.Writer{B: b}
	w.S4(s.Status)
	w.S4(s.SuspendStatus)
	return w.B
}

// DecodeThreadStatus decodes a ThreadReference.Status reply.
func DecodeThreadStatus(b []byte) (ThreadStatusReply, error) {
	r := wire.NewReader(b, HeaderLen)
	s := ThreadStatusReply{Status: r.S4("thread status"), SuspendStatus: r.S4("suspend status")}
	return s, r.Err()
}

// Version asks VirtualMachine.Version.
func (c *Conn) Version(ctx context.Context) (Version, error) {
	p, err := c.Request(ctx, CmdSetVirtualMachine, CmdVMVersion, nil)
	if err != nil {
		return Version{}, err
	}
	return DecodeVersion(p.Data)
}

// IDSizes asks VirtualMachine.IDSizes.
func (c *Conn) IDSizes(ctx context.Context) (IDSizes, error) {
	p, err := c.Request(ctx, CmdSetVirtualMachine, CmdVMIDSizes, nil)
	if err != nil {
		return IDSizes{}, err
	}
	return DecodeIDSizes(p.Data)
}

// AllThreads asks VirtualMachine.AllThreads.
func (c *Conn) AllThreads(ctx context.Context, sz IDSizes) ([]uint64, error) {
	p, err := c.Request(ctx, CmdSetVirtualMachine, CmdVMAllThreads, nil)
	if err != nil {
		return nil, err
	}
	return DecodeIDList(p.Data, sz.ObjectID)
}

// ThreadName asks ThreadReference.Name.
func (c *Conn) ThreadName(ctx context.Context, sz IDSizes, thread uint64) (string, error) {
	p, err := c.Request(ctx, CmdSetThreadReference, CmdThreadName, AppendID(nil, sz.ObjectID, thread))
	if err != nil {
		return "", err
	}
	return DecodeString(p.Data)
}

// ThreadStatus asks ThreadReference.Status.
func (c *Conn) ThreadStatus(ctx context.Context, sz IDSizes, thread uint64) (ThreadStatusReply, error) {
	p, err := c.Request(ctx, CmdSetThreadReference, CmdThreadStatus, AppendID(nil, sz.ObjectID, thread))
	if err != nil {
		return ThreadStatusReply{}, err
	}
	return DecodeThreadStatus(p.Data)
}

// ThreadGroup asks ThreadReference.ThreadGroup.
func (c *Conn) ThreadGroup(ctx context.Context, sz IDSizes, thread uint64) (uint64, error) {
	p, err := c.Request(ctx, CmdSetThreadReference, CmdThreadThreadGroup, AppendID(nil, sz.ObjectID, thread))
	if err != nil {
		return 0, err
	}
	return DecodeID(p.Data, sz.ObjectID)
}

// ThreadGroupName asks ThreadGroupReference.Name.
func (c *Conn) ThreadGroupName(ctx context.Context, sz IDSizes, group uint64) (string, error) {
	p, err := c.Request(ctx, CmdSetThreadGroupReference, CmdThreadGroupName, AppendID(nil, sz.ObjectID, group))
	if err != nil {
		return "", err
	}
	return DecodeString(p.Data)
}
