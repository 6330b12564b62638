package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ddmtui/ddmtui/internal/safetext"
)

// JSONProfile is the document WriteJSON writes. Clock fields are pointers so
// that a clock the trace does not have is left out rather than written as 0.
type JSONProfile struct {
	Version       int    `json:"version"`
	Clock         string `json:"clock"` // "thread-cpu", "wall" or "dual"
	Streaming     bool   `json:"streaming,omitempty"`
	Records       int64  `json:"records"`
	StartTimeUsec uint64 `json:"start_time_usec"`
	// TotalCPUUsec and TotalWallUsec sum each thread's traced time (its
	// last record − its first) over TotalThreads threads, as dmtracedump's
	// "Total cycles": not the length of the trace, which is SpanWallUsec.
	TotalCPUUsec  *uint64 `json:"total_cpu_usec,omitempty"`
	TotalWallUsec *uint64 `json:"total_wall_usec,omitempty"`
	TotalThreads  int     `json:"total_threads"`
	// SpanWallUsec is the whole trace's wall time: first record of any
	// thread to the last of any.
	SpanWallUsec *uint64           `json:"span_wall_usec,omitempty"`
	Options      map[string]string `json:"options,omitempty"`
	Threads      []JSONThread      `json:"threads"`
	Methods      []JSONMethod      `json:"methods"`
	// Edges are caller → callee pairs; Caller is absent for calls made with
	// an empty stack (the top level).
	Edges            []JSONEdge    `json:"edges"`
	UnknownMethodIDs []uint32      `json:"unknown_method_ids,omitempty"`
	Warnings         *JSONWarnings `json:"warnings,omitempty"`
}

// JSONThread is a thread and its traced time (last record − first record).
type JSONThread struct {
	ID       uint32  `json:"id"`
	Name     string  `json:"name"`
	Records  int64   `json:"records"`
	CPUUsec  *uint64 `json:"cpu_usec,omitempty"`
	WallUsec *uint64 `json:"wall_usec,omitempty"`
}

// JSONMethod is one method's totals over all threads. The "(unknown)"
// stand-in for ids missing from the key has id -1. Calls include the
// recursive ones.
type JSONMethod struct {
	ID                int64   `json:"id"`
	Class             string  `json:"class"`
	Method            string  `json:"method"`
	Signature         string  `json:"signature"`
	File              string  `json:"file,omitempty"`
	Calls             int64   `json:"calls"`
	RecursiveCalls    int64   `json:"recursive_calls"`
	InclusiveCPUUsec  *uint64 `json:"inclusive_cpu_usec,omitempty"`
	ExclusiveCPUUsec  *uint64 `json:"exclusive_cpu_usec,omitempty"`
	InclusiveWallUsec *uint64 `json:"inclusive_wall_usec,omitempty"`
	ExclusiveWallUsec *uint64 `json:"exclusive_wall_usec,omitempty"`
}

// JSONEdge is the calls from one method to another; ids as in JSONMethod.
type JSONEdge struct {
	Caller            *int64  `json:"caller,omitempty"`
	Callee            int64   `json:"callee"`
	Calls             int64   `json:"calls"`
	RecursiveCalls    int64   `json:"recursive_calls"`
	InclusiveCPUUsec  *uint64 `json:"inclusive_cpu_usec,omitempty"`
	InclusiveWallUsec *uint64 `json:"inclusive_wall_usec,omitempty"`
}

// JSONWarnings summarises the warnings: counts by kind and the first few.
type JSONWarnings struct {
	Total  int64            `json:"total"`
	ByKind map[string]int64 `json:"by_kind"`
	First  []JSONWarning    `json:"first"`
}

// JSONWarning is one kept warning.
type JSONWarning struct {
	Kind    string `json:"kind"`
	Part    string `json:"part,omitempty"`
	Offset  int64  `json:"offset"`
	Message string `json:"message"`
}

func clockValue(p *Profile, c Clock, v uint64) *uint64 {
	if !p.Clocks.Has(c) {
		return nil
	}
	return &v
}

// jsonID is the id JSON uses for profile index i: the key's method id, or
// -1 for the unknown stand-in.
func jsonID(p *Profile, i int32) int64 {
	if i < firstKeyMethod {
		return -1
	}
	return int64(p.Methods[i].ID)
}

// JSON builds the JSON document of p. Methods are sorted by inclusive time
// on the first clock (descending), then by id; every key method is listed.
func (p *Profile) JSON() *JSONProfile {
	doc := p.jsonHead()
	order, stats := p.jsonMethodOrder()
	for _, i := range order {
		doc.Methods = append(doc.Methods, p.jsonMethod(i, &stats[i]))
	}
	for i := range p.All.Edges {
		doc.Edges = append(doc.Edges, p.jsonEdge(&p.All.Edges[i]))
	}
	return doc
}

// jsonHead is the JSON document without its methods and edges.
func (p *Profile) jsonHead() *JSONProfile {
	h := p.Header
	doc := &JSONProfile{
		Version: h.Version, Clock: p.Clocks.String(), Streaming: h.Streaming, Records: p.Records,
		StartTimeUsec: h.StartTime, Threads: []JSONThread{}, Methods: []JSONMethod{}, Edges: []JSONEdge{},
	}
	total := p.All.Total()
	doc.TotalCPUUsec = clockValue(p, ClockCPU, total[ClockCPU])
	doc.TotalWallUsec = clockValue(p, ClockWall, total[ClockWall])
	doc.TotalThreads = p.ThreadsWithRecords()
	if span, ok := p.Span(); ok {
		doc.SpanWallUsec = &span
	}
	if len(h.Options) > 0 {
		doc.Options = make(map[string]string, len(h.Options))
		for _, o := range h.Options {
			if _, dup := doc.Options[o.Key]; !dup {
				doc.Options[o.Key] = o.Value
			}
		}
	}
	for i := range p.Threads {
		tp := &p.Threads[i]
		tt := tp.Total()
		doc.Threads = append(doc.Threads, JSONThread{ID: tp.ID, Name: tp.Name, Records: tp.Records,
			CPUUsec: clockValue(p, ClockCPU, tt[ClockCPU]), WallUsec: clockValue(p, ClockWall, tt[ClockWall])})
	}
	doc.UnknownMethodIDs = p.UnknownMethodIDs
	if n := p.Warnings.Total(); n > 0 {
		jw := &JSONWarnings{Total: n, ByKind: map[string]int64{}, First: []JSONWarning{}}
		for k, c := range p.Warnings.Counts {
			if c > 0 {
				jw.ByKind[WarningKind(k).String()] = c
			}
		}
		for _, w := range p.Warnings.List {
			jw.First = append(jw.First, JSONWarning{Kind: w.Kind.String(), Part: w.Part, Offset: w.Offset, Message: w.Message})
		}
		doc.Warnings = jw
	}
	return doc
}

// jsonMethodOrder lists the profile indexes JSON lists, in its order, and
// the stats of every method.
func (p *Profile) jsonMethodOrder() ([]int32, []Stats) {
	first := p.Clocks.First()
	order := make([]int32, 0, len(p.Methods))
	for i := firstKeyMethod; i < len(p.Methods); i++ {
		order = append(order, int32(i))
	}
	if s := p.All.Stats(Unknown); s.Calls > 0 || s.Exclusive != [2]uint64{} {
		order = append(order, Unknown)
	}
	stats := make([]Stats, len(p.Methods))
	for _, ms := range p.All.Methods {
		stats[ms.Index] = ms.Stats
	}
	slices.SortStableFunc(order, func(a, b int32) int {
		ia, ib := stats[a].Inclusive[first], stats[b].Inclusive[first]
		if ia != ib {
			if ia > ib {
				return -1
			}
			return 1
		}
		return int(jsonID(p, a) - jsonID(p, b))
	})
	return order, stats
}

func (p *Profile) jsonMethod(i int32, s *Stats) JSONMethod {
	m := &p.Methods[i]
	return JSONMethod{
		ID: jsonID(p, i), Class: m.Class, Method: m.Name, Signature: m.Signature, File: m.File,
		Calls: s.Calls, RecursiveCalls: s.RecursiveCalls,
		InclusiveCPUUsec:  clockValue(p, ClockCPU, s.Inclusive[ClockCPU]),
		ExclusiveCPUUsec:  clockValue(p, ClockCPU, s.Exclusive[ClockCPU]),
		InclusiveWallUsec: clockValue(p, ClockWall, s.Inclusive[ClockWall]),
		ExclusiveWallUsec: clockValue(p, ClockWall, s.Exclusive[ClockWall]),
	}
}

func (p *Profile) jsonEdge(e *Edge) JSONEdge {
	je := JSONEdge{Callee: jsonID(p, e.Callee), Calls: e.Calls, RecursiveCalls: e.RecursiveCalls,
		InclusiveCPUUsec:  clockValue(p, ClockCPU, e.Inclusive[ClockCPU]),
		InclusiveWallUsec: clockValue(p, ClockWall, e.Inclusive[ClockWall])}
	if e.Caller != TopLevel {
		id := jsonID(p, e.Caller)
		je.Caller = &id
	}
	return je
}

// WriteJSON writes p as an indented JSON document (JSONProfile), the bytes
// encoding/json writes for p.JSON() with a two-space indent. The methods
// and edges (most of a large profile) are encoded one at a time, so the
// document is never whole in memory.
func WriteJSON(w io.Writer, p *Profile) error {
	head, err := encodeJSON(p.jsonHead(), "")
	if err != nil {
		return err
	}
	const methodsKey, edgesKey = "\n  \"methods\": [", "\n  \"edges\": ["
	// String values cannot hold a raw newline, so these are the keys.
	mi := bytes.Index(head, []byte(methodsKey+"],"))
	ei := bytes.Index(head, []byte(edgesKey+"]"))
	if mi < 0 || ei < mi {
		return fmt.Errorf("trace: JSON head without its lists")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.Write(head[:mi+len(methodsKey)])
	order, stats := p.jsonMethodOrder()
	var b []byte
	for k, i := range order {
		b = p.appendJSONMethod(b[:0], k, i, &stats[i])
		bw.Write(b)
	}
	closeJSONList(bw, len(order))
	bw.Write(head[mi+len(methodsKey)+1 : ei+len(edgesKey)])
	for k := range p.All.Edges {
		b = p.appendJSONEdge(b[:0], k, &p.All.Edges[k])
		bw.Write(b)
	}
	closeJSONList(bw, len(p.All.Edges))
	bw.Write(head[ei+len(edgesKey)+1:])
	return bw.Flush()
}

// appendJSONMethod appends element k of the methods list as encoding/json
// writes p.jsonMethod(i, s) there.
func (p *Profile) appendJSONMethod(b []byte, k int, i int32, s *Stats) []byte {
	m := &p.Methods[i]
	b = jsonElementStart(b, k)
	b = appendJSONInt(b, "id", jsonID(p, i), false)
	b = appendJSONStringField(b, "class", m.Class)
	b = appendJSONStringField(b, "method", m.Name)
	b = appendJSONStringField(b, "signature", m.Signature)
	if m.File != "" {
		b = appendJSONStringField(b, "file", m.File)
	}
	b = appendJSONInt(b, "calls", s.Calls, true)
	b = appendJSONInt(b, "recursive_calls", s.RecursiveCalls, true)
	if p.Clocks.Has(ClockCPU) {
		b = appendJSONUint(b, "inclusive_cpu_usec", s.Inclusive[ClockCPU])
		b = appendJSONUint(b, "exclusive_cpu_usec", s.Exclusive[ClockCPU])
	}
	if p.Clocks.Has(ClockWall) {
		b = appendJSONUint(b, "inclusive_wall_usec", s.Inclusive[ClockWall])
		b = appendJSONUint(b, "exclusive_wall_usec", s.Exclusive[ClockWall])
	}
	return append(b, "\n    }"...)
}

// appendJSONEdge appends element k of the edges list as encoding/json
// writes p.jsonEdge(e) there.
func (p *Profile) appendJSONEdge(b []byte, k int, e *Edge) []byte {
	b = jsonElementStart(b, k)
	comma := false
	if e.Caller != TopLevel {
		b = appendJSONInt(b, "caller", jsonID(p, e.Caller), false)
		comma = true
	}
	b = appendJSONInt(b, "callee", jsonID(p, e.Callee), comma)
	b = appendJSONInt(b, "calls", e.Calls, true)
	b = appendJSONInt(b, "recursive_calls", e.RecursiveCalls, true)
	if p.Clocks.Has(ClockCPU) {
		b = appendJSONUint(b, "inclusive_cpu_usec", e.Inclusive[ClockCPU])
	}
	if p.Clocks.Has(ClockWall) {
		b = appendJSONUint(b, "inclusive_wall_usec", e.Inclusive[ClockWall])
	}
	return append(b, "\n    }"...)
}

func jsonElementStart(b []byte, k int) []byte {
	if k > 0 {
		b = append(b, ',')
	}
	return append(b, "\n    {"...)
}

// The fields of a list element: six spaces in, every one but the first
// after a comma.
func appendJSONKey(b []byte, key string, comma bool) []byte {
	if comma {
		b = append(b, ',')
	}
	b = append(b, "\n      \""...)
	b = append(b, key...)
	return append(b, "\": "...)
}

func appendJSONInt(b []byte, key string, v int64, comma bool) []byte {
	return strconv.AppendInt(appendJSONKey(b, key, comma), v, 10)
}

func appendJSONUint(b []byte, key string, v uint64) []byte {
	return strconv.AppendUint(appendJSONKey(b, key, true), v, 10)
}

func appendJSONStringField(b []byte, key, v string) []byte {
	return appendJSONString(appendJSONKey(b, key, true), v)
}

// appendJSONString appends v quoted as encoding/json does without HTML
// escaping: printable ASCII directly, anything else through encoding/json.
func appendJSONString(b []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			q, err := encodeJSON(v, "")
			if err != nil { // not for a string
				panic(err)
			}
			return append(b, q[:len(q)-1]...)
		}
	}
	b = append(b, '"')
	b = append(b, v...)
	return append(b, '"')
}

// encodeJSON is v as encoding/json's Encoder writes it with a two-space
// indent and the given prefix, without HTML escaping.
func encodeJSON(v any, prefix string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func closeJSONList(bw *bufio.Writer, n int) {
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteByte(']')
}

// frameName is how exports other than JSON name a method: "class.method",
// made safe for plain text (control characters escaped).
func frameName(p *Profile, i int32) string {
	return safetext.Terminal(p.Name(i))
}

func threadLabel(tp *ThreadProfile) string {
	if tp.Name == "" {
		return "thread " + strconv.FormatUint(uint64(tp.ID), 10)
	}
	return safetext.Terminal(tp.Name) + " (" + strconv.FormatUint(uint64(tp.ID), 10) + ")"
}

// ErrNoCallTree is returned by WriteFolded for a profile built without
// BuildOptions.CallTree.
var ErrNoCallTree = fmt.Errorf("trace: profile has no call trees (build with BuildOptions.CallTree)")

// WriteFolded writes folded stacks for flame-graph tools (flamegraph.pl,
// speedscope, inferno): one line per distinct call path, "thread;a;b;c N"
// where N is the µs spent on top of the stack in that exact path on clock c
// (self time), so a path's frame width is its inclusive time. Paths with no
// self time are left out. The thread is the root frame; its own line is the
// time with an empty stack. Threads come in order of their labels, and a
// thread's paths depth first with the callees of a frame in name order.
// Overloads (same class.method, another signature) fold into one path.
//
// Lines are written from a stack as the tree is walked: memory grows with
// the depth of the deepest path (and the callees along it), never with the
// length of all paths together. Paths are cut at DefaultTreeJSONDepth frames
// (WriteFoldedOptions changes it): the output of a path is its length, so
// a 10,000-deep recursion would write 10,000 lines of up to 10,000 frames
// (500 MB from a 280 KB trace).
func WriteFolded(w io.Writer, p *Profile, c Clock) error {
	return WriteFoldedOptions(w, p, FoldedOptions{Clock: c})
}

// FoldedOptions configure WriteFoldedOptions.
type FoldedOptions struct {
	Clock Clock
	// MaxDepth cuts the paths at this many frames below the thread (0:
	// DefaultTreeJSONDepth, negative: none). The self time of the frames
	// below a cut frame goes on one line that ends with the frame
	// "(truncated)", so every path's width is kept.
	MaxDepth int
	// Cut, when set, receives what was cut (TreeCut.Truncated: the frames
	// cut).
	Cut *TreeCut
}

// TruncatedFrame is the last frame of a folded line that holds the time
// of the frames a cut left out.
const TruncatedFrame = "(truncated)"

// WriteFoldedOptions is WriteFolded with options.
func WriteFoldedOptions(w io.Writer, p *Profile, opt FoldedOptions) error {
	c := opt.Clock
	bw := bufio.NewWriter(w)
	names := make([]string, len(p.Methods))
	for i := range names {
		// ';' separates frames and a newline ends the line: neither may
		// appear inside a name.
		names[i] = strings.ReplaceAll(frameName(p, int32(i)), ";", ":")
	}
	type labelled struct {
		label string
		tree  *CallTree
	}
	var threads []labelled
	for i := range p.Threads {
		tp := &p.Threads[i]
		if tp.Records == 0 {
			continue
		}
		if tp.Tree == nil {
			return ErrNoCallTree
		}
		threads = append(threads, labelled{strings.ReplaceAll(threadLabel(tp), ";", ":"), tp.Tree})
	}
	slices.SortStableFunc(threads, func(a, b labelled) int { return strings.Compare(a.label, b.label) })
	// Threads with the same label are one root, as they were one path.
	maxDepth := opt.MaxDepth
	if maxDepth == 0 {
		maxDepth = DefaultTreeJSONDepth
	}
	fw := foldedWriter{bw: bw, names: names, c: c, maxDepth: maxDepth}
	for i := 0; i < len(threads); {
		j := i + 1
		for j < len(threads) && threads[j].label == threads[i].label {
			j++
		}
		roots := make([]foldedNode, 0, j-i)
		for _, t := range threads[i:j] {
			roots = append(roots, foldedNode{t.tree, 0})
		}
		fw.thread(threads[i].label, roots)
		i = j
	}
	if opt.Cut != nil {
		*opt.Cut = TreeCut{Truncated: fw.cut}
	}
	return bw.Flush()
}

// foldedNode is node n of tree t.
type foldedNode struct {
	t *CallTree
	n int32
}

// foldedLevel is one frame of the walk: its callees (the children of all
// the nodes of the frame, in name order) and the next one to visit.
type foldedLevel struct {
	kids    []foldedNode
	next    int
	pathLen int // path bytes before this level's frame names were added
}

type foldedWriter struct {
	bw       *bufio.Writer
	names    []string
	c        Clock
	maxDepth int   // frames below the thread (negative: no cut)
	cut      int64 // frames cut
	path     []byte
	levels   []foldedLevel // reused between threads; levels[d].kids keep their arrays
	num      []byte
}

// thread walks the frames under a thread's root nodes: a frame is a group
// of sibling nodes with the same name, its self time their sum.
func (fw *foldedWriter) thread(label string, roots []foldedNode) {
	fw.path = append(fw.path[:0], label...)
	fw.line(roots)
	depth := 0
	fw.push(depth, roots)
	for depth >= 0 {
		lv := &fw.levels[depth]
		if lv.next >= len(lv.kids) {
			depth--
			continue
		}
		// The next frame: the run of callees with one name.
		i := lv.next
		name := fw.names[lv.kids[i].t.Method(lv.kids[i].n)]
		j := i + 1
		for j < len(lv.kids) && fw.names[lv.kids[j].t.Method(lv.kids[j].n)] == name {
			j++
		}
		lv.next = j
		group := lv.kids[i:j]
		fw.path = fw.path[:lv.pathLen]
		fw.path = append(fw.path, ';')
		fw.path = append(fw.path, name...)
		fw.line(group)
		if fw.maxDepth >= 0 && depth+1 >= fw.maxDepth {
			fw.cutBelow(group)
			continue
		}
		depth++
		fw.push(depth, group)
	}
}

// cutBelow writes the self time of everything below the group's nodes on
// one line, the current path and TruncatedFrame.
func (fw *foldedWriter) cutBelow(group []foldedNode) {
	var v uint64
	for _, g := range group {
		for k := g.n + 1; k < g.t.End(g.n); k++ {
			v += g.t.Self(k, fw.c)
		}
		if g.t.End(g.n) > g.n+1 {
			fw.cut++
		}
	}
	if v == 0 {
		return
	}
	n := len(fw.path)
	fw.path = append(fw.path, ";"+TruncatedFrame...)
	fw.writeLine(v)
	fw.path = fw.path[:n]
}

// push makes level d the callees of the nodes in group, in name order.
func (fw *foldedWriter) push(d int, group []foldedNode) {
	for len(fw.levels) <= d {
		fw.levels = append(fw.levels, foldedLevel{})
	}
	lv := &fw.levels[d]
	lv.kids, lv.next, lv.pathLen = lv.kids[:0], 0, len(fw.path)
	for _, g := range group {
		for k := range g.t.Children(g.n) {
			lv.kids = append(lv.kids, foldedNode{g.t, k})
		}
	}
	slices.SortFunc(lv.kids, func(a, b foldedNode) int {
		return strings.Compare(fw.names[a.t.Method(a.n)], fw.names[b.t.Method(b.n)])
	})
}

// line writes the current path with the group's self time, if any.
func (fw *foldedWriter) line(group []foldedNode) {
	var v uint64
	for _, g := range group {
		v += g.t.Self(g.n, fw.c)
	}
	if v == 0 {
		return
	}
	fw.writeLine(v)
}

// writeLine writes the current path with value v.
func (fw *foldedWriter) writeLine(v uint64) {
	fw.bw.Write(fw.path)
	fw.bw.WriteByte(' ')
	fw.num = strconv.AppendUint(fw.num[:0], v, 10)
	fw.num = append(fw.num, '\n')
	fw.bw.Write(fw.num)
}

// DOTOptions configure WriteDOT.
type DOTOptions struct {
	// ThresholdPercent leaves out methods whose inclusive time is below this
	// share of the total, as dmtracedump's -t (default 20 there and here).
	// Negative means no threshold.
	ThresholdPercent float64
	Clock            Clock
}

// WriteDOT writes a Graphviz call graph shaped like dmtracedump's -g output:
// record nodes numbered by inclusive-time rank (0 is the top level), labelled
// "[rank] class.method (inclusive ms, exclusive ms, calls)", and an edge for
// each caller → callee pair between shown nodes, labelled with its calls.
// Unlike dmtracedump, labels are escaped, so <init> and quotes do not break
// the file.
func WriteDOT(w io.Writer, p *Profile, opt DOTOptions) error {
	c := opt.Clock
	threshold := opt.ThresholdPercent
	if threshold == 0 {
		threshold = 20
	}
	total := p.All.Total()[c]
	ranked := slices.Clone(p.All.Methods)
	slices.SortStableFunc(ranked, func(a, b MethodStats) int {
		if (a.Index == TopLevel) != (b.Index == TopLevel) {
			if a.Index == TopLevel {
				return -1
			}
			return 1
		}
		if a.Inclusive[c] != b.Inclusive[c] {
			if a.Inclusive[c] > b.Inclusive[c] {
				return -1
			}
			return 1
		}
		return int(a.Index - b.Index)
	})
	rank := make(map[int32]int, len(ranked))
	bw := bufio.NewWriter(w)
	bw.WriteString("digraph g {\nnode [shape = record,height=.1];\n")
	for _, ms := range ranked {
		if ms.Index != TopLevel && threshold >= 0 {
			if total == 0 || float64(ms.Inclusive[c])*100 < threshold*float64(total) {
				continue
			}
		}
		r := len(rank)
		rank[ms.Index] = r
		label := fmt.Sprintf("[%d] %s (%s, %s, %d)", r, frameName(p, ms.Index),
			formatMillis(ms.Inclusive[c]), formatMillis(ms.Exclusive[c]), ms.Calls)
		fmt.Fprintf(bw, "node%d[label = \"%s\"];\n", r, escapeDOTRecord(label))
	}
	for _, e := range p.All.Edges {
		from, ok1 := rank[e.Caller]
		to, ok2 := rank[e.Callee]
		if ok1 && ok2 {
			fmt.Fprintf(bw, "node%d -> node%d [label = \"%d\"];\n", from, to, e.Calls)
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

func formatMillis(us uint64) string {
	return strconv.FormatFloat(float64(us)/1000, 'f', 3, 64) + " ms"
}

// escapeDOTRecord escapes a record-shape label: the field separators and
// port brackets {}|<>, quotes and backslashes.
func escapeDOTRecord(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '{', '}', '|', '<', '>', '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
