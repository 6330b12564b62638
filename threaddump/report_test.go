package threaddump

import (
	"encoding/json"
	"regexp"
	"testing"
)

// reportJSON marshals the report of a test dump and decodes it generically,
// as a script reading `ddmtui anr --json` would.
func reportJSON(t *testing.T, file string) map[string]any {
	t.Helper()
	b, err := json.Marshal(NewReport(parseFile(t, file)))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func threadJSON(t *testing.T, proc map[string]any, name string) map[string]any {
	t.Helper()
	for _, th := range proc["threads"].([]any) {
		if m := th.(map[string]any); m["name"] == name {
			return m
		}
	}
	t.Fatalf("no thread %q in JSON", name)
	return nil
}

func TestReportShape(t *testing.T) {
	r := reportJSON(t, "art14_deadlock3.txt")
	eq(t, "truncated", r["truncated"], false)
	proc := r["processes"].([]any)[0].(map[string]any)
	eq(t, "pid", proc["pid"], 9146.0)
	eq(t, "cmdline", proc["cmdline"], "com.example.ledger")

	main := threadJSON(t, proc, "main")
	for key, want := range map[string]any{
		"tid": 1.0, "sys_tid": 9146.0, "state": "Blocked", "state_class": "monitor", "daemon": false,
		"prio": 5.0, "utm": 151.0, "stm": 32.0, "waiting_to_lock": "0x04f1b3a7", "held_by_tid": 21.0,
	} {
		eq(t, "main "+key, main[key], want)
	}
	eq[any](t, "main locked", main["locked"], []any{})
	frame := main["frames"].([]any)[0].(map[string]any)
	eq(t, "frame", frame, map[string]any{
		"kind": "java", "text": "com.example.ledger.Ledger.post(Ledger.java:88)",
		"class": "com.example.ledger.Ledger", "method": "post", "file": "Ledger.java", "line": 88.0,
		"locks": []any{map[string]any{"kind": "waiting to lock", "object": "0x04f1b3a7", "type": "com.example.ledger.Ledger", "held_by_tid": 21.0}},
	})

	// The owner missing from SyncWorker's line is filled in from DbWriter's
	// "- locked" line.
	sync := threadJSON(t, proc, "SyncWorker")
	eq(t, "sync held_by_tid", sync["held_by_tid"], 21.0)
	eq[any](t, "sync locked", sync["locked"], []any{"0x0a57f1e9"})

	idle := threadJSON(t, proc, "FinalizerDaemon")
	eq(t, "not waiting to lock", idle["waiting_to_lock"], nil)
	eq(t, "no owner", idle["held_by_tid"], nil)
	eq(t, "waiting on", idle["waiting_on"], "0x0e4a2c51")

	var cycle []any
	for _, e := range proc["deadlocks"].([]any)[0].([]any) {
		m := e.(map[string]any)
		cycle = append(cycle, []any{m["tid"], m["name"], m["waiting_to_lock"], m["held_by_tid"]})
	}
	eq(t, "deadlock", cycle, []any{
		[]any{14.0, "SyncWorker", "0x04f1b3a7", 21.0},
		[]any{21.0, "DbWriter", "0x0c92e5d0", 17.0},
		[]any{17.0, "AuditLog", "0x0a57f1e9", 14.0},
	})
	mt := proc["main_thread"].(map[string]any)
	eq(t, "main blocking frame", mt["blocking_frame"], "com.example.ledger.Ledger.post(Ledger.java:88)")
	eq(t, "main held by", mt["held_by_tid"], 21.0)
	top := proc["cpu_ranking"].([]any)[0].(map[string]any)
	eq(t, "top cpu", [3]any{top["tid"], top["jiffies"], top["seconds"]}, [3]any{26.0, 481.0, 4.81})
	eq(t, "unknown lines kept", len(r["unknown_lines"].([]any)), 9)
	eq[any](t, "thread unknown lines", threadJSON(t, proc, "Thread-9")["unknown_lines"],
		[]any{map[string]any{"line": 166.0, "text": "  Mutator lock held exclusively by tid=2"}})

	// Every key is snake_case.
	snake := regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, sub := range v {
				if !snake.MatchString(k) {
					t.Errorf("key %q at %s is not snake_case", k, path)
				}
				walk(path+"."+k, sub)
			}
		case []any:
			for _, sub := range v {
				walk(path+"[]", sub)
			}
		}
	}
	walk("$", r)
}

func TestReportTruncatedAndNative(t *testing.T) {
	r := reportJSON(t, "truncated_art10.txt")
	eq(t, "truncated", r["truncated"], true)
	proc := r["processes"].([]any)[0].(map[string]any)
	eq(t, "process truncated", proc["truncated"], true)
	eq[any](t, "deadlocks is an empty list", proc["deadlocks"], []any{})
	eq(t, "last thread truncated", threadJSON(t, proc, "CameraHandler")["truncated"], true)

	r = reportJSON(t, "multi_process_art10.txt")
	sf := r["processes"].([]any)[2].(map[string]any)
	eq(t, "native vm", sf["vm"], "native")
	th := threadJSON(t, sf, "surfaceflinger")
	eq(t, "native attached", th["attached"], false)
	f := th["frames"].([]any)[1].(map[string]any)
	eq(t, "native frame", [5]any{f["index"], f["pc"], f["library"], f["symbol"], f["build_id"]},
		[5]any{1.0, "00000000000180bc", "/system/lib64/libutils.so", "android::Looper::pollInner(int)+144", "8b1e4f2a03c7d9e5b6a1c0f3e2d4b5a6"})
}
