package logcat

import (
	"errors"
	"regexp"
	"regexp/syntax"
	"strings"
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
		{"(tag~:^(Gallery|Activity) | is:crash)", []string{"app", "warn", "crash", "sys"}},
		{`message~:"(Loaded|Slow) [0-9]+"`, []string{"app"}},
		{"message~:(?i)SLOW", []string{"warn"}},
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
		{"Größe THUMB", "thumb", true}, {"画像thumbnail", "thumbnail", true}, {"画像", "thumb", false}, {"thUmB画", "thumb画", true},
	} {
		if got := containsFold(c.s, c.n); got != c.want {
			t.Errorf("containsFold(%q, %q) = %v", c.s, c.n, got)
		}
	}
}

func TestRequiredLiterals(t *testing.T) {
	for _, c := range []struct {
		re   string
		want []string
	}{
		{"abc", []string{"abc"}},
		{"(decode|sync) [0-9]{3}", []string{"decode", "sync"}},
		{"x+yz", []string{"yz"}},
		{"(?i)abc", nil},
		{"a|b.*", []string{"a", "b"}},
		{"a|.*", nil},
		{"(ab)+cd?", []string{"ab"}},
		{"[0-9]+", nil},
	} {
		syn, err := syntax.Parse(c.re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := requiredLiterals(syn.Simplify()); !equalStrings(got, c.want) {
			t.Errorf("%q: %q, want %q", c.re, got, c.want)
		}
	}
}

func TestLeadingLiterals(t *testing.T) {
	for _, c := range []struct {
		re   string
		want []string
	}{
		{"abc", []string{"abc"}},
		{"(decode|sync) [0-9]{3}", []string{"decode", "sync"}},
		{"x+yz", nil},
		{`\bdecode`, nil},
		{"(?i)abc", nil},
		{"(ab|c.)d", []string{"ab", "c"}},
		{"ab+c", []string{"a"}},
	} {
		syn, err := syntax.Parse(c.re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := leadingLiterals(syn.Simplify()); !equalStrings(got, c.want) {
			t.Errorf("%q: %q, want %q", c.re, got, c.want)
		}
	}
}

// The literal-anchored path agrees with the plain regexp.
func TestRegexpPrefilterAgrees(t *testing.T) {
	msgs := []string{"decode 123", "xdecode 999 y", "sync 12", "sync 1234", "nothing", "decode decode 321", "édecode 100é", "sync 100\nsync 200", ""}
	for _, re := range []string{"(decode|sync) [0-9]{3}\\b", "decode|sync", "de+code", "(?s)sync.*200", "d.c", "[0-9]{3}$", "^sync", "(yn|d.)c", "(?m)^sync 200"} {
		q, err := Compile(`message~:"`+strings.ReplaceAll(re, `\`, `\\`)+`"`, QueryOptions{})
		if err != nil {
			t.Fatal(err)
		}
		plain := regexp.MustCompile(re)
		for _, m := range msgs {
			e := Entry{Message: m}
			if got, want := q.Match(&e, time.Time{}), plain.MatchString(m); got != want {
				t.Errorf("%q on %q: %v, regexp says %v", re, m, got, want)
			}
		}
	}
}

// TestQueryErrorsSayWhere: issue 29 #19. "(" said only "missing term", and
// package:mine with no app of one's own compiled into a query that matched
// nothing. Each error now names the place, or why.
func TestQueryErrorsSayWhere(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{"(", `logcat query: missing term after "(" at column 1 (at the end of the query)`},
		{"tag:a |", `logcat query: missing term after "|" at column 7 (at the end of the query)`},
		{"tag:a | )", `logcat query: missing term after "|" at column 7 (before ")" at column 9)`},
		{"| tag:a", `logcat query: missing term before "|" at column 1`},
		{"()", `logcat query: missing term after "(" at column 1 (before ")" at column 2)`},
		{"é (tag:a", `logcat query: missing ')' for the '(' at column 3`},
		{"tag:a )", `logcat query: ')' at column 7 closes no '('`},
		{"& tag:a", `logcat query: '&' at column 1 has no term before it`},
		{"tag:a -(", `logcat query: missing term after "(" at column 8 (at the end of the query)`},
		{`é tag:"open`, `logcat query: unterminated quote at column 7`},
		{"package:mine", `logcat query: package:mine: no app is yours here, so it would match nothing`},
		{"level:W | -package:mine", `package:mine: no app is yours here`},
	} {
		_, err := Compile(c.q, QueryOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.q, err, c.want)
		}
	}
	_, err := Compile("package:mine", QueryOptions{MineHint: "give --app NAME"})
	if err == nil || !strings.HasSuffix(err.Error(), "(give --app NAME)") {
		t.Errorf("hint: %v", err)
	}
	q, err := Compile("package:mine", QueryOptions{Mine: []string{"com.example.mail"}})
	if err != nil || !q.Match(&Entry{App: "com.example.mail"}, time.Time{}) || q.Match(&Entry{App: "com.other"}, time.Time{}) {
		t.Errorf("package:mine with an app: %v", err)
	}
}
