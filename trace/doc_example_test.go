package trace_test

import (
	"bytes"
	"fmt"

	"github.com/ddmtui/ddmtui/trace"
)

// A simulated VM answers DDM's MPSE (method profiling stopped) with a real
// trace file: the key text immediately followed by the binary data. The
// same bytes are what DDMS saves as a .trace file.
func ExampleSynth_mpseBody() {
	s := trace.Synth{
		Seed:         7,
		Records:      1000,
		PID:          1234,
		NamedThreads: []trace.Thread{{ID: 1234, Name: "main"}, {ID: 1240, Name: "RenderThread"}},
	}
	tr, err := s.Trace()
	if err != nil {
		panic(err)
	}
	body, err := tr.MarshalBinary() // the MPSE chunk body
	if err != nil {
		panic(err)
	}
	p, err := trace.ReadProfile(bytes.NewReader(body), trace.BuildOptions{})
	if err != nil {
		panic(err)
	}
	pid, _ := p.Header.Option("pid")
	fmt.Println(p.Records, p.Clocks, pid, p.Threads[0].Name, bytes.HasPrefix(body, []byte("*version\n3\n")))
	// Output: 1000 dual 1234 main true
}
