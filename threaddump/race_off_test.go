//go:build !race

package threaddump

const raceOn = false
