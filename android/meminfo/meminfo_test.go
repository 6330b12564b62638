package meminfo

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"
)

func p(v int64) *int64 { return &v }

func parseFile(t *testing.T, name string) MemInfo {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return Parse(b)
}

func TestAndroid11(t *testing.T) {
	got := parseFile(t, "android11_launcher3.txt")
	want := MemInfo{PID: 21936, Process: "com.android.launcher3",
		TotalPSS: p(105529), TotalRSS: p(187052), TotalSwap: p(0),
		JavaHeap: p(5604), NativeHeap: p(24380), Code: p(880), Stack: p(976), Graphics: p(61692), PrivateOther: p(2364), System: p(9633),
		JavaHeapRSS: p(26492), NativeHeapRSS: p(27072), CodeRSS: p(65056), StackRSS: p(988), GraphicsRSS: p(61692),
		DalvikHeapSize: p(28651), DalvikHeapAlloc: p(4075), DalvikHeapFree: p(24576),
		NativeHeapSize: p(39580), NativeHeapAlloc: p(24489), NativeHeapFree: p(11037),
		Objects: map[string]int64{"views": 114, "view_root_impl": 1, "app_contexts": 9, "activities": 1, "assets": 7,
			"asset_managers": 0, "local_binders": 39, "proxy_binders": 41, "parcel_memory": 17, "parcel_count": 75,
			"death_recipients": 1, "open_ssl_sockets": 0, "web_views": 0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %s\nwant %s", dump(got), dump(want))
	}
}

func TestAndroid9(t *testing.T) {
	got := parseFile(t, "android9_home.txt")
	want := MemInfo{PID: 5049, Process: "com.android.home",
		TotalPSS: p(135623), TotalSwapPSS: p(0),
		JavaHeap: p(7700), NativeHeap: p(63204), Code: p(28140), Stack: p(56), Graphics: p(18636), PrivateOther: p(5528), System: p(12359),
		DalvikHeapSize: p(7057), DalvikHeapAlloc: p(5309), DalvikHeapFree: p(1748),
		NativeHeapSize: p(113664), NativeHeapAlloc: p(77388), NativeHeapFree: p(36275),
		Objects: map[string]int64{"views": 789, "view_root_impl": 1, "app_contexts": 8, "activities": 1, "assets": 13,
			"asset_managers": 0, "local_binders": 62, "proxy_binders": 40, "parcel_memory": 13, "parcel_count": 56,
			"death_recipients": 2, "open_ssl_sockets": 0, "web_views": 0}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %s\nwant %s", dump(got), dump(want))
	}
}

func TestAndroid5CutOutput(t *testing.T) {
	got := parseFile(t, "android5_settings.txt")
	want := MemInfo{PID: 21074, Process: "com.android.settings",
		DalvikHeapSize: p(32901), DalvikHeapAlloc: p(28569), DalvikHeapFree: p(4332),
		NativeHeapSize: p(9368), NativeHeapAlloc: p(7139), NativeHeapFree: p(2228)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %s\nwant %s", dump(got), dump(want))
	}
	if !got.Found() {
		t.Error("Found() false for a table")
	}
}

func TestAndroid10Swap(t *testing.T) {
	got := parseFile(t, "android10_piano.txt")
	want := MemInfo{PID: 805, Process: "cn.findpiano.piano",
		DalvikHeapSize: p(39766), DalvikHeapAlloc: p(15190), DalvikHeapFree: p(24576),
		NativeHeapSize: p(215040), NativeHeapAlloc: p(109702), NativeHeapFree: p(105337)}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %s\nwant %s", dump(got), dump(want))
	}
}

func TestNoProcess(t *testing.T) {
	got := parseFile(t, "no_process.txt")
	if got.Found() || !reflect.DeepEqual(got, MemInfo{}) {
		t.Errorf("got %s", dump(got))
	}
}

func TestTableTotalWithoutSummary(t *testing.T) {
	// Android 5 prints no App Summary: the TOTAL row gives the PSS total.
	in := "** MEMINFO in pid 7 [x] **\n" +
		"                   Pss  Private  Private  Swapped     Heap     Heap     Heap\n" +
		"                 Total    Dirty    Clean    Dirty     Size    Alloc     Free\n" +
		"                ------   ------   ------   ------   ------   ------   ------\n" +
		"  Native Heap        0        0        0        0    12288     9001     3286\n" +
		"        TOTAL    40000    30000     5000        0    45000    30000    15000\n\n" +
		" Objects\n               Views:       12         ViewRootImpl:        1\n"
	got := Parse([]byte(in))
	want := MemInfo{PID: 7, Process: "x", TotalPSS: p(40000), NativeHeapSize: p(12288), NativeHeapAlloc: p(9001), NativeHeapFree: p(3286),
		Objects: map[string]int64{"views": 12, "view_root_impl": 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %s\nwant %s", dump(got), dump(want))
	}
	// CR LF (a PTY shell) reads the same.
	if crlf := Parse([]byte(strings.ReplaceAll(in, "\n", "\r\n"))); !reflect.DeepEqual(crlf, want) {
		t.Errorf("crlf: %s", dump(crlf))
	}
}

func TestFormatRoundTrip(t *testing.T) {
	m := MemInfo{PID: 4242, Process: "com.example.modern",
		TotalPSS: p(90123), TotalRSS: p(170001), TotalSwapPSS: p(12),
		JavaHeap: p(20480), NativeHeap: p(30720), Code: p(9000), Stack: p(1200), Graphics: p(15000), PrivateOther: p(3000), System: p(10723),
		JavaHeapRSS: p(30000), NativeHeapRSS: p(33000), CodeRSS: p(60000), StackRSS: p(1300), GraphicsRSS: p(15000),
		DalvikHeapSize: p(65536), DalvikHeapAlloc: p(20000), DalvikHeapFree: p(45536),
		NativeHeapSize: p(40000), NativeHeapAlloc: p(30000), NativeHeapFree: p(10000),
		Objects: map[string]int64{"views": 300, "view_root_impl": 2, "activities": 3, "app_contexts": 5, "web_views": 1}}
	var buf bytes.Buffer
	if err := Format(&buf, m); err != nil {
		t.Fatal(err)
	}
	if got := Parse(buf.Bytes()); !reflect.DeepEqual(got, m) {
		t.Errorf("round trip\n got  %s\nwant %s\n%s", dump(got), dump(m), buf.String())
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"Views": "views", "ViewRootImpl": "view_root_impl", "Local Binders": "local_binders",
		"OpenSSL Sockets": "open_ssl_sockets", "WebViews": "web_views", "Parcel memory": "parcel_memory", "AssetManagers": "asset_managers"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
		if ObjectLabel(want) != in {
			t.Errorf("ObjectLabel(%q) = %q", want, ObjectLabel(want))
		}
	}
}

func dump(m MemInfo) string {
	var b strings.Builder
	v := reflect.ValueOf(m)
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		b.WriteString(v.Type().Field(i).Name + "=")
		if f.Kind() == reflect.Pointer {
			if f.IsNil() {
				b.WriteString("nil ")
			} else {
				b.WriteString(fmtInt(f.Elem().Int()) + " ")
			}
			continue
		}
		b.WriteString(strings.ReplaceAll(strings.TrimSpace(fmtAny(f.Interface())), "\n", " ") + " ")
	}
	return b.String()
}

func FuzzParse(f *testing.F) {
	for _, n := range []string{"android11_launcher3.txt", "android9_home.txt", "android5_settings.txt"} {
		if b, err := os.ReadFile("testdata/" + n); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m := Parse(b)
		// What was parsed formats and parses back to the same values for
		// the fields Format prints.
		var buf bytes.Buffer
		if err := Format(&buf, m); err != nil {
			t.Fatal(err)
		}
		again := Parse(buf.Bytes())
		if m.JavaHeap != nil && (again.JavaHeap == nil || *again.JavaHeap != *m.JavaHeap) {
			t.Fatalf("java heap %d became %v", *m.JavaHeap, again.JavaHeap)
		}
		if m.NativeHeapSize != nil && *again.NativeHeapSize != *m.NativeHeapSize {
			t.Fatalf("native heap size %d became %d", *m.NativeHeapSize, *again.NativeHeapSize)
		}
	})
}
