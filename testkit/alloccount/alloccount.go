// Package alloccount measures what a piece of code allocates, for the
// tests that bound memory by bytes allocated rather than by time: one copy
// of the rule (a GC first, then TotalAlloc across the call).
package alloccount

import "runtime"

// Bytes reports the bytes f allocates on the Go heap (every goroutine's:
// run it where nothing else allocates much).
func Bytes(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}
