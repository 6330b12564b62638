package cli

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ddmtui/ddmtui/logcat"
	"github.com/ddmtui/ddmtui/mapping"
)

// TestLogcatPrinterRetraces: with a mapping, a crash's lines print with the
// source's names, in text and in JSON; the entry itself is left as it was.
func TestLogcatPrinterRetraces(t *testing.T) {
	m, err := mapping.Parse([]byte(obfuscatedMapping))
	if err != nil {
		t.Fatal(err)
	}
	entries := []logcat.Entry{
		{Priority: logcat.Error, Tag: "AndroidRuntime", PID: 42, TID: 42, Message: "java.lang.ClassCastException: a.b cannot be cast to a.a"},
		{Priority: logcat.Error, Tag: "AndroidRuntime", PID: 42, TID: 42, Message: "\tat a.a.a(SourceFile:3)"},
		{Priority: logcat.Error, Tag: "AndroidRuntime", PID: 42, TID: 42, Message: "\tat a.b.a(Unknown Source:2)"},
	}
	for _, asJSON := range []bool{false, true} {
		var b bytes.Buffer
		out := bufio.NewWriter(&b)
		p := logcatPrinter{out: out, json: asJSON, loc: time.UTC, mapping: m}
		for i := range entries {
			if err := p.print(&entries[i]); err != nil {
				t.Fatal(err)
			}
		}
		out.Flush()
		got := b.String()
		for _, want := range []string{
			"com.example.shop.Item cannot be cast to com.example.shop.Cart",
			"at com.example.shop.Cart.add(Cart.kt:22)",
			"at com.example.shop.Item.label(Item.java:8)",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("json=%v: %q missing from\n%s", asJSON, want, got)
			}
		}
	}
	if entries[1].Message != "\tat a.a.a(SourceFile:3)" {
		t.Errorf("the entry was changed: %q", entries[1].Message)
	}
}
