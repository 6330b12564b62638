// Package allocs models the allocation tracker's table: the recent
// allocations a VM reports in a REAL reply (spec/ddm-chunks.md §7.7), with
// class names in Java form, each entry numbered in allocation order whatever
// order the VM sent them in, and views of the table grouped by allocated
// class, by allocation site (the innermost frame), by whole stack or by
// thread, filtered and sorted.
//
// A Table is immutable once built; its query methods (Filter, Groups,
// SortGroups, SortEntries) may be called from several goroutines.
package allocs

import (
	"hash/maphash"
	"strconv"
	"strings"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/internal/textfilter"
)

// Order is the order in which a VM lists REAL entries.
type Order int

// Entry orders (spec/ddm-chunks.md §7.7).
const (
	// NewestFirst is ART's order: it walks its record list backwards. It
	// is also what ddmlib assumes for every VM.
	NewestFirst Order = iota
	// OldestFirst is Dalvik's order: it walks its ring buffer from the
	// oldest record.
	OldestFirst
)

func (o Order) String() string {
	if o == OldestFirst {
		return "oldest first"
	}
	return "newest first"
}

// OrderOf returns the order a VM family sends: OldestFirst for Dalvik,
// NewestFirst otherwise (ART, and VMs of unknown family, as ddmlib assumes).
func OrderOf(f ddm.VMFamily) Order {
	if f == ddm.FamilyDalvik {
		return OldestFirst
	}
	return NewestFirst
}

// OrderOfFamily is OrderOf for a family name as monitor.VM.Family holds it
// ("dalvik", "art", ...).
func OrderOfFamily(name string) Order {
	if strings.EqualFold(name, "dalvik") {
		return OldestFirst
	}
	return NewestFirst
}

// Frame is one frame of an allocation's stack, its class in Java form.
type Frame struct {
	Class  string `json:"class"` // "com.example.Foo"
	Method string `json:"method"`
	File   string `json:"file"` // "" when the class has no source file
	Line   int    `json:"line"` // ddm.LineNative (-2), ddm.LineUnknown (-1) or a line
}

// String renders the frame like a Java stack trace element:
// "com.example.Foo.bar(Foo.java:42)", "(Native Method)", "(Unknown Source)".
func (f Frame) String() string {
	where := f.File
	switch {
	case f.Line == ddm.LineNative:
		where = "Native Method"
	case where == "":
		where = "Unknown Source"
	case f.Line >= 0:
		where += ":" + strconv.Itoa(f.Line)
	}
	return f.Class + "." + f.Method + "(" + where + ")"
}

// Entry is one allocation.
type Entry struct {
	// Index numbers allocations in the order they happened: 1 is the
	// oldest in the table, the table's length the newest. For ART this is
	// the number ddmlib shows (count − i for the entry at wire position
	// i); for Dalvik, whose entries come oldest first, ddmlib's formula
	// would number them backwards, so Index follows the VM's order instead.
	Index    int     `json:"index"`
	Size     uint32  `json:"size"` // bytes
	Class    string  `json:"class"`
	ThreadID uint16  `json:"thread_id"` // Dalvik: VM thread id; ART: Linux tid, low 16 bits
	Frames   []Frame `json:"frames"`    // innermost first; shared by equal stacks, do not modify

	stack int32 // index in Table.stacks
}

// NoSite names the allocation site of an entry without frames.
const NoSite = "(no stack)"

// Table is a decoded allocation table.
type Table struct {
	Order   Order
	Entries []Entry // in the VM's wire order
	Bytes   uint64  // total of all entry sizes

	stacks []stackInfo
}

// stackInfo is one distinct stack of the table.
type stackInfo struct {
	frames []Frame
	site   string // frames[0] as text, or NoSite
}

// New builds the table of a REAL reply whose entries are in order (use
// OrderOf with the VM's family). A nil a gives an empty table.
func New(a *ddm.Allocations, order Order) *Table {
	t := &Table{Order: order}
	if a == nil || len(a.Entries) == 0 {
		return t
	}
	n := len(a.Entries)
	t.Entries = make([]Entry, n)
	names := map[string]string{} // JNI descriptor → Java form, interned
	javaName := func(desc string) string {
		s, ok := names[desc]
		if !ok {
			s = ddm.JavaTypeName(desc)
			names[desc] = s
		}
		return s
	}
	// Equal stacks are stored once: entries are looked up by a hash of
	// their raw frames, then compared frame by frame.
	seed := maphash.MakeSeed()
	byHash := map[uint64][]int32{}
	var raw [][]ddm.AllocFrame // raw frames of each stack, for the comparison
	for i := range a.Entries {
		src := &a.Entries[i]
		e := &t.Entries[i]
		e.Size = src.Size
		e.ThreadID = src.ThreadID
		e.Class = javaName(src.Class)
		if order == OldestFirst {
			e.Index = i + 1
		} else {
			e.Index = n - i
		}
		t.Bytes += uint64(src.Size)

		h := hashFrames(seed, src.Frames)
		id := int32(-1)
		for _, cand := range byHash[h] {
			if equalFrames(raw[cand], src.Frames) {
				id = cand
				break
			}
		}
		if id < 0 {
			id = int32(len(t.stacks))
			frames := make([]Frame, len(src.Frames))
			for k, f := range src.Frames {
				frames[k] = Frame{Class: javaName(f.Class), Method: f.Method, File: f.File, Line: int(f.Line)}
			}
			site := NoSite
			if len(frames) > 0 {
				site = frames[0].String()
			}
			t.stacks = append(t.stacks, stackInfo{frames: frames, site: site})
			raw = append(raw, src.Frames)
			byHash[h] = append(byHash[h], id)
		}
		e.stack = id
		if len(t.stacks[id].frames) > 0 {
			e.Frames = t.stacks[id].frames
		}
	}
	return t
}

func hashFrames(seed maphash.Seed, fs []ddm.AllocFrame) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	var line [3]byte
	for _, f := range fs {
		h.WriteString(f.Class)
		h.WriteByte(0)
		h.WriteString(f.Method)
		h.WriteByte(0)
		h.WriteString(f.File)
		line[0], line[1], line[2] = byte(f.Line>>8), byte(f.Line), 0
		h.Write(line[:])
	}
	return h.Sum64()
}

func equalFrames(a, b []ddm.AllocFrame) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Len is the number of entries.
func (t *Table) Len() int { return len(t.Entries) }

// Site returns the allocation site of entry i (its innermost frame as
// text), or NoSite.
func (t *Table) Site(i int) string { return t.stacks[t.Entries[i].stack].site }

// Stacks is the number of distinct stacks in the table.
func (t *Table) Stacks() int { return len(t.stacks) }

// Filter returns the positions of the entries that pass filter, in wire
// order: a case-insensitive substring of the allocated class, of a frame's
// "class.method" or file, or of "tid=N"; a leading "!" keeps the entries
// that do not match instead. An empty filter keeps everything.
func (t *Table) Filter(filter string) []int {
	f := textfilter.Parse(filter)
	needle := f.Needle()
	rows := make([]int, 0, len(t.Entries))
	if f.All() {
		for i := range t.Entries {
			rows = append(rows, i)
		}
		return rows
	}
	has := func(s string) bool { return strings.Contains(strings.ToLower(s), needle) }
	// Each distinct class, stack and thread is tested once.
	classHit := map[string]bool{}
	stackHit := make([]int8, len(t.stacks)) // 0 unknown, 1 no, 2 yes
	tidHit := map[uint16]bool{}
	for i := range t.Entries {
		e := &t.Entries[i]
		hit, ok := classHit[e.Class]
		if !ok {
			hit = has(e.Class)
			classHit[e.Class] = hit
		}
		if !hit {
			if stackHit[e.stack] == 0 {
				stackHit[e.stack] = 1
				for _, fr := range t.stacks[e.stack].frames {
					if has(fr.Class+"."+fr.Method) || has(fr.File) {
						stackHit[e.stack] = 2
						break
					}
				}
			}
			hit = stackHit[e.stack] == 2
		}
		if !hit {
			h, ok := tidHit[e.ThreadID]
			if !ok {
				h = has("tid=" + strconv.Itoa(int(e.ThreadID)))
				tidHit[e.ThreadID] = h
			}
			hit = h
		}
		if f.Keep(hit) {
			rows = append(rows, i)
		}
	}
	return rows
}
