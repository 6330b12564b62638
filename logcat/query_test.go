package logcat

import (
	"errors"
	"testing"
	"time"
)

func TestQuery(t *testing.T) {
	now := time.Date(2026, 11, 23, 20, 0, 0, 0, time.UTC)
	entries := map[string]Entry{
		"app":  {Time: now.Add(-time.Minute), PID: 100, Tag: "GalleryView", Priority: Debug, App: "com.example.gallery", Message: "Loaded 12 thumbnails"},
		"warn": {Time: now.Add(-10 * time.Minute), PID: 100, Tag: "GalleryView", Priority: Warn, App: "com.example.gallery", Message: "Slow decode: 340 ms"},
		"crash": {Time: now.Add(-2 * time.Second), PID: 100, Tag: "AndroidRuntime", Priority: Error, App: "com.example.gallery",
			Message: "FATAL EXCEPTION: main\n\tat com.example.gallery.Main.onCreate(Main.java:42)", Flags: FlagCrash | FlagCrashStart | FlagStackTrace},
		"sys":  {Time: now.Add(-time.Hour), PID: 600, Tag: "ActivityManager", Priority: Info, App: "system_server", Message: "Start proc 100:com.example.gallery"},
		"chat": {Time: now, PID: 600, Tag: "chatty", Priority: Info, App: "system_server", Message: "uid=1000 expire 3 lines"},
		"mail": {Time: now, PID: 200, Tag: "My Tag", Priority: Verbose, App: "com.example.mail", Message: "Größe: 12"},
	}
	cases := []struct {
		q    string
		want []string
	}{
		{"", []string{"app", "warn", "crash", "sys", "chat", "mail"}},
		{"package:mine", []string{"app", "warn", "crash"}},
		{"package:example", []string{"app", "warn", "crash", "mail"}},
		{"package=:com.example.mail", []string{"mail"}},
		{"package~:^com\\.example\\.(mail|gallery)$", []string{"app", "warn", "crash", "mail"}},
		{"process:system_server", []string{"sys", "chat"}},
		{"tag:GalleryView", []string{"app", "warn"}},
		{"tag:galleryview", []string{"app", "warn"}}, // smart case: lower-case ignores case
		{"tag:Galleryview", nil},                     // an upper-case letter: exact case
		{"-tag:chatty", []string{"app", "warn", "crash", "sys", "mail"}},
		{"tag~:^(Gallery|Activity)", []string{"app", "warn", "sys"}},
		{"-tag~:^Gallery", []string{"crash", "sys", "chat", "mail"}},
		{`tag:"My Tag"`, []string{"mail"}},
		{"tag=:GalleryView level:W", []string{"warn"}},
		{"level:W", []string{"warn", "crash"}},
		{"level:error", []string{"crash"}},
		{"-level:I", []string{"app", "mail"}},
		{"message:thumbnails", []string{"app"}},
		{"message~:[0-9]+ ms", []string{"warn"}},
		{"message:größe", []string{"mail"}}, // non-ASCII, case folded
		{"age:5m", []string{"app", "crash", "chat", "mail"}},
		{"age:30s", []string{"crash", "chat", "mail"}},
		{"age:1h30m", []string{"app", "warn", "crash", "sys", "chat", "mail"}},
		{"is:crash", []string{"crash"}},
		{"is:stacktrace", []string{"crash"}},
		{"-is:crash package:mine", []string{"app", "warn"}},
		{"thumbnails", []string{"app"}},
		{"activitymanager", []string{"sys"}}, // plain words look at the tag too
		{"tag:chatty | is:crash", []string{"crash", "chat"}},
		{"(tag:chatty | tag:GalleryView) & level:I", []string{"warn", "chat"}},
		{"package:mine (level:E | message~:Slow)", []string{"warn", "crash"}},
		{"-(package:mine | process:system_server)", []string{"mail"}},
	}
	order := []string{"app", "warn", "crash", "sys", "chat", "mail"}
	for _, c := range cases {
		q, err := Compile(c.q, QueryOptions{Mine: []string{"com.example.gallery"}})
		if err != nil {
			t.Errorf("%q: %v", c.q, err)
			continue
		}
		var got []string
		for _, name := range order {
			e := entries[name]
			if q.Match(&e, now) {
				got = append(got, name)
			}
		}
		if !equalStrings(got, c.want) {
			t.Errorf("%q matched %v, want %v", c.q, got, c.want)
		}
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestQueryErrors(t *testing.T) {
	for _, q := range []string{
		"level:X", "level~:W", "age:5", "age:5y", "age:", "is:firebase", "tag~:(", `tag:"open`,
		"(tag:a", "& tag:a", ")", "-(", "tag:", "tag:a |", "age:99999999m",
	} {
		if _, err := Compile(q, QueryOptions{}); err == nil {
			t.Errorf("%q compiled", q)
		} else if !errors.Is(err, ErrQuery) {
			t.Errorf("%q: error %v does not wrap ErrQuery", q, err)
		}
	}
}

func TestContainsFold(t *testing.T) {
	for _, c := range []struct {
		s, n string
		want bool
	}{
		{"Hello World", "world", true}, {"Hello", "hello!", false}, {"ÄPFEL", "äpfel", true}, {"abc", "", true}, {"xAbCx", "abc", true}, {"ab", "b c", false},
	} {
		if got := containsFold(c.s, c.n); got != c.want {
			t.Errorf("containsFold(%q, %q) = %v", c.s, c.n, got)
		}
	}
}
