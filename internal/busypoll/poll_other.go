//go:build !linux

package busypoll

import "time"

// involuntarySwitches is not known here.
var involuntarySwitches = func() int64 { return -1 }

// poll is not implemented here: the caller waits the ordinary way.
func poll(fds []int32, d time.Duration, watch bool) Result { return Result{} }
