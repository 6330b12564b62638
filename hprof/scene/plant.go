package scene

import (
	"bytes"
	"math/rand/v2"

	"github.com/ddmtui/ddmtui/hprof"
)

// builder plants the scene into a model and writes down the answers.
type builder struct {
	opts Options
	m    *model
	e    *Expect
	rnd  *rand.Rand
	pkg  string

	// String layout: Dalvik's (offset), ART's (count, compressed from API
	// 26) or the JDK 8's (no count).
	dalvik, compressed bool

	c      map[string]*class // by short key
	app    hprof.ID          // the Application instance, shared by activities
	filler *filler           // opts.Filler, streamed
}

func newBuilder(opts Options) *builder {
	b := &builder{opts: opts, m: newModel(opts.Standard), e: &Expect{},
		rnd: rand.New(rand.NewPCG(opts.Seed, 0x7363656e65)), pkg: opts.Package, c: map[string]*class{}}
	b.dalvik = !opts.Standard && opts.API < 21
	b.m.dalvik = b.dalvik
	b.m.rename = opts.ClassNames
	b.compressed = !opts.Standard && opts.API >= 26
	return b
}

// shallow returns the shallow size of a node the model holds.
func (b *builder) shallow(ids ...hprof.ID) uint64 {
	var n uint64
	for _, id := range ids {
		o := b.m.byID[id]
		if o == nil {
			b.m.fail("no object %#x", uint64(id))
			continue
		}
		n += o.shallow
	}
	return n
}

func (b *builder) classOf(id hprof.ID) string {
	if o := b.m.byID[id]; o != nil {
		return o.class
	}
	if b.m.classByID(id) != nil {
		return "java.lang.Class" // a class object, written at the end
	}
	return ""
}

const (
	tObj  = hprof.TypeObject
	tInt  = hprof.TypeInt
	tBool = hprof.TypeBoolean
	tLong = hprof.TypeLong
)

// defineClasses declares the classes of the scene. Keys are short names
// used by plant.
func (b *builder) defineClasses() {
	m, c, p := b.m, b.c, b.pkg
	def := func(key, heap, name string, super *class, fs ...field) *class {
		k := m.defClass(heap, name, super, fs...)
		c[key] = k
		return k
	}
	I, Z, A := heapImage, heapZygote, heapApp
	object := def("Object", I, "java.lang.Object", nil)
	def("Class", I, "java.lang.Class", object)
	switch {
	case b.dalvik:
		def("String", I, "java.lang.String", object, obj("value"), prim("hashCode", tInt), prim("offset", tInt), prim("count", tInt))
	case b.m.std:
		def("String", I, "java.lang.String", object, obj("value"), prim("hash", tInt))
	default:
		// ART: the characters are not in the object; hprof writes a fake
		// value field and the class's object size, 16.
		def("String", I, "java.lang.String", object, prim("count", tInt), prim("hash", tInt), obj("value")).size = 16
	}
	ref := def("Reference", I, "java.lang.ref.Reference", object, obj("referent"), obj("queue"), obj("queueNext"), obj("pendingNext"))
	def("WeakReference", I, "java.lang.ref.WeakReference", ref)
	def("SoftReference", I, "java.lang.ref.SoftReference", ref, prim("timestamp", tLong))
	def("Thread", I, "java.lang.Thread", object, obj("name"), prim("priority", tInt), prim("daemon", tBool), obj("target"))
	def("ArrayList", I, "java.util.ArrayList", object, obj("elementData"), prim("size", tInt))
	loader := def("ClassLoader", I, "java.lang.ClassLoader", object, obj("parent"), obj("runtimeInternalObjects"))
	def("PathClassLoader", I, "dalvik.system.PathClassLoader", loader)
	def("DexCache", I, "java.lang.DexCache", object, obj("location"))
	def("Object[]", I, "java.lang.Object[]", object)
	def("String[]", I, "java.lang.String[]", object)
	def("byte[][]", I, "byte[][]", object)
	for _, t := range []hprof.Type{hprof.TypeByte, hprof.TypeChar, hprof.TypeInt, hprof.TypeLong} {
		def(t.String()+"[]", I, t.String()+"[]", object).elem = t
	}

	ctx := def("Context", Z, "android.content.Context", object)
	wrapper := def("ContextWrapper", Z, "android.content.ContextWrapper", ctx, obj("mBase"))
	theme := def("ContextThemeWrapper", Z, "android.view.ContextThemeWrapper", wrapper, prim("mThemeResource", tInt))
	activity := def("Activity", Z, "android.app.Activity", theme, obj("mApplication"), obj("mWindow"), obj("mTitle"),
		prim("mResumed", tBool), prim("mFinished", tBool), prim("mDestroyed", tBool))
	application := def("Application", Z, "android.app.Application", wrapper)
	def("Fragment", Z, "android.app.Fragment", object, obj("mFragmentManager"), obj("mView"), obj("mTag"))
	handler := def("Handler", Z, "android.os.Handler", object, obj("mLooper"), obj("mQueue"), obj("mCallback"))
	def("Looper", Z, "android.os.Looper", object, obj("mQueue"), obj("mThread")).statics = []field{obj("sMainLooper")}
	def("MessageQueue", Z, "android.os.MessageQueue", object, obj("mMessages"), prim("mPtr", tLong))
	def("Message", Z, "android.os.Message", object, prim("what", tInt), prim("when", tLong), obj("target"), obj("callback"), obj("next"))
	view := def("View", Z, "android.view.View", object, obj("mContext"), obj("mParent"), prim("mLeft", tInt), prim("mTop", tInt))
	def("ViewGroup", Z, "android.view.ViewGroup", view, obj("mChildren"), prim("mChildrenCount", tInt))
	def("Window", Z, "android.view.Window", object, obj("mContext"), obj("mDecor"))
	bitmapFields := []field{prim("mNativePtr", tLong), prim("mWidth", tInt), prim("mHeight", tInt)}
	if b.opts.API < 26 {
		bitmapFields = append(bitmapFields, obj("mBuffer"))
	}
	bitmap := def("Bitmap", Z, "android.graphics.Bitmap", object, bitmapFields...)
	if b.opts.API >= 35 {
		bitmap.statics = []field{obj("dumpData")}
		def("DumpData", Z, "android.graphics.Bitmap$DumpData", object, prim("count", tInt), prim("format", tInt), obj("natives"), obj("buffers"))
	}
	def("ActivityThread", Z, "android.app.ActivityThread", object, obj("mActivities"), obj("mInitialApplication")).statics =
		[]field{obj("sCurrentActivityThread")}
	def("ActivityClientRecord", Z, "android.app.ActivityThread$ActivityClientRecord", object, obj("activity"), prim("mPreserveWindow", tBool))
	def("H", Z, "android.app.ActivityThread$H", handler)

	fragActivity := def("FragmentActivity", A, "androidx.fragment.app.FragmentActivity", activity, prim("mResumed", tBool), obj("mFragments"))
	def("XFragment", A, "androidx.fragment.app.Fragment", object, obj("mFragmentManager"), obj("mView"), obj("mWho"))
	def("FragmentManager", A, "androidx.fragment.app.FragmentManager", object, obj("mAdded"))
	def("MailApp", A, p+".MailApp", application)
	// BaseActivity declares its own mDestroyed: only android.app.Activity's
	// counts (D12).
	base := def("BaseActivity", A, p+".BaseActivity", fragActivity, prim("mDestroyed", tBool))
	def("MainActivity", A, p+".MainActivity", base, obj("mLastDetail"), obj("mHolder"), obj("mFolders"), obj("mCache"))
	for _, n := range []string{"InboxActivity", "ComposeActivity", "SettingsActivity", "DetailActivity", "HistoryActivity"} {
		def(n, A, p+"."+n, base)
	}
	def("InboxActivity$1", A, p+".InboxActivity$1", object, obj("this$0"))
	def("ComposeActivity$2", A, p+".ComposeActivity$2", object, obj("this$0"))
	def("SettingsActivity$1", A, p+".SettingsActivity$1", object, obj("this$0"))
	def("ConnectivityMonitor", A, p+".net.ConnectivityMonitor", object, prim("mState", tInt)).statics = []field{obj("sListeners")}
	def("SyncListener", A, p+".net.SyncListener", object, prim("mInterval", tInt))
	def("MessageListFragment", A, p+".ui.MessageListFragment", c["XFragment"])
	def("ConversationFragment", A, p+".ui.ConversationFragment", c["XFragment"])
	def("FragmentCache", A, p+".ui.FragmentCache", object).statics = []field{obj("sLastFragment")}
	def("PrefsFragment", A, p+".legacy.PrefsFragment", c["Fragment"])
	def("PrefsCallback", A, p+".legacy.PrefsCallback", object, obj("mFragment"))
	def("Holder", A, p+".util.Holder", object, obj("referent"))
	def("KeyedRef", A, p+".util.KeyedRef", c["WeakReference"], obj("key"))
	def("Node", A, p+".graph.Node", object, obj("left"), obj("right"), obj("payload"), prim("weight", tInt))
	def("FolderCache", A, p+".data.FolderCache", object, obj("names"), obj("mIcon"))
	def("Store", A, p+".data.Store", object, obj("items"))
	orphan := def("Orphan", A, p+".data.Orphan", object, obj("mTarget"), prim("mFlags", tInt))
	orphan.noDump = true
}

// str writes a java.lang.String of s and returns it and its value array.
// utf16 forces a char[] value (else Latin-1 text is compressed into a
// byte[] where the layout allows); pad puts s inside a larger array at an
// offset (Dalvik only); count overrides the count field (ART, Dalvik).
type strOpt struct {
	utf16 bool
	pad   string // Dalvik: the array holds pad[0] + s + pad[1:]
	count int    // when > 0
}

func (b *builder) str(heap, s string, o strOpt) (str, value hprof.ID) {
	latin1 := true
	for _, r := range s {
		if r > 0xff {
			latin1 = false
		}
	}
	units := len(utf16(s)) / 2
	var data []byte
	t := hprof.TypeChar
	offset := 0
	if b.compressed && latin1 && !o.utf16 {
		t = hprof.TypeByte
		for _, r := range s {
			data = append(data, byte(r))
		}
	} else if b.dalvik && o.pad != "" {
		data = utf16(o.pad[:1] + s + o.pad[1:])
		offset = 1
	} else {
		data = utf16(s)
	}
	value = b.m.prims(heap, t, data)
	count := units
	if o.count > 0 {
		count = o.count
	}
	hash := uint64(b.rnd.Uint32())
	switch {
	case b.dalvik:
		str = b.m.instance(heap, b.c["String"], vals{"value": uint64(value), "hashCode": hash, "offset": uint64(offset), "count": uint64(count)})
	case b.m.std:
		str = b.m.instance(heap, b.c["String"], vals{"value": uint64(value), "hash": hash})
	default:
		str = b.m.instance(heap, b.c["String"], vals{"value": uint64(value), "hash": hash, "count": uint64(count)})
	}
	return str, value
}

// activity writes an instance of class key with its window, decor view
// and title, and returns it and the nodes it alone holds.
func (b *builder) activity(key, title string, finished, destroyed bool, extra vals) (hprof.ID, []hprof.ID) {
	m, c := b.m, b.c
	act := m.alloc(heapApp)
	titleStr, titleVal := b.str(heapApp, title, strOpt{})
	decor := m.alloc(heapApp)
	v1 := m.instance(heapApp, c["View"], vals{"mContext": uint64(act), "mParent": uint64(decor), "mLeft": 0, "mTop": 48})
	v2 := m.instance(heapApp, c["View"], vals{"mContext": uint64(act), "mParent": uint64(decor), "mLeft": 0, "mTop": 96})
	children := m.array(heapApp, c["Object[]"], v1, v2)
	m.instanceAt(decor, heapApp, c["ViewGroup"], vals{"mContext": uint64(act), "mChildren": uint64(children), "mChildrenCount": 2})
	window := m.instance(heapApp, c["Window"], vals{"mContext": uint64(act), "mDecor": uint64(decor)})
	v := vals{"mApplication": uint64(b.app), "mWindow": uint64(window), "mTitle": uint64(titleStr),
		"android.app.Activity.mFinished": boolVal(finished), "android.app.Activity.mDestroyed": boolVal(destroyed),
		"mBase": uint64(b.app)}
	for k, x := range extra {
		v[k] = x
	}
	m.instanceAt(act, heapApp, c[key], v)
	return act, []hprof.ID{titleStr, titleVal, decor, v1, v2, children, window}
}

func boolVal(v bool) uint64 {
	if v {
		return 1
	}
	return 0
}

// fragment writes a fragment of class key with a view and a tag.
func (b *builder) fragment(key, tag string, manager hprof.ID, androidx bool) (hprof.ID, []hprof.ID) {
	m, c := b.m, b.c
	f := m.alloc(heapApp)
	view := m.instance(heapApp, c["View"], vals{"mLeft": 8, "mTop": 8})
	tagStr, tagVal := b.str(heapApp, tag, strOpt{})
	v := vals{"mFragmentManager": uint64(manager), "mView": uint64(view)}
	if androidx {
		v["mWho"] = uint64(tagStr)
	} else {
		v["mTag"] = uint64(tagStr)
	}
	m.instanceAt(f, heapApp, c[key], v)
	return f, []hprof.ID{view, tagStr, tagVal}
}

func (b *builder) leak(id hprof.ID, kind, reason string, owned []hprof.ID, path ...Hop) {
	b.e.Leaks = append(b.e.Leaks, Leak{ID: id, Class: b.classOf(id), Kind: kind, Reason: reason,
		Retained: b.shallow(id) + b.shallow(owned...), Path: path})
	b.e.Depths = append(b.e.Depths, Object{ID: id, Class: b.classOf(id), Why: "leak", Depth: len(path)})
}

func (b *builder) hop(id hprof.ID, field string) Hop {
	return Hop{Class: b.classOf(id), ID: id, Field: field}
}

func (b *builder) retained(id hprof.ID, why string, owned ...hprof.ID) {
	b.e.Retained = append(b.e.Retained, Object{ID: id, Class: b.classOf(id), Why: why,
		Retained: b.shallow(id) + b.shallow(owned...)})
}

func (b *builder) unreachable(id hprof.ID, why string) {
	b.e.Unreachable = append(b.e.Unreachable, Object{ID: id, Class: b.classOf(id), Why: why})
}

// plant writes every planted situation.
func (b *builder) plant() error {
	b.defineClasses()
	m, c, e := b.m, b.c, b.e
	if m.err != nil {
		return m.err
	}
	I, Z, A := heapImage, heapZygote, heapApp

	// Boot objects: the main thread (zygote), an interned string (image),
	// the class loader of the app's classes with its DexCache.
	mainName, _ := b.str(Z, "main", strOpt{})
	mainThread := m.instance(Z, c["Thread"], vals{"name": uint64(mainName), "priority": 5})
	interned, _ := b.str(I, "en_US", strOpt{})
	m.root(hprof.SubRootInternedString, interned)
	dexLoc, _ := b.str(A, "/data/app/"+b.pkg+"/base.apk", strOpt{})
	dex := m.instance(A, c["DexCache"], vals{"location": uint64(dexLoc)})
	internal := m.array(A, c["Object[]"], dex)
	loader := m.instance(A, c["PathClassLoader"], vals{"runtimeInternalObjects": uint64(internal)})
	m.root(hprof.SubRootThreadObject, mainThread)
	m.root(hprof.SubRootNativeStack, mainThread)
	m.root(hprof.SubRootThreadBlock, mainThread)

	// The application and the ActivityThread that holds the live activity.
	b.app = m.alloc(A)
	appBase := m.instance(A, c["Object"], nil)
	m.instanceAt(b.app, A, c["MailApp"], vals{"mBase": uint64(appBase)})
	m.root(hprof.SubRootJNILocal, b.app)
	m.root(hprof.SubRootJNIMonitor, b.app)

	// N1: the live MainActivity with an attached androidx fragment (N3),
	// a detail activity held weakly (N2), a soft cache, a Holder whose
	// field named referent is strong, and the duplicate strings.
	manager := m.alloc(A)
	conv, _ := b.fragment("ConversationFragment", "conversation", manager, true)
	added := m.instance(A, c["ArrayList"], vals{"elementData": uint64(m.array(A, c["Object[]"], conv)), "size": 1})
	m.instanceAt(manager, A, c["FragmentManager"], vals{"mAdded": uint64(added)})

	detail, _ := b.activity("DetailActivity", "Message 17", true, true, nil)
	detailKey, _ := b.str(A, "detail-watch-key", strOpt{})
	keyed := m.instance(A, c["KeyedRef"], vals{"referent": uint64(detail), "key": uint64(detailKey)})
	soft := m.prims(A, hprof.TypeByte, make([]byte, 4096))
	cache := m.instance(A, c["SoftReference"], vals{"referent": uint64(soft), "timestamp": 1234})
	bitmaps := b.plantBitmaps()
	holder := m.instance(A, c["Holder"], vals{"referent": uint64(bitmaps.hero)})
	folders, folderOwned := b.plantStrings(bitmaps.icon)
	mainAct, _ := b.activity("MainActivity", "Mail", false, false, vals{
		b.pkg + ".BaseActivity.mDestroyed": 1, "android.app.Activity.mResumed": 1,
		"androidx.fragment.app.FragmentActivity.mResumed": 1, "mFragments": uint64(manager),
		"mLastDetail": uint64(keyed), "mHolder": uint64(holder), "mFolders": uint64(folders), "mCache": uint64(cache)})
	b.retained(folders, "the folder names (every duplicate string) and an icon bitmap", folderOwned...)
	record := m.instance(A, c["ActivityClientRecord"], vals{"activity": uint64(mainAct)})
	activities := m.instance(A, c["ArrayList"], vals{"elementData": uint64(m.array(A, c["Object[]"], record)), "size": 1})
	thread := m.instance(A, c["ActivityThread"], vals{"mActivities": uint64(activities), "mInitialApplication": uint64(b.app)})
	c["ActivityThread"].statics[0].val = uint64(thread)
	m.root(hprof.SubRootJavaFrame, thread)
	m.root(hprof.SubRootMonitorUsed, thread)
	m.root(hprof.SubRootReferenceCleanup, keyed)
	e.NotLeaks = append(e.NotLeaks,
		Object{ID: mainAct, Class: b.classOf(mainAct), Why: "live: Activity.mDestroyed and mFinished false (BaseActivity.mDestroyed, its own field, is true)"},
		Object{ID: conv, Class: b.classOf(conv), Why: "attached: mFragmentManager set"},
		Object{ID: detail, Class: b.classOf(detail), Why: "destroyed but only weakly reachable (KeyedRef.referent)"})
	e.Depths = append(e.Depths, Object{ID: mainAct, Class: b.classOf(mainAct), Why: "ActivityThread (JAVA FRAME root) -mActivities-> ArrayList -elementData-> Object[] -[0]-> record -activity->", Depth: 5},
		Object{ID: bitmaps.hero, Class: b.classOf(bitmaps.hero), Why: "held by Holder.referent, a strong field", Depth: 7},
		Object{ID: keyed, Class: b.classOf(keyed), Why: "REFERENCE CLEANUP root", Depth: 1},
		Object{ID: detailKey, Class: b.classOf(detailKey), Why: "KeyedRef.key is strong", Depth: 2})
	b.unreachable(detail, "destroyed activity held only by KeyedRef.referent")
	b.unreachable(soft, "held only by SoftReference.referent")

	// L1: a static listener: ConnectivityMonitor.sListeners -> ArrayList ->
	// Object[] [1] -> InboxActivity$1 -this$0-> InboxActivity (destroyed).
	inbox, inboxOwned := b.activity("InboxActivity", "Inbox", true, true, nil)
	listener := m.instance(A, c["InboxActivity$1"], vals{"this$0": uint64(inbox)})
	sync := m.instance(A, c["SyncListener"], vals{"mInterval": 900})
	listArr := m.array(A, c["Object[]"], sync, listener, 0)
	list := m.instance(A, c["ArrayList"], vals{"elementData": uint64(listArr), "size": 2})
	c["ConnectivityMonitor"].statics[0].val = uint64(list)
	b.leak(inbox, "activity", "destroyed", inboxOwned, b.hop(c["ConnectivityMonitor"].id, ""), b.hop(list, "sListeners"),
		b.hop(listArr, "elementData"), b.hop(listener, "[1]"), b.hop(inbox, "this$0"))

	// L2: a Handler message: Looper.sMainLooper -> Looper -mQueue->
	// MessageQueue -mMessages-> Message -next-> Message -target-> Handler
	// -mCallback-> ComposeActivity$2 -this$0-> ComposeActivity (finished).
	compose, composeOwned := b.activity("ComposeActivity", "Compose", true, false, nil)
	callback := m.instance(A, c["ComposeActivity$2"], vals{"this$0": uint64(compose)})
	looper, queue := m.alloc(A), m.alloc(A)
	h := m.instance(A, c["Handler"], vals{"mLooper": uint64(looper), "mQueue": uint64(queue), "mCallback": uint64(callback)})
	msg2 := m.instance(A, c["Message"], vals{"what": 3, "when": 88_000, "target": uint64(h)})
	hH := m.instance(A, c["H"], vals{"mLooper": uint64(looper), "mQueue": uint64(queue)})
	msg1 := m.instance(A, c["Message"], vals{"what": 159, "when": 87_500, "target": uint64(hH), "next": uint64(msg2)})
	m.instanceAt(queue, A, c["MessageQueue"], vals{"mMessages": uint64(msg1), "mPtr": 0xb400007a2c3e5f00})
	m.instanceAt(looper, A, c["Looper"], vals{"mQueue": uint64(queue), "mThread": uint64(mainThread)})
	c["Looper"].statics[0].val = uint64(looper)
	b.leak(compose, "activity", "finished", composeOwned, b.hop(c["Looper"].id, ""), b.hop(looper, "sMainLooper"),
		b.hop(queue, "mQueue"), b.hop(msg1, "mMessages"), b.hop(msg2, "next"), b.hop(h, "target"),
		b.hop(callback, "mCallback"), b.hop(compose, "this$0"))

	// L3: an anonymous Runnable run by a thread: Thread -target->
	// SettingsActivity$1 -this$0-> SettingsActivity (destroyed).
	settings, settingsOwned := b.activity("SettingsActivity", "Settings", true, true, nil)
	runnable := m.instance(A, c["SettingsActivity$1"], vals{"this$0": uint64(settings)})
	workerName, _ := b.str(A, "sync-worker", strOpt{})
	worker := m.instance(A, c["Thread"], vals{"name": uint64(workerName), "priority": 5, "target": uint64(runnable)})
	m.root(hprof.SubRootThreadObject, worker)
	b.leak(settings, "activity", "destroyed", settingsOwned, b.hop(worker, ""), b.hop(runnable, "target"), b.hop(settings, "this$0"))

	// F1: a detached androidx fragment held by a static.
	list2, list2Owned := b.fragment("MessageListFragment", "message-list", 0, true)
	c["FragmentCache"].statics[0].val = uint64(list2)
	b.leak(list2, "fragment", "detached", list2Owned, b.hop(c["FragmentCache"].id, ""), b.hop(list2, "sLastFragment"))

	// F2: a detached android.app.Fragment held by a JNI global.
	prefs, prefsOwned := b.fragment("PrefsFragment", "prefs", 0, false)
	prefsCB := m.instance(A, c["PrefsCallback"], vals{"mFragment": uint64(prefs)})
	m.root(hprof.SubRootJNIGlobal, prefsCB)
	b.leak(prefs, "fragment", "detached", prefsOwned, b.hop(prefsCB, ""), b.hop(prefs, "mFragment"))

	// Garbage: a destroyed activity nobody holds (named by ROOT
	// UNREACHABLE, which is no root), two nodes in a cycle.
	history, historyOwned := b.activity("HistoryActivity", "History", true, true, nil)
	if !m.std {
		// hprof-conv turns this record into ROOT UNKNOWN: see Converted.
		m.root(hprof.SubRootUnreachable, history)
		e.rooted = &Leak{ID: history, Class: b.classOf(history), Kind: "activity", Reason: "destroyed",
			Retained: b.shallow(history) + b.shallow(historyOwned...), Path: []Hop{b.hop(history, "")}}
	}
	b.unreachable(history, "destroyed activity that nothing holds")
	e.NotLeaks = append(e.NotLeaks, Object{ID: history, Class: b.classOf(history), Why: "unreachable"})
	g1, g2 := m.alloc(A), m.alloc(A)
	m.instanceAt(g1, A, c["Node"], vals{"left": uint64(g2), "weight": 1})
	m.instanceAt(g2, A, c["Node"], vals{"left": uint64(g1), "weight": 2})
	b.unreachable(g1, "garbage cycle")
	b.unreachable(g2, "garbage cycle")

	// A diamond with a cycle back to its top: root -> A; A -> B, C;
	// B -> D; C -> D; D -> E (byte[64]) and D -> A.
	nA, nB, nC, nD := m.alloc(A), m.alloc(A), m.alloc(A), m.alloc(A)
	nE := m.prims(A, hprof.TypeByte, bytes.Repeat([]byte{0xe5}, 64))
	m.instanceAt(nA, A, c["Node"], vals{"left": uint64(nB), "right": uint64(nC), "weight": 10})
	m.instanceAt(nB, A, c["Node"], vals{"left": uint64(nD), "weight": 11})
	m.instanceAt(nC, A, c["Node"], vals{"left": uint64(nD), "weight": 12})
	m.instanceAt(nD, A, c["Node"], vals{"payload": uint64(nE), "right": uint64(nA), "weight": 13})
	m.root(hprof.SubRootJNIGlobal, nA)
	b.retained(nA, "diamond top: A+B+C+D+E", nB, nC, nD, nE)
	b.retained(nB, "diamond side: only itself", nil...)
	b.retained(nC, "diamond side: only itself", nil...)
	b.retained(nD, "diamond bottom: D+E", nE)
	b.retained(nE, "byte[64]", nil...)
	e.Depths = append(e.Depths, Object{ID: nD, Class: b.classOf(nD), Why: "diamond bottom", Depth: 3},
		Object{ID: nE, Class: b.classOf(nE), Why: "diamond payload", Depth: 4})
	// The diamond's payload is dumped a second time, as an Object[] in the
	// zygote heap naming a garbage node: only the first dump counts.
	lateTarget := m.instance(A, c["Object"], nil)
	m.add(&object{id: nE, heap: Z, late: true, rec: &hprof.ObjectArrayDump{Array: nE, Class: c["Object[]"].id,
		Elements: []hprof.ID{lateTarget}}})
	e.DuplicateID = nE
	b.unreachable(lateTarget, "named only by the ignored second dump of a duplicated id")

	// An instance whose class has no CLASS DUMP: 8 bytes of data that
	// would name a garbage node if read as an id (4-byte ids), and no
	// edges by D4.
	orphanTarget := m.instance(A, c["Object"], nil)
	orphanData := appendValue(nil, m.idSize, uint64(orphanTarget))
	orphanData = appendValue(orphanData, 8-m.idSize%8, 7)[:8]
	orphan := m.alloc(A)
	m.add(&object{id: orphan, heap: A, class: c["Orphan"].name, shallow: 8,
		rec: &hprof.InstanceDump{Object: orphan, Class: c["Orphan"].id, Data: orphanData}})
	m.root(hprof.SubRootUnknown, orphan)
	e.NoClassDump = orphan
	b.unreachable(orphanTarget, "named only inside the data of an instance whose class has no CLASS DUMP")
	b.retained(orphan, "no CLASS DUMP: shallow = data length", nil...)

	// Zero-length arrays, reachable through the debugger root.
	empties := m.array(A, c["Object[]"], m.array(A, c["Object[]"]), m.prims(A, hprof.TypeInt, nil), m.prims(A, hprof.TypeLong, nil))
	m.root(hprof.SubRootDebugger, empties)
	m.root(hprof.SubRootFinalizing, sync)
	// Root records naming no node are ignored.
	m.root(hprof.SubRootJNIGlobal, m.next[A]+8) // ids are 16 apart: never a node

	b.plantFiller()
	m.classObjects(func(k *class) hprof.ID {
		if k.heap == heapApp {
			return loader
		}
		return 0
	})
	// ART roots every zygote and image object with a VM INTERNAL record.
	if !m.std && !m.dalvik {
		for _, o := range m.objects {
			if !o.late && (o.heap == I || o.heap == Z) {
				m.root(hprof.SubRootVMInternal, o.id)
			}
		}
	}
	for _, k := range []string{"Object", "Class", "String", "Thread"} {
		m.root(hprof.SubRootStickyClass, c[k].id)
	}
	return m.err
}

// plantStrings writes the duplicate string groups (D13) into a FolderCache
// (which also holds the icon bitmap) and returns the cache and the nodes it
// alone holds.
func (b *builder) plantStrings(icon hprof.ID) (hprof.ID, []hprof.ID) {
	m, c := b.m, b.c
	var names, owned []hprof.ID
	group := func(value string, members ...strOpt) {
		var total, least uint64
		for i, o := range members {
			s, v := b.str(heapApp, value, o)
			names = append(names, s)
			owned = append(owned, s, v)
			size := b.shallow(v)
			total += size
			if i == 0 || size < least {
				least = size
			}
		}
		b.e.Duplicates = append(b.e.Duplicates, Duplicate{Value: value, Count: len(members), Wasted: total - least})
	}
	plain := strOpt{}
	group("INBOX", plain, plain, plain, strOpt{pad: "[]"}) // Dalvik: one is a substring of "[INBOX]"
	group("Привет ✉", plain, plain, plain)
	group("Sent", plain, plain, strOpt{utf16: true})
	group("", plain, plain)
	if b.m.std {
		group("draft", plain, plain)
	} else {
		group("draft", plain, strOpt{count: 99}) // the count does not fit: the whole array counts
	}
	unique, uv := b.str(heapApp, "Drafts", strOpt{})
	names = append(names, unique, 0)
	owned = append(owned, unique, uv)
	arr := m.array(heapApp, c["String[]"], names...)
	owned = append(owned, arr, icon)
	// An unreachable duplicate does not count.
	garbage, _ := b.str(heapApp, "INBOX", strOpt{})
	b.unreachable(garbage, "a garbage copy of a duplicate string")
	return m.instance(heapApp, c["FolderCache"], vals{"names": uint64(arr), "mIcon": uint64(icon)}), owned
}
