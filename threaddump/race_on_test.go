//go:build race

package threaddump

// raceOn: the race detector makes sync.Pool drop items, so allocation
// figures do not hold under it.
const raceOn = true
