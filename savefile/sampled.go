package savefile

import (
	"bufio"
	"fmt"
	"io"

	"github.com/ddmtui/ddmtui/simpleperf"
)

// Samples is how a sampled profile (simpleperf report-sample --protobuf)
// is saved: as received, validated with simpleperf.Load, whose profile
// (with the call index the viewer's call chart reads) is stored in *prof
// when prof is not nil.
func Samples(prof **simpleperf.Profile) Options {
	return Options{Validate: func(r io.Reader, size int64) error {
		p, err := simpleperf.Load(bufio.NewReaderSize(r, 1<<20), simpleperf.LoadOptions{CallIndex: prof != nil})
		if err != nil {
			return fmt.Errorf("the samples: %w", err)
		}
		if prof != nil {
			*prof = p
		}
		return nil
	}}
}
