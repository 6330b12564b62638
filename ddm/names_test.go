package ddm

import (
	"errors"
	"testing"
)

func TestFamilyFromVMIdent(t *testing.T) {
	for _, tc := range []struct {
		ident string
		want  VMFamily
	}{
		{"Dalvik v1.6.0", FamilyDalvik},
		{"Dalvik v1.0.1", FamilyDalvik},
		{"Dalvik v2.1.0", FamilyART},
		{"Dalvik v3.0.0", FamilyUnknown},
		{"Dalvik v10.0", FamilyUnknown},
		{"Dalvik v1", FamilyUnknown},
		{"dalvik v1.6.0", FamilyUnknown},
		{"OpenJDK 64-Bit Server VM v17", FamilyUnknown},
		{"", FamilyUnknown},
	} {
		if got := FamilyFromVMIdent(tc.ident); got != tc.want {
			t.Errorf("FamilyFromVMIdent(%q) = %v, want %v", tc.ident, got, tc.want)
		}
	}
	if FamilyDalvik.String() != "Dalvik" || FamilyART.String() != "ART" || FamilyUnknown.String() != "unknown" {
		t.Error("family names")
	}
}

func TestStatusName(t *testing.T) {
	dalvik := []string{"zombie", "running", "timed-wait", "monitor", "wait", "initializing", "starting", "native", "vmwait", "suspended"}
	art := []string{"zombie", "running", "sleeping", "monitor", "wait"}
	for i, want := range dalvik {
		if got := StatusName(FamilyDalvik, i); got != want {
			t.Errorf("Dalvik %d = %q, want %q", i, got, want)
		}
		if got := StatusName(FamilyUnknown, i); got != want {
			t.Errorf("unknown family %d = %q, want the Dalvik name %q", i, got, want)
		}
	}
	for i, want := range art {
		if got := StatusName(FamilyART, i); got != want {
			t.Errorf("ART %d = %q, want %q", i, got, want)
		}
	}
	for _, tc := range []struct {
		f VMFamily
		s int
	}{{FamilyDalvik, -1}, {FamilyDalvik, 10}, {FamilyART, 5}, {FamilyART, 9}, {FamilyART, -1}, {FamilyUnknown, 200}} {
		if got := StatusName(tc.f, tc.s); got != "unknown" {
			t.Errorf("%v %d = %q, want unknown", tc.f, tc.s, got)
		}
	}
	// The THST status byte is signed: Dalvik's UNDEFINED (-1) names as unknown.
	tab, err := DecodeThreadStatusTable(hx("04 12 00 01  00 00 00 01  FF  00 00 00 01  00 00 00 00  00 00 00 00  00"))
	if err != nil {
		t.Fatal(err)
	}
	if got := StatusName(FamilyDalvik, int(tab.Threads[0].Status)); got != "unknown" {
		t.Errorf("status byte 0xFF named %q", got)
	}
}

func TestJavaTypeName(t *testing.T) {
	for desc, want := range map[string]string{
		"Ljava/lang/String;":      "java.lang.String",
		"[I":                      "int[]",
		"[[J":                     "long[][]",
		"[Ljava/lang/Object;":     "java.lang.Object[]",
		"Z":                       "boolean",
		"Lcom/example/Foo$Inner;": "com.example.Foo$Inner",
		"java/lang/String":        "java.lang.String", // not a descriptor
		"[Q":                      "[Q",
		"L;":                      "L;", // not a descriptor: no class name
		"":                        "",
		"[":                       "[",
	} {
		if got := JavaTypeName(desc); got != want {
			t.Errorf("JavaTypeName(%q) = %q, want %q", desc, got, want)
		}
	}
}

func TestAllocFrameString(t *testing.T) {
	for _, tc := range []struct {
		f    AllocFrame
		want string
	}{
		{AllocFrame{"Lcom/example/Foo;", "bar", "Foo.java", 42}, "com.example.Foo.bar(Foo.java:42)"},
		{AllocFrame{"Ljava/lang/Object;", "<init>", "Object.java", LineNative}, "java.lang.Object.<init>(Native Method)"},
		{AllocFrame{"LA;", "m", "A.java", LineUnknown}, "A.m(A.java)"},
		{AllocFrame{"LA;", "m", "", 3}, "A.m(Unknown Source)"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.f, got, tc.want)
		}
	}
}

func TestFailIsAnError(t *testing.T) {
	m, err := DecodeFromVM(Chunk{TypeFAIL, hx("00 00 00 01  00 00 00 02  00 6E 00 6F")})
	if err != nil {
		t.Fatal(err)
	}
	var asErr error = m.(*FailError)
	var fe *FailError
	if !errors.As(asErr, &fe) || fe.Code != 1 || fe.Message != "no" {
		t.Fatalf("FAIL decoded to %#v", m)
	}
	if got := asErr.Error(); got != "VM reported failure 1: no" {
		t.Errorf("Error() = %q", got)
	}
}

func TestFeaturesHas(t *testing.T) {
	f := &Features{Names: []string{FeatureMethodTraceStreaming, FeatureHeapDumpStreaming}}
	if !f.Has(FeatureHeapDumpStreaming) || f.Has(FeatureHeapDump) {
		t.Error("Has")
	}
}

func TestResultHelpers(t *testing.T) {
	if !(&HeapDumpResult{0}).OK() || (&HeapDumpResult{0xFF}).OK() {
		t.Error("HeapDumpResult.OK")
	}
	if !(&MethodTraceResult{0}).OK() || (&MethodTraceResult{1}).OK() {
		t.Error("MethodTraceResult.OK")
	}
	a := NativeAllocation{Size: NativeZygoteFlag | 48}
	if !a.Zygote() || a.Bytes() != 48 {
		t.Errorf("zygote allocation: %v %d", a.Zygote(), a.Bytes())
	}
	if b := (&NativeAllocation{Size: 48}); b.Zygote() || b.Bytes() != 48 {
		t.Error("non-zygote allocation")
	}
	if got := (Run{Units: 300}).Bytes(8); got != 2400 {
		t.Errorf("Run.Bytes = %d", got)
	}
}
