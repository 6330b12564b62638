package sim

import (
	"math/rand/v2"
	"strings"

	"github.com/ddmtui/ddmtui/ddm"
)

// The allocation tracker (spec/ddm-chunks.md §7.7). While tracking is on
// (REAE 1) a VM records its recent allocations in a ring; REAL reports them,
// newest first on ART and oldest first on Dalvik. Turning tracking off
// drops the records, as both VMs do.

// allocsPerStep is how many allocations a tracking VM records per Step.
const allocsPerStep = 40

// maxAllocRecords is how many records a VM keeps and reports: ART keeps more
// but sends at most 65535 (kDefaultNumRecentRecords, capped again at
// 0xFFFF); Dalvik keeps 65536 but its u2 count cannot say so, so the
// simulator keeps ART's number for both.
const maxAllocRecords = 0xFFFF

// maxAllocDepth is the default stack depth of both VMs.
const maxAllocDepth = 16

// allocRecord is one recorded allocation, its strings held once in the
// tracker's tables.
type allocRecord struct {
	size  uint32
	tid   uint16
	class uint16 // index in allocClasses
	stack uint32 // index in allocTracker.stacks
}

// allocTracker is a VM's allocation-tracker state; like the VM's own, it
// outlives the monitor connection that turned it on.
type allocTracker struct {
	on      bool
	rng     *rand.Rand    // the tracker's own, so tracking leaves the rest of the simulation as it was
	ring    []allocRecord // up to maxAllocRecords; once full, next is the oldest
	next    int
	stacks  [][]ddm.AllocFrame
	keys    []stackKey // the key of each stack
	stackOf map[stackKey]uint32
}

// stackKey identifies a generated stack: the thread whose frames end it and
// the frames put above them.
type stackKey struct {
	thread uint32
	class  uint16
	site   uint8
	app    int16 // line of the app frame, 0 for none
	ui     uint8 // repeated UI frames
	cut    uint8 // depth kept when the stack is cut short, 0 for none
}

// allocClass is a class the simulated app allocates and the library
// frames that allocate it (innermost first).
type allocClass struct {
	desc  string
	kind  ddm.Kind
	elem  int // element size for arrays, 0 for objects
	size  int // object size, or array header
	sites [][]ddm.AllocFrame
}

func frame(class, method, file string, line int16) ddm.AllocFrame {
	return ddm.AllocFrame{Class: class, Method: method, File: file, Line: line}
}

var (
	siteNone        = []ddm.AllocFrame{}
	siteSBToString  = []ddm.AllocFrame{frame("Ljava/lang/StringFactory;", "newStringFromChars", "StringFactory.java", ddm.LineNative), frame("Ljava/lang/StringBuilder;", "toString", "StringBuilder.java", 477)}
	siteSubstring   = []ddm.AllocFrame{frame("Ljava/lang/String;", "substring", "String.java", 2062)}
	siteArraysCopy  = []ddm.AllocFrame{frame("Ljava/util/Arrays;", "copyOf", "Arrays.java", 3578)}
	siteListGrow    = []ddm.AllocFrame{frame("Ljava/util/Arrays;", "copyOf", "Arrays.java", 3760), frame("Ljava/util/ArrayList;", "grow", "ArrayList.java", 275), frame("Ljava/util/ArrayList;", "add", "ArrayList.java", 497)}
	siteBAOSGrow    = []ddm.AllocFrame{frame("Ljava/util/Arrays;", "copyOf", "Arrays.java", 3578), frame("Ljava/io/ByteArrayOutputStream;", "grow", "ByteArrayOutputStream.java", 120)}
	siteBitmap      = []ddm.AllocFrame{frame("Landroid/graphics/Bitmap;", "nativeCreate", "", ddm.LineNative), frame("Landroid/graphics/Bitmap;", "createBitmap", "Bitmap.java", 1113)}
	siteHashMapPut  = []ddm.AllocFrame{frame("Ljava/util/HashMap;", "newNode", "HashMap.java", 1799), frame("Ljava/util/HashMap;", "putVal", "HashMap.java", 631)}
	siteIntegerBox  = []ddm.AllocFrame{frame("Ljava/lang/Integer;", "valueOf", "Integer.java", 1062)}
	siteClassLoad   = []ddm.AllocFrame{frame("Ljava/lang/ClassLoader;", "loadClass", "ClassLoader.java", 379)}
	siteDirectBuf   = []ddm.AllocFrame{frame("Ljava/nio/ByteBuffer;", "allocateDirect", "ByteBuffer.java", 281)}
	siteStringChars = []ddm.AllocFrame{frame("Ljava/lang/String;", "toCharArray", "String.java", 2488)}
)

// allocClasses is indexed by allocRecord.class; "<app>" in a descriptor
// stands for the app's package. The kinds are those of the simulated heap
// (heap.go kindWeights).
var allocClasses = []allocClass{
	{desc: "Ljava/lang/String;", kind: ddm.KindObject, size: 24, sites: [][]ddm.AllocFrame{siteSBToString, siteSubstring, siteNone}},
	{desc: "Ljava/lang/StringBuilder;", kind: ddm.KindObject, size: 24, sites: [][]ddm.AllocFrame{siteNone}},
	{desc: "Ljava/util/ArrayList;", kind: ddm.KindObject, size: 24, sites: [][]ddm.AllocFrame{siteNone}},
	{desc: "Ljava/util/HashMap$Node;", kind: ddm.KindObject, size: 32, sites: [][]ddm.AllocFrame{siteHashMapPut}},
	{desc: "Ljava/lang/Integer;", kind: ddm.KindObject, size: 16, sites: [][]ddm.AllocFrame{siteIntegerBox}},
	{desc: "L<app>/data/Item;", kind: ddm.KindObject, size: 40, sites: [][]ddm.AllocFrame{siteNone}},
	{desc: "L<app>/ui/ItemViewState;", kind: ddm.KindObject, size: 48, sites: [][]ddm.AllocFrame{siteNone}},
	{desc: "[B", kind: ddm.KindArray1, elem: 1, size: 12, sites: [][]ddm.AllocFrame{siteBAOSGrow, siteArraysCopy, siteBitmap, siteNone}},
	{desc: "[Z", kind: ddm.KindArray1, elem: 1, size: 12, sites: [][]ddm.AllocFrame{siteNone}},
	{desc: "[C", kind: ddm.KindArray2, elem: 2, size: 12, sites: [][]ddm.AllocFrame{siteStringChars, siteArraysCopy}},
	{desc: "[S", kind: ddm.KindArray2, elem: 2, size: 12, sites: [][]ddm.AllocFrame{siteNone}},
	{desc: "[I", kind: ddm.KindArray4, elem: 4, size: 12, sites: [][]ddm.AllocFrame{siteArraysCopy, siteNone}},
	{desc: "[F", kind: ddm.KindArray4, elem: 4, size: 12, sites: [][]ddm.AllocFrame{siteNone}},
	{desc: "[Ljava/lang/Object;", kind: ddm.KindArray4, elem: 4, size: 12, sites: [][]ddm.AllocFrame{siteListGrow}},
	{desc: "[J", kind: ddm.KindArray8, elem: 8, size: 16, sites: [][]ddm.AllocFrame{siteNone}},
	{desc: "[D", kind: ddm.KindArray8, elem: 8, size: 16, sites: [][]ddm.AllocFrame{siteNone}},
	{desc: "Ljava/lang/Class;", kind: ddm.KindClass, size: 120, sites: [][]ddm.AllocFrame{siteClassLoad}},
	{desc: "Ljava/nio/DirectByteBuffer;", kind: ddm.KindNative, size: 64, sites: [][]ddm.AllocFrame{siteDirectBuf}},
}

// classesOfKind indexes allocClasses by heap kind.
var classesOfKind = func() map[ddm.Kind][]uint16 {
	m := map[ddm.Kind][]uint16{}
	for i, c := range allocClasses {
		m[c.kind] = append(m[c.kind], uint16(i))
	}
	return m
}()

// appFrames are the app methods that allocate, above the library frames.
var appFrames = []struct{ class, method, file string }{
	{"data/JsonParser", "parse", "JsonParser.kt"},
	{"data/Repository", "load", "Repository.kt"},
	{"ui/ItemAdapter", "onBindViewHolder", "ItemAdapter.kt"},
	{"ui/FeedFragment", "render", "FeedFragment.kt"},
}

// setAllocTrackingLocked turns allocation tracking on or off (REAE).
// Turning it off drops the records, as ART and Dalvik do.
func (vm *VM) setAllocTrackingLocked(on bool) {
	t := &vm.allocs
	if on == t.on {
		return
	}
	if !on {
		*t = allocTracker{rng: t.rng}
		return
	}
	t.on = true
}

// allocTrackingLocked reports whether the VM records allocations (REAQ).
func (vm *VM) allocTrackingLocked() bool { return vm.allocs.on }

// AllocTracking reports whether the VM records allocations, for tests.
func (vm *VM) AllocTracking() bool {
	vm.mu.Lock()
	defer vm.mu.Unlock()
	return vm.allocs.on
}

// recordAllocationsLocked records n allocations by the VM's threads when
// tracking is on (it does nothing otherwise): classes of the heap's kinds,
// sizes to match, stacks of library and app frames above the allocating
// thread's own frames, at most maxAllocDepth deep.
func (vm *VM) recordAllocationsLocked(n int) {
	t := &vm.allocs
	if !t.on || n <= 0 || len(vm.threads) == 0 {
		return
	}
	if t.rng == nil {
		t.rng = rand.New(rand.NewPCG(vm.spec.Seed^0xa110c, uint64(vm.spec.PID)))
	}
	if t.stackOf == nil {
		t.stackOf = map[stackKey]uint32{}
	}
	ids := vm.sortedThreadIDs()
	total := 0.0
	for _, id := range ids {
		total += vm.threads[id].busy + 0.01
	}
	for range n {
		// Busy threads allocate more.
		th := vm.threads[ids[len(ids)-1]]
		x := t.rng.Float64() * total
		for _, id := range ids {
			x -= vm.threads[id].busy + 0.01
			if x < 0 {
				th = vm.threads[id]
				break
			}
		}
		kinds := classesOfKind[pickKind(t.rng)]
		if len(kinds) == 0 {
			kinds = classesOfKind[ddm.KindObject]
		}
		ci := kinds[t.rng.IntN(len(kinds))]
		cls := &allocClasses[ci]
		rec := allocRecord{class: ci, size: vm.allocSize(cls), stack: vm.allocStack(th, ci)}
		if vm.spec.Family == Dalvik {
			rec.tid = uint16(th.id)
		} else {
			rec.tid = uint16(th.systid) // ART reports the Linux tid, low 16 bits
		}
		if len(t.ring) < maxAllocRecords {
			t.ring = append(t.ring, rec)
		} else {
			t.ring[t.next] = rec
			t.next = (t.next + 1) % maxAllocRecords
		}
	}
}

// allocSize is the byte count of one allocation of cls.
func (vm *VM) allocSize(cls *allocClass) uint32 {
	rng := vm.allocs.rng
	size := cls.size
	switch {
	case cls.elem > 0:
		n := rng.IntN(64)
		if rng.IntN(20) == 0 {
			n = 256 + rng.IntN(64<<10/cls.elem) // buffers, bitmaps
		}
		size += n * cls.elem
	case cls.desc == "Ljava/lang/String;":
		size += 8 * rng.IntN(6) // compressed strings hold their bytes inline
	}
	return uint32((size + 7) &^ 7)
}

// allocStack returns the index of a stack for an allocation of class ci by
// th, generating it on first use.
func (vm *VM) allocStack(th *thread, ci uint16) uint32 {
	t := &vm.allocs
	cls := &allocClasses[ci]
	k := stackKey{thread: th.id, class: ci, site: uint8(t.rng.IntN(len(cls.sites)))}
	// An app method calls the library code that allocates, or allocates
	// itself: a few lines per method, so sites repeat.
	if t.rng.IntN(3) != 0 || len(cls.sites[k.site]) == 0 {
		k.app = int16(20 + 10*t.rng.IntN(4))
	}
	if th.id == 1 && t.rng.IntN(4) == 0 {
		k.ui = uint8(4 + t.rng.IntN(12)) // the main thread deep in a view hierarchy
	}
	if t.rng.IntN(10) == 0 {
		k.cut = uint8(1 + t.rng.IntN(3)) // a shallow stack
	}
	if id, ok := t.stackOf[k]; ok {
		return id
	}
	app := vm.spec.Package
	if app == "" {
		app = "com.example.app"
	}
	appDesc := strings.ReplaceAll(app, ".", "/")
	var fs []ddm.AllocFrame
	fs = append(fs, cls.sites[k.site]...)
	if k.app != 0 {
		af := appFrames[int(th.id+uint32(ci))%len(appFrames)]
		fs = append(fs, frame("L"+appDesc+"/"+af.class+";", af.method, af.file, k.app))
	}
	for i := range int(k.ui) {
		if i%2 == 0 {
			fs = append(fs, frame("Landroid/view/ViewGroup;", "dispatchDraw", "ViewGroup.java", 4206))
		} else {
			fs = append(fs, frame("Landroid/view/View;", "draw", "View.java", 21474))
		}
	}
	for _, f := range th.frames {
		fs = append(fs, frame(descriptor(f.Class), f.Method, f.File, clipLine(f.Line)))
	}
	if len(fs) == 0 {
		fs = append(fs, frame("Ljava/lang/Thread;", "run", "Thread.java", 923))
	}
	fs = fs[:min(len(fs), maxAllocDepth)]
	if k.cut != 0 {
		fs = fs[:min(len(fs), int(k.cut))]
	}
	if len(t.stacks) >= maxAllocStacks {
		t.compactStacks()
	}
	id := uint32(len(t.stacks))
	t.stacks = append(t.stacks, fs)
	t.keys = append(t.keys, k)
	t.stackOf[k] = id
	return id
}

// maxAllocStacks is how many distinct stacks a tracker holds before it
// drops those no record uses any more (threads come and go).
const maxAllocStacks = 8192

// compactStacks drops the stacks no record refers to and renumbers the
// rest.
func (t *allocTracker) compactStacks() {
	newID := make([]int32, len(t.stacks))
	for i := range newID {
		newID[i] = -1
	}
	var stacks [][]ddm.AllocFrame
	var keys []stackKey
	clear(t.stackOf)
	for i := range t.ring {
		old := t.ring[i].stack
		if newID[old] < 0 {
			newID[old] = int32(len(stacks))
			stacks = append(stacks, t.stacks[old])
			keys = append(keys, t.keys[old])
			t.stackOf[t.keys[old]] = uint32(newID[old])
		}
		t.ring[i].stack = uint32(newID[old])
	}
	t.stacks, t.keys = stacks, keys
}

// descriptor turns a dotted class name into a JNI descriptor.
func descriptor(class string) string {
	return "L" + strings.ReplaceAll(class, ".", "/") + ";"
}

// clipLine clips a line number to REAL's s2 as ART does (negative values
// keep their meaning).
func clipLine(line int32) int16 {
	return int16(max(min(line, 32767), -32768))
}

// allocationsLocked is the VM's REAL reply: the recorded allocations,
// newest first on ART and oldest first on Dalvik; empty when tracking is
// off.
func (vm *VM) allocationsLocked() *ddm.Allocations {
	t := &vm.allocs
	out := &ddm.Allocations{HeaderLen: ddm.REALHeaderLen, EntryHeaderLen: ddm.REALEntryHeaderLen, FrameLen: ddm.REALFrameLen}
	n := len(t.ring)
	if n == 0 {
		return out
	}
	app := vm.spec.Package
	if app == "" {
		app = "com.example.app"
	}
	appDesc := strings.ReplaceAll(app, ".", "/")
	names := make([]string, len(allocClasses))
	for i, c := range allocClasses {
		names[i] = strings.ReplaceAll(c.desc, "<app>", appDesc)
	}
	out.Entries = make([]ddm.Allocation, n)
	for i := range n {
		// Chronological position of wire entry i.
		pos := i
		if vm.spec.Family != Dalvik {
			pos = n - 1 - i
		}
		rec := &t.ring[(t.next+pos)%n]
		out.Entries[i] = ddm.Allocation{Size: rec.size, ThreadID: rec.tid, Class: names[rec.class], Frames: t.stacks[rec.stack]}
	}
	return out
}
