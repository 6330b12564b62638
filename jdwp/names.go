package jdwp

import "fmt"

// Command sets (JDWP specification; spec/jdwp.md §6, §7).
const (
	CmdSetVirtualMachine       uint8 = 1
	CmdSetReferenceType        uint8 = 2
	CmdSetClassType            uint8 = 3
	CmdSetArrayType            uint8 = 4
	CmdSetInterfaceType        uint8 = 5
	CmdSetMethod               uint8 = 6
	CmdSetField                uint8 = 8
	CmdSetObjectReference      uint8 = 9
	CmdSetStringReference      uint8 = 10
	CmdSetThreadReference      uint8 = 11
	CmdSetThreadGroupReference uint8 = 12
	CmdSetArrayReference       uint8 = 13
	CmdSetClassLoaderReference uint8 = 14
	CmdSetEventRequest         uint8 = 15
	CmdSetStackFrame           uint8 = 16
	CmdSetClassObjectReference uint8 = 17
	CmdSetModuleReference      uint8 = 18
	CmdSetEvent                uint8 = 64
	// CmdSetDDM is the vendor command set that carries DDM chunks: 'G'+128
	// (spec/jdwp.md §3).
	CmdSetDDM uint8 = 0xC7
)

// Commands the monitor itself uses.
const (
	CmdVMVersion              uint8 = 1
	CmdVMAllThreads           uint8 = 4
	CmdVMTopLevelThreadGroups uint8 = 5
	CmdVMIDSizes              uint8 = 7
	CmdVMSuspend              uint8 = 8
	CmdVMResume               uint8 = 9

	CmdRTSignature uint8 = 1
	CmdRTMethods   uint8 = 5

	CmdThreadName        uint8 = 1
	CmdThreadSuspend     uint8 = 2
	CmdThreadResume      uint8 = 3
	CmdThreadStatus      uint8 = 4
	CmdThreadThreadGroup uint8 = 5
	CmdThreadFrames      uint8 = 6
	CmdThreadFrameCount  uint8 = 7
	CmdThreadSuspendCnt  uint8 = 12

	CmdThreadGroupName uint8 = 1

	CmdEventRequestSet                 uint8 = 1
	CmdEventRequestClear               uint8 = 2
	CmdEventRequestClearAllBreakpoints uint8 = 3

	CmdEventComposite uint8 = 100

	// CmdDDMChunk is the only command of the DDM set.
	CmdDDMChunk uint8 = 1
)

type commandSet struct {
	name     string
	commands map[uint8]string
}

// commandNames lists every command set and command of JDWP as of Java 21,
// plus the DDM vendor set, for the traffic inspector.
var commandNames = map[uint8]commandSet{
	1: {"VirtualMachine", map[uint8]string{1: "Version", 2: "ClassesBySignature", 3: "AllClasses", 4: "AllThreads",
		5: "TopLevelThreadGroups", 6: "Dispose", 7: "IDSizes", 8: "Suspend", 9: "Resume", 10: "Exit",
		11: "CreateString", 12: "Capabilities", 13: "ClassPaths", 14: "DisposeObjects", 15: "HoldEvents",
		16: "ReleaseEvents", 17: "CapabilitiesNew", 18: "RedefineClasses", 19: "SetDefaultStratum",
		20: "AllClassesWithGeneric", 21: "InstanceCounts", 22: "AllModules"}},
	2: {"ReferenceType", map[uint8]string{1: "Signature", 2: "ClassLoader", 3: "Modifiers", 4: "Fields",
		5: "Methods", 6: "GetValues", 7: "SourceFile", 8: "NestedTypes", 9: "Status", 10: "Interfaces",
		11: "ClassObject", 12: "SourceDebugExtension", 13: "SignatureWithGeneric", 14: "FieldsWithGeneric",
		15: "MethodsWithGeneric", 16: "Instances", 17: "ClassFileVersion", 18: "ConstantPool", 19: "Module"}},
	3:  {"ClassType", map[uint8]string{1: "Superclass", 2: "SetValues", 3: "InvokeMethod", 4: "NewInstance"}},
	4:  {"ArrayType", map[uint8]string{1: "NewInstance"}},
	5:  {"InterfaceType", map[uint8]string{1: "InvokeMethod"}},
	6:  {"Method", map[uint8]string{1: "LineTable", 2: "VariableTable", 3: "Bytecodes", 4: "IsObsolete", 5: "VariableTableWithGeneric"}},
	8:  {"Field", map[uint8]string{}},
	9:  {"ObjectReference", map[uint8]string{1: "ReferenceType", 2: "GetValues", 3: "SetValues", 5: "MonitorInfo", 6: "InvokeMethod", 7: "DisableCollection", 8: "EnableCollection", 9: "IsCollected", 10: "ReferringObjects"}},
	10: {"StringReference", map[uint8]string{1: "Value"}},
	11: {"ThreadReference", map[uint8]string{1: "Name", 2: "Suspend", 3: "Resume", 4: "Status", 5: "ThreadGroup",
		6: "Frames", 7: "FrameCount", 8: "OwnedMonitors", 9: "CurrentContendedMonitor", 10: "Stop",
		11: "Interrupt", 12: "SuspendCount", 13: "OwnedMonitorsStackDepthInfo", 14: "ForceEarlyReturn", 15: "IsVirtual"}},
	12:        {"ThreadGroupReference", map[uint8]string{1: "Name", 2: "Parent", 3: "Children"}},
	13:        {"ArrayReference", map[uint8]string{1: "Length", 2: "GetValues", 3: "SetValues"}},
	14:        {"ClassLoaderReference", map[uint8]string{1: "VisibleClasses"}},
	15:        {"EventRequest", map[uint8]string{1: "Set", 2: "Clear", 3: "ClearAllBreakpoints"}},
	16:        {"StackFrame", map[uint8]string{1: "GetValues", 2: "SetValues", 3: "ThisObject", 4: "PopFrames"}},
	17:        {"ClassObjectReference", map[uint8]string{1: "ReflectedType"}},
	18:        {"ModuleReference", map[uint8]string{1: "Name", 2: "ClassLoader"}},
	64:        {"Event", map[uint8]string{100: "Composite"}},
	CmdSetDDM: {"DDM", map[uint8]string{1: "Chunk"}},
}

// CommandSetName names a command set, e.g. "ThreadReference"; unknown sets
// are shown as numbers.
func CommandSetName(set uint8) string {
	if cs, ok := commandNames[set]; ok {
		return cs.name
	}
	return fmt.Sprintf("CommandSet(%d)", set)
}

// CommandName names a command as "Set.Command", e.g. "EventRequest.Set";
// unknown commands are shown with numbers.
func CommandName(set, cmd uint8) string {
	cs, ok := commandNames[set]
	if !ok {
		return fmt.Sprintf("%d/%d", set, cmd)
	}
	if n, ok := cs.commands[cmd]; ok {
		return cs.name + "." + n
	}
	return fmt.Sprintf("%s.%d", cs.name, cmd)
}

// ErrorCode is a JDWP error code carried in a reply header.
type ErrorCode uint16

// Error codes (spec/jdwp.md §5; the JDWP specification's full list).
const (
	ErrNone                       ErrorCode = 0
	ErrInvalidThread              ErrorCode = 10
	ErrInvalidThreadGroup         ErrorCode = 11
	ErrInvalidPriority            ErrorCode = 12
	ErrThreadNotSuspended         ErrorCode = 13
	ErrThreadSuspended            ErrorCode = 14
	ErrThreadNotAlive             ErrorCode = 15
	ErrInvalidObject              ErrorCode = 20
	ErrInvalidClass               ErrorCode = 21
	ErrClassNotPrepared           ErrorCode = 22
	ErrInvalidMethodID            ErrorCode = 23
	ErrInvalidLocation            ErrorCode = 24
	ErrInvalidFieldID             ErrorCode = 25
	ErrInvalidFrameID             ErrorCode = 30
	ErrNoMoreFrames               ErrorCode = 31
	ErrOpaqueFrame                ErrorCode = 32
	ErrNotCurrentFrame            ErrorCode = 33
	ErrTypeMismatch               ErrorCode = 34
	ErrInvalidSlot                ErrorCode = 35
	ErrDuplicate                  ErrorCode = 40
	ErrNotFound                   ErrorCode = 41
	ErrInvalidModule              ErrorCode = 42
	ErrInvalidMonitor             ErrorCode = 50
	ErrNotMonitorOwner            ErrorCode = 51
	ErrInterrupt                  ErrorCode = 52
	ErrInvalidClassFormat         ErrorCode = 60
	ErrCircularClassDefinition    ErrorCode = 61
	ErrFailsVerification          ErrorCode = 62
	ErrAddMethodNotImplemented    ErrorCode = 63
	ErrSchemaChangeNotImplemented ErrorCode = 64
	ErrInvalidTypestate           ErrorCode = 65
	ErrHierarchyChangeNotImpl     ErrorCode = 66
	ErrDeleteMethodNotImplemented ErrorCode = 67
	ErrUnsupportedVersion         ErrorCode = 68
	ErrNamesDontMatch             ErrorCode = 69
	ErrClassModifiersChangeNotImp ErrorCode = 70
	ErrMethodModifiersChangeNotIm ErrorCode = 71
	ErrClassAttributeChangeNotImp ErrorCode = 72
	ErrNotImplemented             ErrorCode = 99
	ErrNullPointer                ErrorCode = 100
	ErrAbsentInformation          ErrorCode = 101
	ErrInvalidEventType           ErrorCode = 102
	ErrIllegalArgument            ErrorCode = 103
	ErrOutOfMemory                ErrorCode = 110
	ErrAccessDenied               ErrorCode = 111
	ErrVMDead                     ErrorCode = 112
	ErrInternal                   ErrorCode = 113
	ErrUnattachedThread           ErrorCode = 115
	ErrInvalidTag                 ErrorCode = 500
	ErrAlreadyInvoking            ErrorCode = 502
	ErrInvalidIndex               ErrorCode = 503
	ErrInvalidLength              ErrorCode = 504
	ErrInvalidString              ErrorCode = 506
	ErrInvalidClassLoader         ErrorCode = 507
	ErrInvalidArray               ErrorCode = 508
	ErrTransportLoad              ErrorCode = 509
	ErrTransportInit              ErrorCode = 510
	ErrNativeMethod               ErrorCode = 511
	ErrInvalidCount               ErrorCode = 512
)

var errorNames = map[ErrorCode]string{
	0: "NONE", 10: "INVALID_THREAD", 11: "INVALID_THREAD_GROUP", 12: "INVALID_PRIORITY",
	13: "THREAD_NOT_SUSPENDED", 14: "THREAD_SUSPENDED", 15: "THREAD_NOT_ALIVE", 20: "INVALID_OBJECT",
	21: "INVALID_CLASS", 22: "CLASS_NOT_PREPARED", 23: "INVALID_METHODID", 24: "INVALID_LOCATION",
	25: "INVALID_FIELDID", 30: "INVALID_FRAMEID", 31: "NO_MORE_FRAMES", 32: "OPAQUE_FRAME",
	33: "NOT_CURRENT_FRAME", 34: "TYPE_MISMATCH", 35: "INVALID_SLOT", 40: "DUPLICATE", 41: "NOT_FOUND",
	42: "INVALID_MODULE", 50: "INVALID_MONITOR", 51: "NOT_MONITOR_OWNER", 52: "INTERRUPT",
	60: "INVALID_CLASS_FORMAT", 61: "CIRCULAR_CLASS_DEFINITION", 62: "FAILS_VERIFICATION",
	63: "ADD_METHOD_NOT_IMPLEMENTED", 64: "SCHEMA_CHANGE_NOT_IMPLEMENTED", 65: "INVALID_TYPESTATE",
	66: "HIERARCHY_CHANGE_NOT_IMPLEMENTED", 67: "DELETE_METHOD_NOT_IMPLEMENTED", 68: "UNSUPPORTED_VERSION",
	69: "NAMES_DONT_MATCH", 70: "CLASS_MODIFIERS_CHANGE_NOT_IMPLEMENTED",
	71: "METHOD_MODIFIERS_CHANGE_NOT_IMPLEMENTED", 72: "CLASS_ATTRIBUTE_CHANGE_NOT_IMPLEMENTED",
	99: "NOT_IMPLEMENTED", 100: "NULL_POINTER", 101: "ABSENT_INFORMATION", 102: "INVALID_EVENT_TYPE",
	103: "ILLEGAL_ARGUMENT", 110: "OUT_OF_MEMORY", 111: "ACCESS_DENIED", 112: "VM_DEAD", 113: "INTERNAL",
	115: "UNATTACHED_THREAD", 500: "INVALID_TAG", 502: "ALREADY_INVOKING", 503: "INVALID_INDEX",
	504: "INVALID_LENGTH", 506: "INVALID_STRING", 507: "INVALID_CLASS_LOADER", 508: "INVALID_ARRAY",
	509: "TRANSPORT_LOAD", 510: "TRANSPORT_INIT", 511: "NATIVE_METHOD", 512: "INVALID_COUNT",
}

// String gives the specification's name, e.g. "NOT_IMPLEMENTED".
func (c ErrorCode) String() string {
	if n, ok := errorNames[c]; ok {
		return n
	}
	return fmt.Sprintf("ERROR_%d", uint16(c))
}

// ReplyError is a JDWP error reply to a request, as a Go error.
type ReplyError struct {
	Code       ErrorCode
	CommandSet uint8
	Command    uint8
}

func (e *ReplyError) Error() string {
	return fmt.Sprintf("jdwp: %s: %s (%d)", CommandName(e.CommandSet, e.Command), e.Code, uint16(e.Code))
}

// Is lets errors.Is match on the code alone: errors.Is(err, &ReplyError{Code: ErrNotImplemented}).
func (e *ReplyError) Is(target error) bool {
	t, ok := target.(*ReplyError)
	return ok && t.Code == e.Code && (t.CommandSet == 0 || t.CommandSet == e.CommandSet)
}

// Event kinds (spec/jdwp.md §7).
const (
	EventSingleStep              uint8 = 1
	EventBreakpoint              uint8 = 2
	EventFramePop                uint8 = 3
	EventException               uint8 = 4
	EventUserDefined             uint8 = 5
	EventThreadStart             uint8 = 6
	EventThreadDeath             uint8 = 7
	EventClassPrepare            uint8 = 8
	EventClassUnload             uint8 = 9
	EventClassLoad               uint8 = 10
	EventFieldAccess             uint8 = 20
	EventFieldModification       uint8 = 21
	EventExceptionCatch          uint8 = 30
	EventMethodEntry             uint8 = 40
	EventMethodExit              uint8 = 41
	EventMethodExitWithReturn    uint8 = 42
	EventMonitorContendedEnter   uint8 = 43
	EventMonitorContendedEntered uint8 = 44
	EventMonitorWait             uint8 = 45
	EventMonitorWaited           uint8 = 46
	EventVMStart                 uint8 = 90
	EventVMDeath                 uint8 = 99
)

var eventKindNames = map[uint8]string{
	1: "SINGLE_STEP", 2: "BREAKPOINT", 3: "FRAME_POP", 4: "EXCEPTION", 5: "USER_DEFINED",
	6: "THREAD_START", 7: "THREAD_DEATH", 8: "CLASS_PREPARE", 9: "CLASS_UNLOAD", 10: "CLASS_LOAD",
	20: "FIELD_ACCESS", 21: "FIELD_MODIFICATION", 30: "EXCEPTION_CATCH", 40: "METHOD_ENTRY",
	41: "METHOD_EXIT", 42: "METHOD_EXIT_WITH_RETURN_VALUE", 43: "MONITOR_CONTENDED_ENTER",
	44: "MONITOR_CONTENDED_ENTERED", 45: "MONITOR_WAIT", 46: "MONITOR_WAITED", 90: "VM_START", 99: "VM_DEATH",
}

// EventKindName names an event kind, e.g. "BREAKPOINT".
func EventKindName(k uint8) string {
	if n, ok := eventKindNames[k]; ok {
		return n
	}
	return fmt.Sprintf("EVENT_%d", k)
}

// SuspendPolicyName names a suspend policy (0 NONE, 1 EVENT_THREAD, 2 ALL).
func SuspendPolicyName(p uint8) string {
	switch p {
	case 0:
		return "NONE"
	case 1:
		return "EVENT_THREAD"
	case 2:
		return "ALL"
	}
	return fmt.Sprintf("SUSPEND_%d", p)
}

// ThreadStatus values of ThreadReference.Status (spec/jdwp.md §6).
const (
	ThreadZombie   = 0
	ThreadRunning  = 1
	ThreadSleeping = 2
	ThreadMonitor  = 3
	ThreadWait     = 4
)

// ThreadStatusName gives the lowercase name of a JDWP thread status.
func ThreadStatusName(s int32) string {
	switch s {
	case ThreadZombie:
		return "zombie"
	case ThreadRunning:
		return "running"
	case ThreadSleeping:
		return "sleeping"
	case ThreadMonitor:
		return "monitor"
	case ThreadWait:
		return "wait"
	}
	return "unknown"
}
