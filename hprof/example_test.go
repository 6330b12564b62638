package hprof_test

import (
	"bytes"
	"fmt"

	"github.com/ddmtui/ddmtui/hprof"
)

// A simulated VM answers HPDS with an Android heap dump of its own heap;
// the monitor converts it for desktop tools and summarizes it.
func Example() {
	dump, err := hprof.Synth{
		Seed: 7,
		Heap: []hprof.ClassCount{{Name: "com.example.Photo", Instances: 40}, {Name: "short[]", Instances: 30}},
	}.Bytes() // the HPDS chunk body
	if err != nil {
		panic(err)
	}
	var std bytes.Buffer
	if err := hprof.Convert(&std, bytes.NewReader(dump), hprof.ConvertOptions{}); err != nil {
		panic(err)
	}
	s, err := hprof.Summarize(bytes.NewReader(std.Bytes()))
	if err != nil {
		panic(err)
	}
	fmt.Println(s.Header.Version, s.SubRecords[hprof.SubHeapDumpInfo], s.SubRecords[hprof.SubRootJNIMonitor] > 0)
	for _, c := range s.TopByCount(2) {
		fmt.Println(c.Name, c.Instances)
	}
	// Output:
	// JAVA PROFILE 1.0.2 0 false
	// com.example.Photo 40
	// short[] 30
}
