package sim

import (
	"fmt"
	"math/rand/v2"
)

// demoApps are the varied VMs a demo device runs; VMs beyond the list are
// generated.
var demoApps = []VMSpec{
	{App: "system_process", Package: "android", Family: ART, Modern: false, Threads: 14, HeapBytes: 48 << 20, HeapMax: 512 << 20},
	{App: "com.android.systemui", Package: "com.android.systemui", Family: ART, Threads: 10, HeapBytes: 24 << 20},
	{App: "com.example.mail", Package: "com.example.mail", Family: ART, WaitingForDebugger: true, Threads: 4, HeapBytes: 8 << 20},
	{App: "com.example.gallery", Package: "com.example.gallery", Family: ART, Fragmented: true, Threads: 8, HeapBytes: 192 << 20, HeapMax: 512 << 20},
	{App: "com.example.legacy", Package: "com.example.legacy", Family: Dalvik, Threads: 5, HeapBytes: 12 << 20, HeapMax: 64 << 20, Deadlock: true},
	{App: "gradle-daemon (JVM)", Family: JVM, Threads: 6},
	{App: "com.example.maps", Package: "com.example.maps", Family: ART, Modern: true, PreInitialized: true, Threads: 9, HeapBytes: 32 << 20, CrashAfter: 150},
}

// Scenario returns n VM specs with varied apps, threads and heaps,
// deterministic from seed: the first ones are the demo set (a VM waiting for
// a debugger, one with a large fragmented heap, a Dalvik VM, a non-DDM JVM),
// the rest generated.
func Scenario(seed uint64, n int) []VMSpec {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	specs := make([]VMSpec, 0, n)
	pid := 1200 + rng.IntN(400)
	for i := 0; i < n; i++ {
		var s VMSpec
		if i < len(demoApps) {
			s = demoApps[i]
		} else {
			s = VMSpec{
				App:       fmt.Sprintf("com.example.app%02d", i),
				Family:    ART,
				Modern:    rng.IntN(2) == 0,
				Threads:   2 + rng.IntN(10),
				HeapBytes: uint64(4+rng.IntN(60)) << 20,
			}
			s.Package = s.App
		}
		pid += 1 + rng.IntN(300)
		s.PID = pid
		s.Seed = seed*1000003 + uint64(i)
		specs = append(specs, s)
	}
	return specs
}
