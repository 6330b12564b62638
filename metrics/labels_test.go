package metrics

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/ddmtui/ddmtui/monitor"
)

// TestInvalidUTF8LabelsServe: a device whose serial is not valid UTF-8 (and
// a VM whose app name and thread state are not either) used to panic the
// exporter at the first scrape (MustNewConstMetric). The scrape now serves
// every series, with the bad bytes written as \xNN.
func TestInvalidUTF8LabelsServe(t *testing.T) {
	m := newModel()
	m.addVM("adb:emu\xff\xfe:7", "adb:emu\xff\xfe", 7, "com.\xc3(app",
		[]monitor.Thread{{ID: 1, State: "run\x80"}}, []monitor.Heap{{ID: 1, SizeBytes: 10}})
	m.addVM("adb:emu\xff\xfd:7", "adb:emu\xff\xfd", 7, "b", nil, nil) // differs only in a bad byte
	c := NewCollector(m, "h\xff")
	srv := httpServer(t, Handler(Registry(c)))
	body := get(t, srv+"/metrics", "text/plain")
	for _, want := range []string{
		`ddmtui_vm_info{app="com.\\xc3(app",ddm="true",debuggable="true",family="art",host="h\\xff",pid="7",profileable="false",serial="emu\\xff\\xfe"} 1`,
		`ddmtui_vm_info{app="b",ddm="true",debuggable="true",family="art",host="h\\xff",pid="7",profileable="false",serial="emu\\xff\\xfd"} 1`,
		`ddmtui_vm_threads{app="com.\\xc3(app",host="h\\xff",pid="7",serial="emu\\xff\\xfe",state="run\\x80"} 1`,
		`ddmtui_vms{host="h\\xff"} 2`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("missing %s in\n%s", want, body)
		}
	}
	if problems, err := testutil.CollectAndLint(c); err != nil || len(problems) > 0 {
		t.Fatal(problems, err)
	}
}

func TestLabelValue(t *testing.T) {
	for in, want := range map[string]string{
		"emulator-5554": "emulator-5554",
		"":              "",
		"é":             "é",
		"a\xffb":        `a\xffb`,
		`a\xffb`:        `a\\xffb`, // the text "\xff" never collides with the byte
		"\xc3":          `\xc3`,
		// issue 37 #16: control characters from an app name
		"evil\x1b]0;pwned\x07": `evil\x1b]0;pwned\x07`,
		"a\u009b2Jb\u202e":     `a\u009b2Jb\u202e`,
		"tab\there":            `tab\x09here`,
	} {
		if got := LabelValue(in); got != want {
			t.Errorf("LabelValue(%q) = %q, want %q", in, got, want)
		}
	}
}

// Issue 37 #16: an app name with OSC and CSI sequences reaches a scrape as
// text: no ESC, BEL or C1 control is served.
func TestControlLabelsEscapedInScrape(t *testing.T) {
	m := newModel()
	m.addVM("adb:emu:7", "adb:emu", 7, "evil\x1b]52;c;cm0=\x07\u009b2J\u202e", nil, nil)
	srv := httpServer(t, Handler(Registry(NewCollector(m, "h"))))
	body := get(t, srv+"/metrics", "text/plain")
	if !strings.Contains(body, `app="evil\\x1b]52;c;cm0=\\x07\\u009b2J\\u202e"`) {
		t.Fatalf("the app's label is not escaped as expected:\n%s", body)
	}
	if strings.ContainsAny(body, "\x1b\x07\u009b\u202e") {
		t.Fatalf("a control character was served:\n%q", body)
	}
}
