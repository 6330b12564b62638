package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/testkit/testpeer"
)

func TestVersionPrintsVersionAndCommit(t *testing.T) {
	oldV, oldC := Version, Commit
	Version, Commit = "v1.2.3", "0123abc"
	defer func() { Version, Commit = oldV, oldC }()
	out, err := runApp(t, "version")
	if err != nil || out != "ddmtui v1.2.3 (commit 0123abc)\n" {
		t.Fatalf("version printed %q, %v", out, err)
	}
	if out, _ := runApp(t, "--version"); !strings.Contains(out, "v1.2.3") {
		t.Fatalf("--version printed %q", out)
	}
}

// completionScript writes `ddmtui completion SHELL` to a file.
func completionScript(t *testing.T, shell string) string {
	t.Helper()
	out, err := runApp(t, "completion", shell)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "ddmtui."+shell)
	if err := os.WriteFile(p, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBashCompletion: bash accepts the script, and its function completes
// commands and a command's flags from a built binary's own definitions.
func TestBashCompletion(t *testing.T) {
	script := completionScript(t, "bash")
	if out, err := exec.Command("bash", "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	bin := buildBinary(t)
	complete := func(words ...string) string {
		t.Helper()
		line := `source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _ddmtui_complete; echo "${COMPREPLY[*]}"`
		out, err := exec.Command("bash", append([]string{"-c", line, "bash", script, bin}, words...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("completing %q: %v\n%s", words, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if got := complete("sn"); got != "snapshot" {
		t.Errorf("ddmtui sn<TAB> gives %q", got)
	}
	if got := complete("s"); got != "sim snapshot serve" {
		t.Errorf("ddmtui s<TAB> gives %q", got)
	}
	if got := complete("snapshot", "--pi"); got != "--pid" {
		t.Errorf("ddmtui snapshot --pi<TAB> gives %q", got)
	}
	if got := complete("completion", "--h"); got != "--help" {
		t.Errorf("ddmtui completion --h<TAB> gives %q", got)
	}
}

func TestZshAndFishCompletionParse(t *testing.T) {
	zsh := testpeer.Require(t, "zsh")
	if out, err := exec.Command(zsh, "-n", completionScript(t, "zsh")).CombinedOutput(); err != nil {
		t.Errorf("zsh -n: %v\n%s", err, out)
	}
	fish := testpeer.Require(t, "fish")
	script := completionScript(t, "fish")
	if out, err := exec.Command(fish, "--no-execute", script).CombinedOutput(); err != nil {
		t.Errorf("fish --no-execute: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(script)
	for _, c := range NewApp().Commands {
		if !c.Hidden && !strings.Contains(string(b), "-a '"+c.Name+"'") {
			t.Errorf("fish completion lacks the %s command", c.Name)
		}
	}
	if _, err := runApp(t, "completion", "tcsh"); err == nil || !strings.Contains(err.Error(), "want bash, zsh or fish") {
		t.Errorf("unknown shell: %v", err)
	}
}

// TestManPage: the page is generated from the definitions: every visible
// command and a global flag are in it, and groff renders it without warnings.
func TestManPage(t *testing.T) {
	page, err := runApp(t, "man")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(page, ".nh\n.TH ddmtui 1") {
		t.Fatalf("not a section-1 man page:\n%.200s", page)
	}
	for _, c := range NewApp().Commands {
		if !c.Hidden && !strings.Contains(page, "\n.SH "+c.Name+"\n") {
			t.Errorf("man page lacks the %s command", c.Name)
		}
	}
	if !strings.Contains(page, "--scan-interval") {
		t.Error("man page lacks the global flags")
	}
	groff := testpeer.Require(t, "groff")
	cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = strings.NewReader(page)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("groff: %v\n%s", err, out)
	}
}

// Completing never runs a command: `ddmtui sim --<Tab>` asks `ddmtui sim --
// --generate-bash-completion`, and urfave/cli turns completion off when a
// "--" stands among the words, so the simulator started and held the shell
// (issue 38 #4). Every command's action is replaced by one that fails the
// test.
func TestCompletionNeverRunsAnAction(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  string // a line of the answer; "" for none; "?" unchecked (urfave/cli answers from os.Args)
	}{
		{[]string{"sim", "--"}, "--local"},
		{[]string{"list", "--"}, "--json"},
		{[]string{"hprof", "analyze", "--"}, "--top"},
		{[]string{"--adb", "off", "snapshot", "--"}, "--pid"},
		{[]string{"trace", "--", "f"}, ""},
		{[]string{"sim", "--lo"}, "?"},
		{[]string{"list"}, "?"},
		{[]string{"trace", "f", "--js"}, "?"},
	} {
		app := NewApp()
		var out strings.Builder
		app.Writer, app.ErrWriter = &out, &out
		ran := ""
		var stub func([]*cli.Command)
		stub = func(cmds []*cli.Command) {
			for _, cmd := range cmds {
				name := cmd.Name
				cmd.Action = func(*cli.Context) error { ran = name; return nil }
				stub(cmd.Subcommands)
			}
		}
		stub(app.Commands)
		app.Action = func(*cli.Context) error { ran = "dashboard"; return nil }
		args := append(append([]string{"ddmtui"}, tc.words...), "--generate-bash-completion")
		if err := Run(app, args); err != nil {
			t.Errorf("%q: %v", tc.words, err)
		}
		if ran != "" {
			t.Errorf("completing %q ran %s", tc.words, ran)
		}
		if tc.want == "?" {
			continue
		}
		if tc.want != "" && !slices.Contains(strings.Split(out.String(), "\n"), tc.want) {
			t.Errorf("completing %q gave %q, want a line %q", tc.words, out.String(), tc.want)
		}
		if tc.want == "" && strings.Contains(out.String(), "--") {
			t.Errorf("completing %q gave flags %q after --", tc.words, out.String())
		}
	}
}

// version reads the commit Go stamps into a build (vcs.revision, with
// -dirty whatever the order of the settings), and where there is none it
// says why rather than only "unknown" (issue 38 #22).
func TestVersionFromBuildInfo(t *testing.T) {
	oldV, oldC := Version, Commit
	Version, Commit = "dev", ""
	defer func() { Version, Commit = oldV, oldC }()
	info := &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261207042831-a35ba6fbca5a"}, Settings: []debug.BuildSetting{
		{Key: "vcs.modified", Value: "true"}, {Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "a35ba6fbca5a10ec"}}}
	if v, c := versionFrom(info); v != "v0.0.0-20261207042831-a35ba6fbca5a" || c != "a35ba6fbca5a10ec-dirty" {
		t.Errorf("stamped build: %q %q", v, c)
	}
	if v, c := versionFrom(&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}); v != "dev" || c != "" {
		t.Errorf("unstamped build: %q %q", v, c)
	}
	out, err := runApp(t, "version")
	if err != nil || !strings.HasPrefix(out, "ddmtui ") {
		t.Fatalf("%q %v", out, err)
	}
	if strings.Contains(out, "(commit unknown)") || (strings.Contains(out, "unknown") && !strings.Contains(out, "-buildvcs=false")) {
		t.Errorf("version of a test binary (never stamped): %q", out)
	}
}
