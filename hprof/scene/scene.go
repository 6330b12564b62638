// Package scene builds HPROF heap dumps with planted situations and their
// known answers: leaked Activities and Fragments with the paths that hold
// them, live ones that are not leaks, objects reachable only through weak
// and soft references, diamonds, cycles, garbage, duplicate strings,
// bitmaps with and without their pixels, a duplicated object id, an
// instance whose class has no CLASS DUMP and zero-length arrays.
//
// Build (or Android and Standard) returns the file and an Expect: every
// answer the definitions of spec/hprof-analysis.md (D1-D16) give for it,
// worked out when the scene was built from what the scene planted, not by
// analysing the file. Tests check analysers against it; the simulator's
// heap dumps are scenes, so `ddmtui demo` shows the same situations.
//
// A scene is deterministic: the same Options give the same bytes. Filler
// embeds the scene in a heap of any size.
//
// Two streaming writers without planted answers share the package:
// Builder, for dumps a test lays out object by object (exact ids, corner
// cases), and Large, for Android-like heaps of millions of objects
// (benchmarks).
package scene

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ddmtui/ddmtui/hprof"
)

// Options choose the dump's form and size.
type Options struct {
	// Seed varies the filler's values and the bitmaps' pixels.
	Seed uint64
	// Standard writes the standard form as a 64-bit JVM's dumper does
	// (JAVA PROFILE 1.0.2, 8-byte ids above 32 bits, internal class names
	// such as java/util/HashMap and [Ljava/lang/String;, JDK 8 Strings
	// with a char[] value and no count, no HEAP DUMP INFO, Android root
	// kinds as ROOT UNKNOWN as hprof-conv writes them). Otherwise the dump
	// is ART's (JAVA PROFILE 1.0.3, 4-byte ids, heaps image/zygote/app,
	// $classOverhead and $class$ statics, VM INTERNAL roots).
	Standard bool
	// API is the Android API level the dump imitates (default 34). Below
	// 21 the dump is Dalvik's: Strings with a char[] value, offset and
	// count, no image heap, none of ART's $class statics or VM INTERNAL
	// roots; from
	// 26 Latin-1 Strings are compressed into byte[]; below 26 Bitmaps hold
	// their pixels in mBuffer; from 35 Bitmap has the static dumpData.
	API int
	// BitmapFormat is `am dumpheap -b`'s argument: "png" or "jpg" (API 35
	// and up). The dump then holds Bitmap.dumpData with the compressed
	// pixels of the bitmaps (all but one, which is past DumpData.count).
	BitmapFormat string
	// HeroPicture, with BitmapFormat, replaces the large bitmap's
	// compressed pixels (tests give a hostile picture: a header claiming
	// far more pixels than the bitmap's).
	HeroPicture []byte
	// Package is the app's package (default "com.example.mail").
	Package string
	// Filler adds app objects by class name: "java.lang.String" (unique
	// strings), "int[]" and other primitive arrays, "java.lang.Object[]"
	// and other object arrays, or an app class of that name, all held by
	// one Store object under a JNI global root. Names of the scene's own
	// classes are refused (other than those three kinds).
	Filler []hprof.ClassCount
	// Timestamp is the header's (ms since the epoch; default
	// 1700000000000 + Seed).
	Timestamp uint64
	// ClassNames, when set, renames classes as the file names them (a
	// release build's minified names, AppClasses); Expect keeps the
	// source's names.
	ClassNames func(name string) string
}

// AppClasses are the classes a scene of package pkg declares in the app
// heap (Filler's aside): what the app's APK ships, its own and its
// libraries' (androidx), which a minifier renames or keeps.
func AppClasses(pkg string) []string {
	b := newBuilder(Options{Package: pkg, API: 34})
	b.defineClasses()
	var out []string
	for _, c := range b.m.classes {
		if c.heap == heapApp {
			out = append(out, c.name)
		}
	}
	return out
}

// Expect is what a correct analysis of the scene finds (spec D1-D16). Ids
// are the file's; class names are in Java source form.
type Expect struct {
	Version string
	IDSize  int
	// Nodes is the number of distinct objects (D1).
	Nodes int
	// Heaps lists every heap with objects, by name (D15).
	Heaps []Heap
	// Classes lists every class name with a node: instances and shallow
	// size over all its nodes, reachable or not (D9), by name.
	Classes []Class
	// Leaks is every leak (D12), by id, each with its only shortest path.
	Leaks []Leak
	// NotLeaks are planted Activities and Fragments no analyser may report.
	NotLeaks []Object
	// Unreachable are planted nodes that are not reachable (D6).
	Unreachable []Object
	// Retained are nodes whose retained size (D8) the scene knows.
	Retained []Object
	// Duplicates is every duplicate string group (D13), in the spec's order.
	Duplicates []Duplicate
	// Bitmaps is every reachable bitmap (D14), by id.
	Bitmaps []Bitmap
	// Depths are planted nodes with their depth (D11).
	Depths []Object
	// DuplicateID is an object dumped twice; the first dump (a byte[] of 64
	// in the app heap) counts.
	DuplicateID hprof.ID
	// NoClassDump is a reachable instance whose class has a LOAD CLASS but
	// no CLASS DUMP: its shallow size is its data length (8) and it has no
	// edges.
	NoClassDump hprof.ID
	// PNG is the image a dumpData PNG buffer holds (when BitmapFormat is
	// "png"), to check a decoder.
	PNG []byte

	// rooted is the leak a ROOT UNREACHABLE record becomes once hprof-conv
	// has made it ROOT UNKNOWN.
	rooted *Leak
}

// Converted returns the answers for the dump after hprof.Convert (as
// hprof-conv, zygote included): version 1.0.2 with the same ids, one
// "default" heap (HEAP DUMP INFO is dropped), and the Android root kinds
// become ROOT UNKNOWN — so the destroyed HistoryActivity that only a ROOT
// UNREACHABLE record named is now a root, reachable, and a leak with a path
// of one element. Everything else is unchanged. A standard scene is
// returned as it is.
func (e *Expect) Converted() *Expect {
	if e.rooted == nil {
		return e
	}
	c := *e
	c.Version = hprof.VersionStandard
	total := Heap{Name: "default"}
	for _, h := range e.Heaps {
		total.Objects += h.Objects
		total.Bytes += h.Bytes
	}
	c.Heaps = []Heap{total}
	c.Leaks = append(append([]Leak(nil), e.Leaks...), *e.rooted)
	sort.Slice(c.Leaks, func(i, j int) bool { return c.Leaks[i].ID < c.Leaks[j].ID })
	keep := func(list []Object) []Object {
		var out []Object
		for _, o := range list {
			if o.ID != e.rooted.ID {
				out = append(out, o)
			}
		}
		return out
	}
	c.NotLeaks = keep(e.NotLeaks)
	c.Unreachable = keep(e.Unreachable)
	c.Depths = append(append([]Object(nil), e.Depths...), Object{ID: e.rooted.ID, Class: e.rooted.Class, Why: "ROOT UNKNOWN after conversion", Depth: 1})
	c.rooted = nil
	return &c
}

// Heap is one heap's totals (D15).
type Heap struct {
	Name    string
	Objects int
	Bytes   uint64
}

// Class is one row of the class histogram as far as the scene knows it.
type Class struct {
	Name      string
	Instances int
	Shallow   uint64
}

// Leak is a leaked Activity or Fragment (D12).
type Leak struct {
	ID       hprof.ID
	Class    string
	Kind     string // "activity" or "fragment"
	Reason   string // "destroyed", "finished" or "detached"
	Retained uint64
	Path     []Hop // from a root node or class object to the leak
}

// Hop is one element of a path (D11): Field names what in the previous
// hop holds this one ("" for the first): an instance field, a static
// field or "[i]".
type Hop struct {
	Class string
	ID    hprof.ID
	Field string
}

// Object is a planted node with what the scene knows of it: Why says what
// it is; Retained and Depth are set where the list says so.
type Object struct {
	ID       hprof.ID
	Class    string
	Why      string
	Retained uint64
	Depth    int
}

// Duplicate is a duplicate string group (D13).
type Duplicate struct {
	Value  string
	Count  int
	Wasted uint64
}

// Bitmap is a reachable android.graphics.Bitmap (D14).
type Bitmap struct {
	ID           hprof.ID
	Width        int
	Height       int
	PixelBytes   uint64
	PixelsInDump bool
	Source       string // "mBuffer", "dumpData" or ""
	Format       string // "raw", "png", "jpeg" or ""
}

// Android builds an ART dump (opts.Standard is ignored).
func Android(opts Options) ([]byte, *Expect, error) {
	opts.Standard = false
	return Build(opts)
}

// Standard builds the standard 1.0.2 form with 8-byte ids.
func Standard(opts Options) ([]byte, *Expect, error) {
	opts.Standard = true
	return Build(opts)
}

// Build builds the scene opts describe.
func Build(opts Options) ([]byte, *Expect, error) {
	var out bytes.Buffer
	e, err := Write(&out, opts)
	if err != nil {
		return nil, nil, err
	}
	return out.Bytes(), e, nil
}

// Write writes the scene opts describe to w. The filler is generated as it
// is written, so memory grows with the scene, not with the filler (a
// million filler objects take a few MB beyond the output's buffer).
func Write(w io.Writer, opts Options) (*Expect, error) {
	if opts.API == 0 {
		opts.API = 34
	}
	if opts.Package == "" {
		opts.Package = "com.example.mail"
	}
	if opts.Timestamp == 0 {
		opts.Timestamp = 1_700_000_000_000 + opts.Seed
	}
	switch opts.BitmapFormat {
	case "":
	case "png", "jpg":
		if opts.API < 35 {
			return nil, fmt.Errorf("scene: bitmap format %q needs API 35 or later (have %d)", opts.BitmapFormat, opts.API)
		}
	default:
		return nil, fmt.Errorf("scene: bitmap format %q (want png or jpg)", opts.BitmapFormat)
	}
	b := newBuilder(opts)
	if err := b.plant(); err != nil {
		return nil, err
	}
	b.finish()
	if err := b.m.write(w, opts.Timestamp); err != nil {
		return nil, err
	}
	return b.e, nil
}

// finish fills in what follows from the model as a whole: nodes, heaps and
// classes, and sorts the lists.
func (b *builder) finish() {
	m, e := b.m, b.e
	e.Version = hprof.VersionAndroid
	if m.std {
		e.Version = hprof.VersionStandard
	}
	e.IDSize = m.idSize
	heaps := map[string]*Heap{}
	classes := map[string]*Class{}
	count := func(o *object) error {
		if o.late {
			return nil
		}
		e.Nodes++
		h := m.heapOf(o.heap)
		if heaps[h] == nil {
			heaps[h] = &Heap{Name: h}
		}
		heaps[h].Objects++
		heaps[h].Bytes += o.shallow
		if classes[o.class] == nil {
			classes[o.class] = &Class{Name: o.class}
		}
		classes[o.class].Instances++
		classes[o.class].Shallow += o.shallow
		return nil
	}
	for _, o := range m.objects {
		_ = count(o)
	}
	if m.stream != nil {
		_ = m.stream(count)
	}
	for _, h := range heaps {
		e.Heaps = append(e.Heaps, *h)
	}
	sort.Slice(e.Heaps, func(i, j int) bool { return e.Heaps[i].Name < e.Heaps[j].Name })
	for _, c := range classes {
		e.Classes = append(e.Classes, *c)
	}
	sort.Slice(e.Classes, func(i, j int) bool { return e.Classes[i].Name < e.Classes[j].Name })
	sort.Slice(e.Leaks, func(i, j int) bool { return e.Leaks[i].ID < e.Leaks[j].ID })
	sort.Slice(e.Bitmaps, func(i, j int) bool { return e.Bitmaps[i].ID < e.Bitmaps[j].ID })
	sort.Slice(e.Duplicates, func(i, j int) bool {
		a, c := e.Duplicates[i], e.Duplicates[j]
		if a.Wasted != c.Wasted {
			return a.Wasted > c.Wasted
		}
		if a.Count != c.Count {
			return a.Count > c.Count
		}
		return a.Value < c.Value
	})
}

// ClassRow returns the Classes row of name (zero if the scene has none).
func (e *Expect) ClassRow(name string) Class {
	for _, c := range e.Classes {
		if c.Name == name {
			return c
		}
	}
	return Class{Name: name}
}

// String describes a path as "java.lang.Class@0x... -sListeners-> ...".
func (l Leak) String() string {
	var s strings.Builder
	for i, h := range l.Path {
		if i > 0 {
			fmt.Fprintf(&s, " -%s-> ", h.Field)
		}
		fmt.Fprintf(&s, "%s@%#x", h.Class, uint64(h.ID))
	}
	return s.String()
}
