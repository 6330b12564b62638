package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/ddmtui/ddmtui/threaddump"
)

func anrTestdata(name string) string { return filepath.Join("..", "threaddump", "testdata", name) }

// anrJSON runs `ddmtui anr` with args through the real app and decodes the
// JSON it prints.
func anrJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, err := runApp(t, append([]string{"anr"}, args...)...)
	if err != nil {
		t.Fatalf("anr %v: %v\n%s", args, err, out)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	return doc
}

func TestANRJSONSpecExample(t *testing.T) {
	for _, args := range [][]string{
		{anrTestdata("spec_example_art10.txt"), "--json"},
		{"--json", anrTestdata("spec_example_art10.txt")},
	} {
		doc := anrJSON(t, args...)
		procs := doc["processes"].([]any)
		if len(procs) != 1 {
			t.Fatalf("%d processes", len(procs))
		}
		p := procs[0].(map[string]any)
		if p["pid"] != 4242.0 || p["cmdline"] != "com.example.deadlock" {
			t.Errorf("pid %v cmdline %v", p["pid"], p["cmdline"])
		}
		var threads []string
		for _, th := range p["threads"].([]any) {
			m := th.(map[string]any)
			for _, key := range []string{"name", "tid", "sys_tid", "state", "daemon", "prio", "utm", "stm", "frames", "waiting_to_lock", "held_by_tid", "locked"} {
				if _, ok := m[key]; !ok {
					t.Errorf("thread %v lacks %q", m["name"], key)
				}
			}
			threads = append(threads, m["name"].(string)+"/"+m["state"].(string))
		}
		if got := strings.Join(threads, ","); got != "main/Blocked,Signal Catcher/Runnable,HeapTaskDaemon/WaitingForTaskProcessor,Transfer-Thread/Blocked,RenderThread/" {
			t.Errorf("threads %s", got)
		}
		deadlocks := p["deadlocks"].([]any)
		if len(deadlocks) != 1 {
			t.Fatalf("deadlocks %v", deadlocks)
		}
		var chain []string
		for _, e := range deadlocks[0].([]any) {
			m := e.(map[string]any)
			chain = append(chain, strings.Join([]string{
				jsonText(m["tid"]), jsonText(m["name"]), jsonText(m["waiting_to_lock"]), jsonText(m["held_by_tid"]),
			}, " "))
		}
		if got := strings.Join(chain, " | "); got != "1 main 0x0b5e7a21 12 | 12 Transfer-Thread 0x03c1f8e6 1" {
			t.Errorf("deadlock chain %s", got)
		}
	}
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

func TestANRJSONKeepsAngleBrackets(t *testing.T) {
	out, err := runApp(t, "anr", anrTestdata("spec_example_art10.txt"), "--json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `"waiting": "- waiting to lock <0x0b5e7a21> (a com.example.deadlock.Account) held by thread 12"`) {
		t.Errorf("main thread wait not printed plainly:\n%s", out)
	}
}

func TestANRJSONMultiProcessAndTruncated(t *testing.T) {
	doc := anrJSON(t, anrTestdata("multi_process_art10.txt"), "--json")
	var pids []string
	for _, p := range doc["processes"].([]any) {
		pids = append(pids, jsonText(p.(map[string]any)["pid"]))
	}
	if got := strings.Join(pids, ","); got != "5120,1432,612" {
		t.Errorf("pids %s", got)
	}
	doc = anrJSON(t, "--json", anrTestdata("truncated_art10.txt"))
	if doc["truncated"] != true {
		t.Errorf("truncated = %v", doc["truncated"])
	}
}

// appWith returns an app whose anr command uses view, reading stdin, with
// its output taken for a terminal.
func appWith(view dumpViewer, stdin string) (*cli.App, *bytes.Buffer) {
	return appWithTerminal(view, stdin, true)
}

func appWithTerminal(view dumpViewer, stdin string, terminal bool) (*cli.App, *bytes.Buffer) {
	app := NewApp()
	for i, c := range app.Commands {
		if c.Name == "anr" {
			app.Commands[i] = newANRCommand(view, func(io.Writer) bool { return terminal })
		}
	}
	var out bytes.Buffer
	app.Writer, app.ErrWriter, app.Reader = &out, &out, strings.NewReader(stdin)
	return app, &out
}

func TestANRStdin(t *testing.T) {
	data, err := os.ReadFile(anrTestdata("dalvik_kitkat_deadlock.txt"))
	if err != nil {
		t.Fatal(err)
	}
	app, out := appWith(nil, string(data))
	if err := Run(app, []string{"ddmtui", "anr", "-", "--json"}); err != nil {
		t.Fatal(err)
	}
	var r threaddump.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Processes) != 1 || r.Processes[0].PID != 1733 || len(r.Processes[0].Deadlocks) != 1 {
		t.Fatalf("stdin report: %+v", r.Processes)
	}
	if d := r.Processes[0].Deadlocks[0]; d[0].Name != "main" || d[0].HeldByTID != 11 || d[1].Name != "Restocker" || d[1].HeldByTID != 1 {
		t.Errorf("dalvik deadlock %+v", d)
	}
}

func TestANRWithoutJSONOpensTheViewer(t *testing.T) {
	var shown *threaddump.Dump
	var title string
	view := func(d *threaddump.Dump, t string) error { shown, title = d, t; return nil }
	app, out := appWith(view, "")
	path := anrTestdata("art14_deadlock3.txt")
	if err := app.Run([]string{"ddmtui", "anr", path}); err != nil {
		t.Fatal(err)
	}
	if shown == nil || title != path || len(shown.Processes) != 1 || shown.Processes[0].PID != 9146 {
		t.Fatalf("viewer got %v %q", shown, title)
	}
	if out.Len() != 0 {
		t.Errorf("printed %q besides opening the viewer", out.String())
	}
}

// `anr FILE > report.txt`: output that is not a terminal gets a text
// report (it used to be refused), never the viewer.
func TestANRWritesTextReportWhenNotATerminal(t *testing.T) {
	view := func(*threaddump.Dump, string) error { t.Error("the viewer opened"); return nil }
	app, out := appWithTerminal(view, "", false)
	if err := app.Run([]string{"ddmtui", "anr", anrTestdata("art14_deadlock3.txt")}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"process 9146", "DEADLOCK 1:", "main thread:", "threads: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	// A real file is not a terminal, and neither is /dev/null.
	f, err := os.Create(filepath.Join(t.TempDir(), "report.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	if isTerminal(f) || isTerminal(null) {
		t.Fatal("a file or /dev/null taken for a terminal")
	}
}

// A viewer failure names the command that failed.
func TestDumpViewerErrorsNameTheCommand(t *testing.T) {
	app, _ := appWith(func(*threaddump.Dump, string) error { return errors.New("no tty") }, "")
	err := app.Run([]string{"ddmtui", "anr", anrTestdata("art14_deadlock3.txt")})
	if err == nil || !strings.HasPrefix(err.Error(), "anr: cannot show") {
		t.Fatalf("error %v", err)
	}
}

func TestANRErrors(t *testing.T) {
	app, _ := appWith(nil, "just some text\nwith no dump in it\n")
	err := Run(app, []string{"ddmtui", "anr", "-", "--json"})
	if err == nil || !strings.Contains(err.Error(), "no thread dump found") {
		t.Errorf("non-dump input: %v", err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"anr"}, "want one FILE"},
		{[]string{"anr", "a", "b"}, "want one FILE"},
		{[]string{"anr", "no/such/file\x1b[2J.txt"}, `anr: no/such/file\x1b[2J.txt: no such file or directory`},
	} {
		_, err := runApp(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
		if err != nil && strings.ContainsRune(err.Error(), 0x1b) {
			t.Errorf("%q: escape character in the error", tc.args)
		}
	}
}

func TestANRListedInHelp(t *testing.T) {
	out, err := runApp(t, "--help")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "anr") || !strings.Contains(out, "thread dump") {
		t.Errorf("help lacks the anr command:\n%s", out)
	}
}
