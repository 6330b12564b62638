package monitor

import "testing"

func TestHeapGraphPreferred(t *testing.T) {
	for _, c := range []struct {
		vm   VM
		want bool
	}{
		{VM{Profileable: true, API: 34}, true},                    // a release build: am dumpheap refuses it
		{VM{Profileable: true}, true},                             // known from track-app: Android 12+
		{VM{Profileable: true, API: 29}, false},                   // no heap graphs before Android 11
		{VM{Debuggable: true, Profileable: true, API: 34}, false}, // am dumpheap works
		{VM{Debuggable: true, API: 34}, false},
		{VM{API: 34}, false},
	} {
		if got := HeapGraphPreferred(c.vm); got != c.want {
			t.Errorf("%+v: %v", c.vm, got)
		}
	}
}
