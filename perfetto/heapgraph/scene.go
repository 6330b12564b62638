package heapgraph

import (
	"bytes"

	"github.com/ddmtui/ddmtui/hprof/scene"
)

// Scene builds the hprof/scene heap opts describe (an ART dump) and
// returns it as a heap graph in the encoding of w.API, with the scene's
// answers: the objects, ids, sizes, heaps, references and roots are the
// HPROF's (FromHPROF), so the answers a heap graph can carry hold for
// both forms. It returns the HPROF too.
func Scene(opts scene.Options, w WriterOptions) (graph, hprofBytes []byte, e *scene.Expect, err error) {
	hp, e, err := scene.Android(opts)
	if err != nil {
		return nil, nil, nil, err
	}
	if w.Timestamp == 0 {
		w.Timestamp = opts.Timestamp * 1_000_000
		if w.Timestamp == 0 {
			w.Timestamp = (1_700_000_000_000 + opts.Seed) * 1_000_000
		}
	}
	var out bytes.Buffer
	if err := FromHPROF(bytes.NewReader(hp), &out, w); err != nil {
		return nil, nil, nil, err
	}
	return out.Bytes(), hp, e, nil
}
