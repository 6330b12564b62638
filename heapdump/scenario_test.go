package heapdump

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ddmtui/ddmtui/hprof"
)

func scenario(t testing.TB, o ScenarioOptions) (*Scenario, []byte) {
	t.Helper()
	var buf bytes.Buffer
	sc, err := androidScenario(&buf, o)
	if err != nil {
		t.Fatal(err)
	}
	return sc, buf.Bytes()
}

// The planted Android situations give the numbers worked out by hand in
// the comments, for ART's 4-byte ids.
func TestAndroidScenario(t *testing.T) {
	sc, data := scenario(t, ScenarioOptions{})
	h := analyseBytes(t, data)
	checkScenario(t, h, sc, 4, true)
}

// The same heap with 8-byte ids, in the standard version, with JVM
// internal class names, and after conversion to standard HPROF: the same
// answers (sizes of ids scale with the id size).
func TestAndroidScenarioVariants(t *testing.T) {
	for _, o := range []ScenarioOptions{
		{IDSize: 8, Version: hprof.VersionStandard},
		{IDSize: 4, Internal: true},
		{IDSize: 8, Internal: true, Version: hprof.VersionStandard, NoHeaps: true},
	} {
		t.Run(fmt.Sprintf("%+v", o), func(t *testing.T) {
			sc, data := scenario(t, o)
			checkScenario(t, analyseBytes(t, data), sc, o.IDSize, !o.NoHeaps)
		})
	}
	t.Run("converted", func(t *testing.T) {
		sc, data := scenario(t, ScenarioOptions{})
		var out bytes.Buffer
		if err := hprof.Convert(&out, bytes.NewReader(data), hprof.ConvertOptions{}); err != nil {
			t.Fatal(err)
		}
		h := analyseBytes(t, out.Bytes())
		if h.Version() != hprof.VersionStandard {
			t.Fatalf("version %q", h.Version())
		}
		checkScenario(t, h, sc, 4, false)
	})
}

func checkScenario(t *testing.T, h *Heap, sc *Scenario, idSize int, heaps bool) {
	t.Helper()
	id := uint64(idSize)
	// act1: MainActivity (instance size 120) retaining its 1000-byte adapter.
	leaks := h.Leaks().Find()
	type want struct {
		id       uint64
		kind     string
		reason   string
		retained uint64
		path     string
	}
	wants := []want{
		{sc.LeakedStatic, "activity", "destroyed", 1120, fmt.Sprintf("java.lang.Class@%#x <- com.example.mail.net.ConnectivityMonitor@%#x.sInstance <- com.example.mail.MainActivity$1@%#x.mListener <- com.example.mail.MainActivity@%#x.this$0", sc.MonitorClass, sc.Monitor, sc.Listener, sc.LeakedStatic)},
		{sc.LeakedHandler, "activity", "finished", 120, fmt.Sprintf("android.os.MessageQueue@%#x <- android.os.Message@%#x.mMessages <- android.os.Message@%#x.next <- com.example.mail.MainActivity$UiHandler@%#x.target <- com.example.mail.MainActivity@%#x.this$0", sc.Queue, sc.Msg1, sc.Msg2, sc.Handler, sc.LeakedHandler)},
		{sc.DetachedFragment, "fragment", "detached", 2 * id, fmt.Sprintf("java.lang.Class@%#x <- com.example.mail.InboxFragment@%#x.sLast", sc.FragmentClass, sc.DetachedFragment)},
	}
	if len(leaks) != len(wants) {
		t.Fatalf("%d leaks, want %d: %+v", len(leaks), len(wants), leaks)
	}
	for i, w := range wants {
		l := leaks[i]
		var path []string
		for k, s := range l.Path {
			e := fmt.Sprintf("%s@%#x", h.ClassName(s.Node), h.ID(s.Node))
			if k > 0 {
				e += "." + s.Field
			}
			path = append(path, e)
		}
		got := want{h.ID(l.Node), l.Kind, l.Reason, h.Retained(l.Node), strings.Join(path, " <- ")}
		if got != w {
			t.Errorf("leak %d:\n got %+v\nwant %+v", i, got, w)
		}
		if l.Depth != len(l.Path) {
			t.Errorf("leak %d depth %d, path %d", i, l.Depth, len(l.Path))
		}
	}
	// Not leaks: the live activity, the garbage one, the weakly held one.
	for _, x := range []uint64{sc.GarbageActivity, sc.WeakHeld} {
		if h.Reachable(node(t, h, x)) {
			t.Errorf("%#x is reachable", x)
		}
	}
	if h.Reachable(node(t, h, sc.Weak)) != true {
		t.Error("the WeakReference itself is unreachable")
	}

	// Histogram: five MainActivity instances (3 reachable); retained of the
	// three that no MainActivity dominates: 1120 + 120 + (120 + the
	// attached fragment 2·id + the WeakReference 2·id + the FragmentManager 0).
	r := row(t, h, "com.example.mail.MainActivity")
	if want := (ClassRow{Name: r.Name, Instances: 5, Shallow: 600, Retained: 1120 + 120 + 120 + 4*id, ReachableInstances: 3, ReachableShallow: 360}); r != want {
		t.Errorf("MainActivity row %+v, want %+v", r, want)
	}
	if r := row(t, h, "java.lang.String"); r.Instances != 9 || r.Shallow != 144 || r.ReachableInstances != 7 {
		t.Errorf("String row %+v", r)
	}
	if r := row(t, h, "byte[][]"); r.Instances != 1 || r.Shallow != 2*id {
		t.Errorf("byte[][] row %+v", r)
	}
	if r := row(t, h, "java.lang.Class"); r.Instances != 20 {
		t.Errorf("Class row %+v", r)
	}

	// Duplicate strings: INBOX ×4 (byte[5] ×3 and char[5]: 25 − 5), 日本 ×2.
	dups := h.Strings().Duplicates()
	if len(dups) != 2 || dups[0].Value != "INBOX" || dups[0].Count != 4 || dups[0].Wasted != 20 ||
		dups[1].Value != "日本" || dups[1].Count != 2 || dups[1].Wasted != 4 {
		t.Errorf("duplicate strings %+v", dups)
	}

	// Bitmaps: 32 raw bytes in mBuffer; the second's PNG in dumpData
	// (natives[1] == 222); the third without pixels; the garbage one left out.
	bms := h.Bitmaps().List()
	got := fmt.Sprint(len(bms))
	for _, b := range bms {
		got += fmt.Sprintf(" %#x:%dx%d:%d:%v:%s:%s", h.ID(b.Node), b.Width, b.Height, b.PixelBytes, b.PixelsInDump, b.Source, b.Format)
	}
	wantBm := fmt.Sprintf("3 %#x:4x2:32:true:mBuffer:raw %#x:64x32:20:true:dumpData:png %#x:10x10:0:false::", sc.Bitmap1, sc.Bitmap2, sc.Bitmap3)
	if got != wantBm {
		t.Errorf("bitmaps\n got %s\nwant %s", got, wantBm)
	}
	if px := h.Bitmaps().Pixels(bms[1]); !bytes.HasPrefix(px, []byte("\x89PNG")) || len(px) != 20 {
		t.Errorf("dumpData pixels %q", px)
	}

	// Top dominators, worked out by hand (statics: one id each; MainActivity
	// also an int): the monitor class holds the first leak.
	top := h.Dominators().Top(7)
	var tops []string
	for _, d := range top {
		tops = append(tops, fmt.Sprintf("%s=%d", h.ClassName(d), h.Retained(d)))
	}
	msgSize := 4 + 3*id
	wantTop := []string{
		fmt.Sprintf("java.lang.Class=%d", id+id+id+1120),                 // ConnectivityMonitor
		fmt.Sprintf("java.lang.Class=%d", id+4+7*id+7*16+15+10+8+6),      // MainActivity: sNames
		fmt.Sprintf("android.os.MessageQueue=%d", id+2*msgSize+2*id+120), // the queue root
		fmt.Sprintf("com.example.mail.MainActivity=%d", 120+4*id),        // the live activity
		fmt.Sprintf("java.lang.Class=%d", id+3*id+3*(16+id)+32),          // ImageCache
		fmt.Sprintf("java.lang.Class=%d", id+(8+2*id)+16+2*id+10+20),     // Bitmap: dumpData
		fmt.Sprintf("java.lang.Class=%d", id+2*id),                       // InboxFragment
	}
	if strings.Join(tops, " ") != strings.Join(wantTop, " ") {
		t.Errorf("top dominators\n got %v\nwant %v", tops, wantTop)
	}

	// Heaps: the 14 framework classes in the zygote heap (one static id),
	// the rest in the app heap.
	hs := fmt.Sprint(h.Heaps())
	if heaps {
		if !strings.HasPrefix(hs, fmt.Sprintf("[{zygote 14 %d} {app 53 ", id)) {
			t.Errorf("heaps %s", hs)
		}
	} else if !strings.HasPrefix(hs, "[{default 67 ") {
		t.Errorf("heaps %s", hs)
	}

	// The JSON has the required shape.
	js, err := json.Marshal(h.Report(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"heaps":[`, `"classes":[{"name":`, `"dominators":[{"id":"0x`, `"leaks":[{"id":"0x`,
		`"path":[{"class":"java.lang.Class","id":"0x`, `"field":null}`, `"field":"sInstance"}`,
		`"duplicate_strings":[{"value":"INBOX","count":4,"wasted":20}`, `"pixels_in_dump":true`} {
		if !bytes.Contains(js, []byte(key)) {
			t.Errorf("JSON lacks %s:\n%s", key, js)
		}
	}
}

// The histogram over some heaps counts only their nodes; over every heap
// it is the whole histogram.
func TestHistogramOfHeaps(t *testing.T) {
	_, data := scenario(t, ScenarioOptions{})
	h := analyseBytes(t, data)
	all := h.Histogram("zygote", "app")
	if fmt.Sprint(all) != fmt.Sprint(h.Histogram()) {
		t.Fatalf("all heaps:\n%v\n%v", all, h.Histogram())
	}
	zyg := h.Histogram("zygote")
	if len(zyg) != 1 || zyg[0].Name != "java.lang.Class" || zyg[0].Instances != 14 || zyg[0].Shallow != 4 ||
		zyg[0].Retained != 74 { // Bitmap's class object retains its dumpData
		t.Fatalf("zygote: %+v", zyg)
	}
	for _, r := range h.Histogram("app") {
		if r.Name == "com.example.mail.MainActivity" && r.Retained != 1120+120+136 {
			t.Errorf("app MainActivity %+v", r)
		}
	}
}
