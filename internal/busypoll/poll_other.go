//go:build !linux

package busypoll

import "time"

// poll is not implemented here: the caller waits the ordinary way.
func poll(fds []int32, d time.Duration) bool { return false }
