package hprof

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/ddmtui/ddmtui/internal/iocount"
)

// ClassCount is one entry of a Synth app heap: a class name in Java form
// ("com.example.Foo", "int[]", "java.lang.String[]") and how many objects of
// it the app heap holds (arrays, for an array class).
type ClassCount struct {
	Name      string
	Instances int
}

// Synth describes a small, valid Android HPROF file (JAVA PROFILE 1.0.3)
// laid out as ART writes one: STRING records, a LOAD CLASS per class, STACK
// FRAMEs and STACK TRACEs of a few threads, then HEAP DUMP SEGMENTs of at
// most 128 sub-records or about 4 KiB, each starting with a HEAP DUMP INFO
// when it holds objects, and a HEAP DUMP END. The first segments hold GC
// roots of every kind (the Android-only ones included); then come the image
// heap (java.* classes, interned strings), the zygote heap (framework
// classes, thread objects) and the app heap. Classes have static and
// instance fields and superclass chains; objects refer to each other. The
// same Synth always produces the same bytes.
type Synth struct {
	Seed uint64
	// Classes is the number of invented app classes (default 12) sharing
	// Instances instances (default 500) and Arrays arrays (default
	// Instances/4, object and primitive). All three are ignored when Heap
	// is set.
	Classes   int
	Instances int
	Arrays    int
	// Heap, when set, is exactly the app heap: a simulator passes its own
	// classes. Names that are java.* classes Synth already has reuse them.
	Heap []ClassCount
	// MaxArrayLength bounds array lengths (default 32).
	MaxArrayLength int
	// IDSize is 4 (default, as ART) or 8.
	IDSize int
	// Timestamp is the header's, in ms since the epoch (default
	// 1700000000000 + Seed).
	Timestamp uint64
	// NoData writes every third primitive array of the app heap as
	// PRIMITIVE ARRAY NODATA (as Dalvik could; ART never does).
	NoData bool
}

// Bytes returns the generated file.
func (s Synth) Bytes() ([]byte, error) {
	var b bytes.Buffer
	if _, err := s.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteTo writes the generated file to w. Memory does not grow with the
// number of instances.
func (s Synth) WriteTo(w io.Writer) (int64, error) {
	cw := &iocount.Writer{W: w}
	g, err := s.build()
	if err != nil {
		return 0, err
	}
	hw, err := NewWriter(cw, g.header)
	if err != nil {
		return cw.N, err
	}
	if err := g.emit(hw.Write); err != nil {
		return cw.N, err
	}
	err = hw.Close()
	return cw.N, err
}

// Header returns the header the file will have.
func (s Synth) Header() Header {
	s = s.withDefaults()
	return Header{Version: VersionAndroid, IDSize: s.IDSize, Timestamp: s.Timestamp}
}

// Emit calls fn with every record of the file, in order, as Writer.Write
// takes them. Data and Elements slices are reused: fn must not keep them.
func (s Synth) Emit(fn func(Record) error) error {
	g, err := s.build()
	if err != nil {
		return err
	}
	return g.emit(fn)
}

func (s Synth) withDefaults() Synth {
	if s.Classes <= 0 {
		s.Classes = 12
	}
	if s.Instances <= 0 {
		s.Instances = 500
	}
	if s.Arrays <= 0 {
		s.Arrays = s.Instances / 4
	}
	if s.MaxArrayLength <= 0 {
		s.MaxArrayLength = 32
	}
	if s.IDSize == 0 {
		s.IDSize = 4
	}
	if s.Timestamp == 0 {
		s.Timestamp = 1_700_000_000_000 + s.Seed
	}
	return s
}

// Object id bases per heap, as ART's address ranges might look; objects are
// 16 bytes apart.
const (
	synthZygoteBase = 0x12c00000
	synthAppBase    = 0x20000000
	synthImageBase  = 0x70000000
	synthStride     = 16
	synthMaxApp     = (synthImageBase - synthAppBase) / synthStride
	// ART ends a segment after 128 objects or 4 KiB.
	segmentObjects = 128
	segmentBytes   = 4096
)

type synthField struct {
	name string
	typ  Type
}

type synthClass struct {
	name      string
	heap      uint32
	super     int // index in classes, -1 for none
	fields    []synthField
	statics   []synthField
	constant  bool // has one constant-pool entry
	elem      Type // element type of a primitive array class
	array     bool
	count     int // app-heap objects of this class to write
	id        ID
	serial    uint32
	chainSize int // instance data bytes, own fields then superclasses'
}

type synthThread struct {
	name   string
	serial uint32
	obj    ID // the java.lang.Thread instance
	nameID ID // its name String instance
	frames []int
}

type synthFrame struct {
	method, sig, source string
	class               int
	line                int32
}

// generator is a built Synth: the model of everything but the app
// instances, which are written on the fly.
type generator struct {
	s        Synth
	header   Header
	rnd      *rand.Rand
	strs     []string // string id i+1
	strID    map[string]ID
	classes  []synthClass
	byName   map[string]int
	threads  []synthThread
	frames   []synthFrame
	appCount int // objects in the app heap, class objects included
	imageStr []ID
	// Well-known classes.
	cObject, cString, cThread, cObjArr, cStrArr, cHandler int

	// Emission state.
	fn         func(Record) error
	segObjects int
	segBytes   int
	curHeap    uint32
	inSegment  bool
	data       []byte
	elems      []ID
	heapNextID map[uint32]ID
}

var (
	synthPackages = []string{"com.example.app", "com.example.app.ui", "com.example.app.data", "com.example.app.net", "com.example.app.util"}
	synthSimple   = []string{"MainActivity", "FeedAdapter", "Repository", "ImageCache", "JsonParser", "Session", "UserProfile", "Message", "Request", "Response", "TreeNode", "Bitmap", "Record", "Listener", "Presenter", "Store"}
	synthFields   = []string{"mName", "mCount", "mNext", "mValue", "mFlags", "mId", "mParent", "mSize", "mEnabled", "mScale", "mData", "mTimestamp"}
	synthTypes    = []Type{TypeObject, TypeObject, TypeInt, TypeInt, TypeLong, TypeBoolean, TypeFloat, TypeDouble, TypeByte, TypeChar, TypeShort}
	primArrays    = []Type{TypeBoolean, TypeChar, TypeFloat, TypeDouble, TypeByte, TypeShort, TypeInt, TypeLong}
)

func (s Synth) build() (*generator, error) {
	s = s.withDefaults()
	if s.IDSize != 4 && s.IDSize != 8 {
		return nil, fmt.Errorf("hprof: synth: identifier size %d (want 4 or 8)", s.IDSize)
	}
	g := &generator{s: s, rnd: rand.New(rand.NewPCG(s.Seed, 0x6870726f66)), strID: map[string]ID{},
		byName: map[string]int{}}
	g.header = s.Header()
	add := func(c synthClass) int {
		g.classes = append(g.classes, c)
		g.byName[c.name] = len(g.classes) - 1
		return len(g.classes) - 1
	}
	f := func(name string, t Type) synthField { return synthField{name, t} }

	// The image heap: java.* classes and array classes.
	g.cObject = add(synthClass{name: "java.lang.Object", heap: HeapImage, super: -1})
	add(synthClass{name: "java.lang.Class", heap: HeapImage, super: g.cObject})
	g.cString = add(synthClass{name: "java.lang.String", heap: HeapImage, super: g.cObject,
		fields: []synthField{f("count", TypeInt), f("hash", TypeInt)}, statics: []synthField{f("serialVersionUID", TypeLong)}})
	g.cThread = add(synthClass{name: "java.lang.Thread", heap: HeapImage, super: g.cObject,
		fields: []synthField{f("name", TypeObject), f("priority", TypeInt), f("daemon", TypeBoolean), f("tid", TypeLong)}})
	add(synthClass{name: "java.util.ArrayList", heap: HeapImage, super: g.cObject,
		fields: []synthField{f("elementData", TypeObject), f("size", TypeInt)}})
	add(synthClass{name: "java.util.HashMap", heap: HeapImage, super: g.cObject,
		fields: []synthField{f("table", TypeObject), f("size", TypeInt), f("loadFactor", TypeFloat)}})
	g.cObjArr = add(synthClass{name: "java.lang.Object[]", heap: HeapImage, super: g.cObject, array: true})
	g.cStrArr = add(synthClass{name: "java.lang.String[]", heap: HeapImage, super: g.cObject, array: true})
	for _, t := range primArrays {
		add(synthClass{name: t.String() + "[]", heap: HeapImage, super: g.cObject, array: true, elem: t})
	}
	// The zygote heap: framework classes.
	g.cHandler = add(synthClass{name: "android.os.Handler", heap: HeapZygote, super: g.cObject,
		fields: []synthField{f("mQueue", TypeObject), f("mCallback", TypeObject), f("mAsynchronous", TypeBoolean)}})
	add(synthClass{name: "android.view.View", heap: HeapZygote, super: g.cObject,
		fields:  []synthField{f("mLeft", TypeInt), f("mTop", TypeInt), f("mParent", TypeObject), f("mAlpha", TypeFloat)},
		statics: []synthField{f("sIdCounter", TypeInt)}})

	// The app heap.
	if len(s.Heap) > 0 {
		for _, cc := range s.Heap {
			if cc.Instances < 0 {
				return nil, fmt.Errorf("hprof: synth: class %q: %d instances", cc.Name, cc.Instances)
			}
			if i, ok := g.byName[cc.Name]; ok {
				g.classes[i].count += cc.Instances
				continue
			}
			c := synthClass{name: cc.Name, heap: HeapApp, super: g.cObject, count: cc.Instances}
			if elem, ok := strings.CutSuffix(cc.Name, "[]"); ok {
				c.array = true
				if elem == "" {
					return nil, fmt.Errorf("hprof: synth: class name %q", cc.Name)
				}
			} else {
				c.fields = g.inventFields(1 + g.rnd.IntN(4))
				c.statics = []synthField{f("sInstance", TypeObject)}
			}
			add(c)
		}
	} else {
		counts := g.split(s.Instances, s.Classes)
		first := len(g.classes)
		for i := range s.Classes {
			name := synthPackages[g.rnd.IntN(len(synthPackages))] + "." + synthSimple[i%len(synthSimple)]
			if i >= len(synthSimple) {
				name += fmt.Sprint(i / len(synthSimple))
			}
			super := g.cObject
			if i > 0 && g.rnd.IntN(3) == 0 {
				super = first + g.rnd.IntN(i)
			}
			add(synthClass{name: name, heap: HeapApp, super: super, count: counts[i],
				fields:   g.inventFields(1 + g.rnd.IntN(5)),
				statics:  []synthField{f("sInstance", TypeObject), f("sCount", synthTypes[2+g.rnd.IntN(len(synthTypes)-2)])},
				constant: i == 0})
		}
		// Arrays: a third object arrays, the rest primitive, spread over
		// the element types.
		arrays := g.split(s.Arrays, 3)
		g.classes[g.cObjArr].count += arrays[0]
		prims := g.split(arrays[1]+arrays[2], len(primArrays))
		for i, t := range primArrays {
			g.classes[g.byName[t.String()+"[]"]].count += prims[i]
		}
	}
	for i := range g.classes {
		g.classes[i].chainSize = g.chainSize(i)
	}

	// Threads and their stacks.
	for i, name := range []string{"main", "Signal Catcher", "FinalizerDaemon", "HeapTaskDaemon"} {
		g.threads = append(g.threads, synthThread{name: name, serial: uint32(i + 1)})
	}
	appFirst := len(g.classes) - 1
	for i := range g.classes {
		if g.classes[i].heap == HeapApp {
			appFirst = i
			break
		}
	}
	methods := []struct{ m, sig, src string }{
		{"run", "()V", "Thread.java"}, {"loop", "()V", "Looper.java"}, {"dispatchMessage", "(Landroid/os/Message;)V", "Handler.java"},
		{"onCreate", "(Landroid/os/Bundle;)V", "MainActivity.java"}, {"wait", "(J)V", "Object.java"}, {"main", "([Ljava/lang/String;)V", "ZygoteInit.java"},
	}
	for i, m := range methods {
		class := g.cThread
		if i == 3 {
			class = appFirst
		}
		g.frames = append(g.frames, synthFrame{method: m.m, sig: m.sig, source: m.src, class: class, line: int32(40 + 17*i)})
	}
	for i := range g.threads {
		n := 1 + (i+1)%3
		for k := range n {
			g.threads[i].frames = append(g.threads[i].frames, (i+k)%len(g.frames))
		}
	}

	// Object ids: class objects live in their heap.
	g.heapNextID = map[uint32]ID{HeapImage: synthImageBase, HeapZygote: synthZygoteBase, HeapApp: synthAppBase}
	for i := range g.classes {
		c := &g.classes[i]
		c.id = g.nextID(c.heap)
		c.serial = uint32(i + 1)
	}
	g.appCount = 0
	for _, c := range g.classes {
		if c.heap == HeapApp {
			g.appCount++
		}
		g.appCount += c.count
	}
	if g.appCount > synthMaxApp {
		return nil, fmt.Errorf("hprof: synth: %d app objects, at most %d", g.appCount, synthMaxApp)
	}

	// Strings, in order of first use.
	for _, c := range g.classes {
		g.str(c.name)
		for _, f := range c.fields {
			g.str(f.name)
		}
		for _, f := range c.statics {
			g.str(f.name)
		}
	}
	for _, fr := range g.frames {
		g.str(fr.method)
		g.str(fr.sig)
		g.str(fr.source)
	}
	for _, h := range []string{"image", "zygote", "app"} {
		g.str(h)
	}
	return g, nil
}

// split divides total into n deterministic, uneven parts (the first ones
// larger, as a few classes dominate real heaps).
func (g *generator) split(total, n int) []int {
	parts := make([]int, n)
	weights := make([]float64, n)
	sum := 0.0
	for i := range weights {
		weights[i] = 1 / float64(i+1) * (0.5 + g.rnd.Float64())
		sum += weights[i]
	}
	left := total
	for i := range parts {
		parts[i] = int(float64(total) * weights[i] / sum)
		left -= parts[i]
	}
	parts[0] += left
	return parts
}

func (g *generator) inventFields(n int) []synthField {
	fs := make([]synthField, n)
	start := g.rnd.IntN(len(synthFields))
	for i := range fs {
		fs[i] = synthField{synthFields[(start+i)%len(synthFields)], synthTypes[g.rnd.IntN(len(synthTypes))]}
	}
	return fs
}

func (g *generator) chainSize(i int) int {
	n := 0
	for ; i >= 0; i = g.classes[i].super {
		for _, f := range g.classes[i].fields {
			n += f.typ.Size(g.s.IDSize)
		}
	}
	return n
}

func (g *generator) str(s string) ID {
	if id, ok := g.strID[s]; ok {
		return id
	}
	g.strs = append(g.strs, s)
	id := ID(len(g.strs))
	g.strID[s] = id
	return id
}

func (g *generator) nextID(heap uint32) ID {
	id := g.heapNextID[heap]
	g.heapNextID[heap] = id + synthStride
	return id
}

// appRef returns a random app-heap object id, or 0 a quarter of the time
// (always when the app heap is empty).
func (g *generator) appRef() ID {
	if g.appCount == 0 || g.rnd.IntN(4) == 0 {
		return 0
	}
	return ID(synthAppBase + synthStride*g.rnd.IntN(g.appCount))
}

func (g *generator) emit(fn func(Record) error) error {
	g.fn = fn
	for i, s := range g.strs {
		if err := fn(&UTF8{ID: ID(i + 1), Text: s}); err != nil {
			return err
		}
	}
	for _, c := range g.classes {
		if err := fn(&LoadClass{Serial: c.serial, Class: c.id, Name: g.strID[c.name]}); err != nil {
			return err
		}
	}
	for i, fr := range g.frames {
		err := fn(&StackFrame{Frame: ID(i + 1), Method: g.strID[fr.method], Signature: g.strID[fr.sig],
			Source: g.strID[fr.source], ClassSerial: g.classes[fr.class].serial, Line: fr.line})
		if err != nil {
			return err
		}
	}
	for _, t := range g.threads {
		st := &StackTrace{Serial: t.serial, Thread: t.serial}
		for _, fr := range t.frames {
			st.Frames = append(st.Frames, ID(fr+1))
		}
		if err := fn(st); err != nil {
			return err
		}
	}

	// Thread objects and their names live in the zygote heap, after the
	// zygote's class objects; their ids are needed by the roots.
	zygoteNext := g.heapNextID[HeapZygote]
	for i := range g.threads {
		g.threads[i].obj = zygoteNext
		g.threads[i].nameID = zygoteNext + synthStride
		zygoteNext += 2 * synthStride
	}
	imageNext := g.heapNextID[HeapImage]
	g.imageStr = nil
	for range 6 {
		g.imageStr = append(g.imageStr, imageNext)
		imageNext += synthStride
	}

	if err := g.roots(); err != nil {
		return err
	}
	// Image heap: class objects, interned strings, an array holding them.
	for i := range g.classes {
		if g.classes[i].heap == HeapImage {
			if err := g.classDump(i); err != nil {
				return err
			}
		}
	}
	for i, sid := range g.imageStr {
		if err := g.stringInstance(HeapImage, sid, 3+i); err != nil {
			return err
		}
	}
	g.elems = append(g.elems[:0], g.imageStr...)
	if err := g.object(HeapImage, &ObjectArrayDump{Array: imageNext, Class: g.classes[g.cStrArr].id, Elements: g.elems}); err != nil {
		return err
	}
	// Zygote heap: class objects, threads, a handler, two arrays.
	for i := range g.classes {
		if g.classes[i].heap == HeapZygote {
			if err := g.classDump(i); err != nil {
				return err
			}
		}
	}
	for i, t := range g.threads {
		g.data = g.data[:0]
		g.data = g.appendID(g.data, t.nameID)
		g.data = binary.BigEndian.AppendUint32(g.data, 5)
		g.data = append(g.data, boolByte(i > 0))
		g.data = binary.BigEndian.AppendUint64(g.data, uint64(100+i))
		if err := g.object(HeapZygote, &InstanceDump{Object: t.obj, Class: g.classes[g.cThread].id, Data: g.data}); err != nil {
			return err
		}
		if err := g.stringInstance(HeapZygote, t.nameID, len(t.name)); err != nil {
			return err
		}
	}
	if err := g.instance(HeapZygote, zygoteNext, g.cHandler); err != nil {
		return err
	}
	zygoteNext += synthStride
	for _, t := range []Type{TypeByte, TypeInt} {
		if err := g.primArray(HeapZygote, zygoteNext, t, false); err != nil {
			return err
		}
		zygoteNext += synthStride
	}
	// App heap: class objects first, then the objects class by class, ids
	// in the same order (appRef relies on it).
	for i := range g.classes {
		if g.classes[i].heap == HeapApp {
			if err := g.classDump(i); err != nil {
				return err
			}
		}
	}
	next := g.heapNextID[HeapApp]
	nprim := 0
	for i := range g.classes {
		c := &g.classes[i]
		for range c.count {
			var err error
			switch {
			case c.elem != 0:
				err = g.primArray(HeapApp, next, c.elem, g.s.NoData && nprim%3 == 2)
				nprim++
			case c.array:
				g.elems = g.elems[:0]
				for range g.rnd.IntN(g.s.MaxArrayLength + 1) {
					g.elems = append(g.elems, g.appRef())
				}
				err = g.object(HeapApp, &ObjectArrayDump{Array: next, Class: c.id, Elements: g.elems})
			default:
				err = g.instance(HeapApp, next, i)
			}
			if err != nil {
				return err
			}
			next += synthStride
		}
	}
	if err := fn(&HeapDumpEnd{}); err != nil {
		return err
	}
	return nil
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

func (g *generator) appendID(b []byte, v ID) []byte {
	if g.s.IDSize == 8 {
		return binary.BigEndian.AppendUint64(b, uint64(v))
	}
	return binary.BigEndian.AppendUint32(b, uint32(v))
}

// sub emits a sub-record into the current segment, starting a new segment
// (with a HEAP DUMP INFO for heap, unless heap is 0) when needed.
func (g *generator) sub(heap uint32, rec Record, size int) error {
	if !g.inSegment || g.segObjects >= segmentObjects || g.segBytes >= segmentBytes {
		if err := g.fn(&HeapDump{Segment: true}); err != nil {
			return err
		}
		g.inSegment, g.segObjects, g.segBytes, g.curHeap = true, 0, 0, HeapDefault
	}
	if heap != g.curHeap {
		name := map[uint32]string{HeapImage: "image", HeapZygote: "zygote", HeapApp: "app"}[heap]
		if err := g.fn(&HeapDumpInfo{Heap: heap, Name: g.strID[name]}); err != nil {
			return err
		}
		g.curHeap = heap
		g.segBytes += 1 + 4 + g.s.IDSize
	}
	g.segObjects++
	g.segBytes += size
	return g.fn(rec)
}

func (g *generator) object(heap uint32, rec Record) error {
	id := g.s.IDSize
	var size int
	switch r := rec.(type) {
	case *InstanceDump:
		size = 1 + 2*id + 8 + len(r.Data)
	case *ObjectArrayDump:
		size = 1 + 2*id + 8 + id*len(r.Elements)
	case *PrimitiveArrayDump:
		size = 1 + id + 9 + len(r.Data)
	case *ClassDump:
		size = 1 + 7*id + 8 + 6
		for _, k := range r.Constants {
			size += 3 + k.Type.Size(id)
		}
		for _, s := range r.Statics {
			size += id + 1 + s.Type.Size(id)
		}
		size += len(r.Fields) * (id + 1)
	}
	return g.sub(heap, rec, size)
}

func (g *generator) roots() error {
	main := g.threads[0]
	app := func(k int) ID {
		if g.appCount == 0 {
			return main.obj
		}
		return ID(synthAppBase + synthStride*(k%g.appCount))
	}
	var rs []Root
	for i := range g.classes {
		if g.classes[i].heap == HeapImage && i < 4 {
			rs = append(rs, Root{Kind: SubRootStickyClass, Object: g.classes[i].id})
		}
	}
	for _, t := range g.threads {
		rs = append(rs, Root{Kind: SubRootThreadObject, Object: t.obj, Thread: t.serial, StackSerial: t.serial})
	}
	rs = append(rs,
		Root{Kind: SubRootJavaFrame, Object: app(1), Thread: main.serial, Frame: 0},
		Root{Kind: SubRootJavaFrame, Object: app(2), Thread: main.serial, Frame: 1},
		Root{Kind: SubRootJNILocal, Object: app(3), Thread: main.serial, Frame: 0xFFFFFFFF},
		Root{Kind: SubRootJNIGlobal, Object: app(4), JNIRef: 0x2106},
		Root{Kind: SubRootNativeStack, Object: main.obj, Thread: main.serial},
		Root{Kind: SubRootThreadBlock, Object: g.threads[2].obj, Thread: g.threads[2].serial},
		Root{Kind: SubRootMonitorUsed, Object: app(5)},
		Root{Kind: SubRootUnknown, Object: app(6)},
		Root{Kind: SubRootFinalizing, Object: app(7)},
		Root{Kind: SubRootDebugger, Object: app(8)},
		Root{Kind: SubRootReferenceCleanup, Object: app(9)},
		Root{Kind: SubRootVMInternal, Object: g.classes[g.cString].id},
		Root{Kind: SubRootJNIMonitor, Object: app(10), Thread: main.serial, Frame: 2},
		Root{Kind: SubRootUnreachable, Object: app(11)},
	)
	for _, s := range g.imageStr {
		rs = append(rs, Root{Kind: SubRootInternedString, Object: s})
	}
	for i := range rs {
		if err := g.sub(HeapDefault, &rs[i], 1+rootLayouts[rs[i].Kind].size(g.s.IDSize)); err != nil {
			return err
		}
	}
	return nil
}

// value returns a random value of type t.
func (g *generator) value(t Type) uint64 {
	switch t {
	case TypeObject:
		return uint64(g.appRef())
	case TypeBoolean:
		return uint64(g.rnd.IntN(2))
	case TypeChar:
		return uint64('a' + g.rnd.IntN(26))
	case TypeFloat:
		return uint64(math.Float32bits(float32(g.rnd.NormFloat64())))
	case TypeDouble:
		return math.Float64bits(g.rnd.NormFloat64() * 1000)
	case TypeByte:
		return uint64(g.rnd.IntN(256))
	case TypeShort:
		return uint64(g.rnd.IntN(1 << 16))
	case TypeInt:
		return uint64(g.rnd.Uint32() >> g.rnd.IntN(32))
	default:
		return g.rnd.Uint64() >> g.rnd.IntN(64)
	}
}

func (g *generator) classDump(i int) error {
	c := &g.classes[i]
	cd := &ClassDump{Class: c.id, InstanceSize: uint32(8 + c.chainSize)}
	if c.super >= 0 {
		cd.Super = g.classes[c.super].id
	}
	if c.array {
		cd.InstanceSize = 0
	}
	if c.constant {
		cd.Constants = []Constant{{Index: 1, Type: TypeInt, Value: 42}}
	}
	for _, f := range c.statics {
		v := g.value(f.typ)
		if f.name == "serialVersionUID" {
			v = uint64(0xa0f0a4387a3bb342)
		}
		cd.Statics = append(cd.Statics, StaticField{Name: g.strID[f.name], Type: f.typ, Value: v})
	}
	for _, f := range c.fields {
		cd.Fields = append(cd.Fields, Field{Name: g.strID[f.name], Type: f.typ})
	}
	return g.object(c.heap, cd)
}

// instance emits an instance of class i with random field values.
func (g *generator) instance(heap uint32, obj ID, i int) error {
	g.data = g.data[:0]
	for k := i; k >= 0; k = g.classes[k].super {
		for _, f := range g.classes[k].fields {
			v := g.value(f.typ)
			size := f.typ.Size(g.s.IDSize)
			for b := size - 1; b >= 0; b-- {
				g.data = append(g.data, byte(v>>(8*b)))
			}
		}
	}
	return g.object(heap, &InstanceDump{Object: obj, Class: g.classes[i].id, Data: g.data})
}

// stringInstance emits a java.lang.String instance (count, hash).
func (g *generator) stringInstance(heap uint32, obj ID, length int) error {
	g.data = binary.BigEndian.AppendUint32(g.data[:0], uint32(length))
	g.data = binary.BigEndian.AppendUint32(g.data, g.rnd.Uint32())
	return g.object(heap, &InstanceDump{Object: obj, Class: g.classes[g.cString].id, Data: g.data})
}

func (g *generator) primArray(heap uint32, obj ID, t Type, noData bool) error {
	n := g.rnd.IntN(g.s.MaxArrayLength + 1)
	a := &PrimitiveArrayDump{Array: obj, Type: t, Count: uint32(n), NoData: noData}
	if !noData {
		size := t.Size(g.s.IDSize)
		g.data = g.data[:0]
		for range n {
			v := g.value(t)
			for b := size - 1; b >= 0; b-- {
				g.data = append(g.data, byte(v>>(8*b)))
			}
		}
		a.Data = g.data
	}
	return g.object(heap, a)
}
