package heapdump

import (
	"io"
	"strings"
	"unicode/utf16"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
)

// The hand-worked fixture: a small app heap whose every number the tests
// of this package work out by hand in their comments (scenario_test.go),
// in variants the scenes do not write (4-byte ids with internal names,
// 1.0.2 with HEAP DUMP INFO, 1.0.3 without). hprof/scene plants the
// richer situations with answers of its own (crosscheck_test.go).

// Scenario holds the ids of the objects androidScenario plants, so tests
// can name them.
type Scenario struct {
	Monitor, Listener, LeakedStatic, Adapter  uint64 // leak through a static listener's inner class
	Queue, Msg1, Msg2, Handler, LeakedHandler uint64 // leak through a Handler's message chain
	LiveActivity, GarbageActivity, WeakHeld   uint64
	Weak                                      uint64
	DetachedFragment, AttachedFragment        uint64
	MonitorClass, FragmentClass, MainClass    uint64
	Bitmap1, Bitmap2, Bitmap3, GarbageBitmap  uint64
	Bitmap1Pixels, PNG2                       uint64
	Names                                     uint64 // the Object[] of strings
}

// ScenarioOptions shape the file androidScenario writes.
type ScenarioOptions struct {
	IDSize   int    // 4 (ART) or 8
	Version  string // "" for Android's 1.0.3
	Internal bool   // class names in JVM internal form ("android/app/Activity", "[B")
	NoHeaps  bool   // no HEAP DUMP INFO records
}

// androidScenario writes a small app heap with the situations a user meets:
// an Activity leaked through a static listener's inner class (this$0), one
// leaked through a Handler's message chain (finished only), a live one, a
// destroyed one that is garbage, one only weakly reachable, a detached
// Fragment held by a static field and an attached one, duplicate strings
// (Latin-1 and UTF-16), and bitmaps with pixels in mBuffer, in dumpData
// (API 35+), and without pixels. Framework classes are in the zygote heap,
// the rest in the app heap.
func androidScenario(w io.Writer, o ScenarioOptions) (*Scenario, error) {
	if o.IDSize == 0 {
		o.IDSize = 4
	}
	b, err := scene.NewBuilder(w, o.IDSize, o.Version)
	if err != nil {
		return nil, err
	}
	name := func(s string) string {
		if !o.Internal {
			return s
		}
		switch s {
		case "byte[]":
			return "[B"
		case "byte[][]":
			return "[[B"
		case "java.lang.Object[]":
			return "[Ljava/lang/Object;"
		}
		return strings.ReplaceAll(s, ".", "/")
	}
	obj, bl, i32, i64 := hprof.TypeObject, hprof.TypeBoolean, hprof.TypeInt, hprof.TypeLong
	sc := &Scenario{}
	object := b.Class(name("java.lang.Object"), nil)
	str := b.Class(name("java.lang.String"), object, scene.F("count", i32), scene.F("hash", i32), scene.F("value", obj))
	str.InstanceSize = 16
	ref := b.Class(name("java.lang.ref.Reference"), object, scene.F("referent", obj), scene.F("queue", obj))
	weak := b.Class(name("java.lang.ref.WeakReference"), ref)
	activity := b.Class(name("android.app.Activity"), object, scene.F("mDestroyed", bl), scene.F("mFinished", bl), scene.F("mResumed", bl), scene.F("mWindow", obj))
	fragAct := b.Class(name("androidx.fragment.app.FragmentActivity"), activity, scene.F("mResumed", bl), scene.F("mFragments", obj))
	queueC := b.Class(name("android.os.MessageQueue"), object, scene.F("mMessages", obj))
	msgC := b.Class(name("android.os.Message"), object, scene.F("what", i32), scene.F("target", obj), scene.F("next", obj), scene.F("obj", obj))
	handlerC := b.Class(name("android.os.Handler"), object, scene.F("mQueue", obj))
	fragment := b.Class(name("androidx.fragment.app.Fragment"), object, scene.F("mFragmentManager", obj), scene.F("mHost", obj))
	bitmap := b.Class(name("android.graphics.Bitmap"), object, scene.F("mWidth", i32), scene.F("mHeight", i32), scene.F("mBuffer", obj), scene.F("mNativePtr", i64))
	dumpData := b.Class(name("android.graphics.Bitmap$DumpData"), object, scene.F("count", i32), scene.F("format", i32), scene.F("natives", obj), scene.F("buffers", obj))
	objArr := b.Class(name("java.lang.Object[]"), object)
	bytesArr := b.Class(name("byte[][]"), object)
	framework := []*scene.ClassDecl{object, str, ref, weak, activity, fragAct, queueC, msgC, handlerC, fragment, bitmap, dumpData, objArr, bytesArr}

	main := b.Class(name("com.example.mail.MainActivity"), fragAct, scene.F("mAdapter", obj))
	main.InstanceSize = 120
	monitorC := b.Class(name("com.example.mail.net.ConnectivityMonitor"), object, scene.F("mListener", obj))
	listenerC := b.Class(name("com.example.mail.MainActivity$1"), object, scene.F("this$0", obj))
	uiHandler := b.Class(name("com.example.mail.MainActivity$UiHandler"), handlerC, scene.F("this$0", obj))
	inbox := b.Class(name("com.example.mail.InboxFragment"), fragment)
	cache := b.Class(name("com.example.mail.ImageCache"), object)
	app := []*scene.ClassDecl{main, monitorC, listenerC, uiHandler, inbox, cache}
	sc.MonitorClass, sc.FragmentClass, sc.MainClass = monitorC.ID, inbox.ID, main.ID

	// Ids that statics name.
	sc.Monitor, sc.DetachedFragment, sc.Names = b.ID(), b.ID(), b.ID()
	bitmaps, dd := b.ID(), b.ID()
	monitorC.Statics = []scene.Static{{Name: "sInstance", Type: obj, Value: sc.Monitor}}
	inbox.Statics = []scene.Static{{Name: "sLast", Type: obj, Value: sc.DetachedFragment}}
	main.Statics = []scene.Static{{Name: "sNames", Type: obj, Value: sc.Names}, {Name: "sCount", Type: i32, Value: 3}}
	cache.Statics = []scene.Static{{Name: "sBitmaps", Type: obj, Value: bitmaps}}
	bitmap.Statics = []scene.Static{{Name: "dumpData", Type: obj, Value: dd}}

	if !o.NoHeaps {
		b.HeapInfo(hprof.HeapZygote, "zygote")
	}
	for _, c := range framework {
		c.Dump()
	}
	if !o.NoHeaps {
		b.HeapInfo(hprof.HeapApp, "app")
	}
	for _, c := range app {
		c.Dump()
	}

	// Leak 1: ConnectivityMonitor.sInstance -> mListener -> this$0.
	sc.Listener, sc.LeakedStatic = b.ID(), b.ID()
	b.InstanceWithID(sc.Monitor, monitorC, scene.V{"mListener": sc.Listener})
	b.InstanceWithID(sc.Listener, listenerC, scene.V{"this$0": sc.LeakedStatic})
	sc.Adapter = b.Bytes(make([]byte, 1000))
	b.InstanceWithID(sc.LeakedStatic, main, scene.V{"mDestroyed": 1, "mAdapter": sc.Adapter})

	// Leak 2: a thread's MessageQueue -> Message -> next -> target -> this$0.
	sc.Queue, sc.Msg1, sc.Msg2, sc.Handler, sc.LeakedHandler = b.ID(), b.ID(), b.ID(), b.ID(), b.ID()
	b.InstanceWithID(sc.Queue, queueC, scene.V{"mMessages": sc.Msg1})
	b.Root(hprof.SubRootJavaFrame, sc.Queue)
	b.InstanceWithID(sc.Msg1, msgC, scene.V{"what": 1, "next": sc.Msg2})
	b.InstanceWithID(sc.Msg2, msgC, scene.V{"what": 2, "target": sc.Handler})
	b.InstanceWithID(sc.Handler, uiHandler, scene.V{"mQueue": sc.Queue, "this$0": sc.LeakedHandler})
	b.InstanceWithID(sc.LeakedHandler, main, scene.V{"mFinished": 1})

	// A live activity, with an attached fragment and a weak reference to a
	// destroyed activity that nothing else holds.
	sc.LiveActivity, sc.AttachedFragment, sc.Weak, sc.WeakHeld = b.ID(), b.ID(), b.ID(), b.ID()
	fm := b.Instance(object, nil)
	b.InstanceWithID(sc.LiveActivity, main, scene.V{"mResumed": 1, "FragmentActivity.mResumed": 1, "mFragments": sc.AttachedFragment, "mWindow": sc.Weak})
	b.Root(hprof.SubRootJNIGlobal, sc.LiveActivity)
	b.InstanceWithID(sc.AttachedFragment, inbox, scene.V{"mFragmentManager": fm, "mHost": sc.LiveActivity})
	b.InstanceWithID(sc.Weak, weak, scene.V{"referent": sc.WeakHeld})
	b.InstanceWithID(sc.WeakHeld, main, scene.V{"mDestroyed": 1})
	b.InstanceWithID(sc.DetachedFragment, inbox, scene.V{"mHost": 0})
	sc.GarbageActivity = b.Instance(main, scene.V{"mDestroyed": 1})

	// Strings: "INBOX" four times (three Latin-1, one UTF-16), "日本" twice,
	// "Drafts" once, and two garbage "INBOX".
	latin := func(s string) uint64 {
		v := b.Bytes([]byte(s))
		return b.Instance(str, scene.V{"count": uint64(len(s)), "value": v})
	}
	wide := func(s string) uint64 {
		u := utf16.Encode([]rune(s))
		v := b.Chars(u)
		return b.Instance(str, scene.V{"count": uint64(len(u)), "value": v})
	}
	names := []uint64{latin("INBOX"), latin("INBOX"), latin("INBOX"), wide("INBOX"), wide("日本"), wide("日本"), latin("Drafts")}
	latin("INBOX")
	latin("INBOX")
	b.ObjectArrayWithID(sc.Names, objArr, names...)

	// Bitmaps: pixels in mBuffer; in Bitmap.dumpData as PNG; none.
	sc.Bitmap1Pixels = b.Bytes(make([]byte, 4*2*4))
	sc.Bitmap1 = b.Instance(bitmap, scene.V{"mWidth": 4, "mHeight": 2, "mBuffer": sc.Bitmap1Pixels, "mNativePtr": 111})
	sc.Bitmap2 = b.Instance(bitmap, scene.V{"mWidth": 64, "mHeight": 32, "mNativePtr": 222})
	sc.Bitmap3 = b.Instance(bitmap, scene.V{"mWidth": 10, "mHeight": 10, "mNativePtr": 333})
	sc.GarbageBitmap = b.Instance(bitmap, scene.V{"mWidth": 1, "mHeight": 1, "mBuffer": b.Bytes(make([]byte, 4))})
	b.ObjectArrayWithID(bitmaps, objArr, sc.Bitmap1, sc.Bitmap2, sc.Bitmap3)
	png1 := b.Bytes(make([]byte, 10))
	sc.PNG2 = b.Bytes(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 12)...))
	natives := b.Longs(111, 222)
	buffers := b.ObjectArray(bytesArr, png1, sc.PNG2)
	b.InstanceWithID(dd, dumpData, scene.V{"count": 2, "format": 1, "natives": natives, "buffers": buffers})
	if err := b.Close(); err != nil {
		return nil, err
	}
	return sc, nil
}
