package simpleperf

import (
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ddmtui/ddmtui/trace"
	"github.com/google/pprof/profile"
)

// WritePprof writes a sampled profile as a gzipped pprof profile (the
// format `go tool pprof` and Perfetto read), built with pprof's own
// profile package: values "samples/count" and the event's count (its time
// in nanoseconds for clock events), a function and a location per frame
// (its file as the mapping), and one pprof sample per call path of each
// thread with a self weight, labelled with the thread's name and id. The
// per-path sums are those of the trees, so `pprof -top` agrees with the
// viewer.
func WritePprof(w io.Writer, p *Profile) error {
	tp := p.Trace
	s := tp.Sampling
	unit, mult := "count", uint64(1)
	if s.Unit == "µs" {
		unit, mult = "nanoseconds", 1000
	}
	prof := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: s.Event, Unit: unit}},
		PeriodType: &profile.ValueType{Type: s.Event, Unit: unit},
	}
	if s.Samples > 0 {
		prof.Period = int64(s.EventCount / uint64(s.Samples))
	}
	mappings := map[string]*profile.Mapping{}
	locs := make([]*profile.Location, len(tp.Methods))
	location := func(m int32) *profile.Location {
		if l := locs[m]; l != nil {
			return l
		}
		meth := &tp.Methods[m]
		file, _, _ := strings.Cut(meth.File, FileSeparator) // a Java method seen in several files: its first
		mp := mappings[file]
		if mp == nil {
			mp = &profile.Mapping{ID: uint64(len(prof.Mapping) + 1), File: file, HasFunctions: true}
			mappings[file] = mp
			prof.Mapping = append(prof.Mapping, mp)
		}
		fn := &profile.Function{ID: uint64(len(prof.Function) + 1), Name: tp.Name(m), SystemName: tp.Name(m), Filename: meth.File}
		prof.Function = append(prof.Function, fn)
		l := &profile.Location{ID: uint64(len(prof.Location) + 1), Mapping: mp, Line: []profile.Line{{Function: fn}}}
		prof.Location = append(prof.Location, l)
		locs[m] = l
		return l
	}
	var path []*profile.Location // the walk's path, root first
	for i := range tp.Threads {
		th := &tp.Threads[i]
		t := th.Tree
		labels := map[string][]string{"thread": {th.Name}}
		num := map[string][]int64{"tid": {int64(th.ID)}}
		add := func(n int32) {
			self := [2]uint64{t.Self(n, trace.ClockCPU), t.Self(n, trace.ClockWall)}
			if self[0] == 0 && self[1] == 0 {
				return
			}
			stack := slices.Clone(path)
			slices.Reverse(stack)
			prof.Sample = append(prof.Sample, &profile.Sample{Location: stack, Value: []int64{int64(self[0]), int64(self[1] * mult)}, Label: labels, NumLabel: num})
		}
		path = path[:0]
		add(0)
		t.Walk(func(n int32, depth int) bool {
			path = append(path[:depth-1], location(t.Method(n)))
			add(n)
			return true
		})
	}
	prof.Comments = []string{"simpleperf report-sample of " + p.Meta.AppPackage + " (" + p.Meta.AppType + "), " + strconv.FormatInt(s.Samples, 10) + " samples"}
	if err := prof.CheckValid(); err != nil {
		return err
	}
	return prof.Write(w)
}
