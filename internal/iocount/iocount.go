// Package iocount counts the bytes that pass through a writer: the one
// counting writer of the generators (hprof.Synth, trace.Synth), the
// Chrome trace writer, savefile's conversions and a file pull's progress.
// Standard library only, so every codec may use it.
package iocount

import "io"

// Writer passes each write to W and adds the bytes W took to N; then,
// when Progress is set, it is told the new total. Errors are W's.
type Writer struct {
	W        io.Writer
	N        int64
	Progress func(total int64)
}

func (c *Writer) Write(b []byte) (int, error) {
	n, err := c.W.Write(b)
	c.N += int64(n)
	if c.Progress != nil {
		c.Progress(c.N)
	}
	return n, err
}
