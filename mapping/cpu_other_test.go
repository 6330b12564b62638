//go:build !unix

package mapping

func cpuNanos() int64 { return 0 }
