package threaddump

import "testing"

func TestKeepNewest(t *testing.T) {
	d := &Dump{Processes: []*Process{{PID: 1, CmdLine: "old"}, {PID: 2}, {PID: 1, CmdLine: "new"}}}
	d.KeepNewest(1)
	if len(d.Processes) != 1 || d.Processes[0].CmdLine != "new" {
		t.Fatalf("kept %+v", d.Processes)
	}
	d.KeepNewest(99)
	if len(d.Processes) != 1 {
		t.Fatal("a missing pid changed the dump")
	}
}
