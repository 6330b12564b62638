package sim

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ddmtui/ddmtui/ddm"
	"github.com/ddmtui/ddmtui/hprof/scene"
)

// A release build is minified, as R8 minifies what users ship: the app's
// own classes and methods carry short names in everything the simulated
// release VM emits (thread stacks, dumps, crash logs), and ReleaseMapping
// is the mapping.txt R8 would have written beside the build, which `ddmtui
// demo` hands to its dashboard. Framework classes and the methods an app
// overrides (run, onDraw) keep their names, as R8 keeps them.

// minClass is one class of the release build: its source name (after the
// package), its name in the build, and its methods.
type minClass struct {
	class, obf, file string
	methods          []minMethod
}

// minMethod maps the source lines from..from+span to the build's lines
// at..at+span, under the build's name obf.
type minMethod struct {
	name, obf, ret, args string
	from, at, span       int
}

// releaseClasses are the app classes the simulator's stacks, dumps and
// crash logs use; their names follow a package.
var releaseClasses = []minClass{
	{class: "data.Repository", obf: "a.a", file: "Repository.kt", methods: []minMethod{
		{name: "load", obf: "a", ret: "java.util.List", args: "int", from: 40, at: 1, span: 200},
	}},
	{class: "work.Worker", obf: "a.b", file: "Worker.kt", methods: []minMethod{
		{name: "run", obf: "run", ret: "void", from: 10, at: 1, span: 90},
	}},
	{class: "data.Account", obf: "a.c", file: "Account.kt"},
	{class: "data.Cache", obf: "a.e", file: "Cache.java", methods: []minMethod{
		{name: "load", obf: "b", ret: "void", from: 50, at: 1, span: 12},
	}},
	{class: "data.Store", obf: "a.d", file: "Store.java", methods: []minMethod{
		{name: "transfer", obf: "a", ret: "void", args: "{pkg}.data.Account,long", from: 80, at: 1, span: 20},
	}},
	{class: "tiles.TileCache", obf: "b.a", file: "TileCache.java", methods: []minMethod{
		{name: "get", obf: "a", ret: "android.graphics.Bitmap", args: "int,int,int", from: 110, at: 1, span: 20},
		{name: "read", obf: "b", ret: "byte[]", args: "java.io.DataInputStream", from: 195, at: 21, span: 10},
	}},
	{class: "MapView", obf: "b.b", file: "MapView.java", methods: []minMethod{
		{name: "onDraw", obf: "onDraw", ret: "void", args: "android.graphics.Canvas", from: 330, at: 1, span: 30},
	}},
}

// minifyFrame is frame as the release build of spec shows it (the frame
// itself for other builds, and for frames of classes not in the table).
func (spec VMSpec) minifyFrame(f ddm.StackFrame) ddm.StackFrame {
	if !spec.Release {
		return f
	}
	for _, c := range releaseClasses {
		if f.Class != spec.Package+"."+c.class {
			continue
		}
		f.Class = c.obf
		f.File = "SourceFile"
		for _, m := range c.methods {
			if m.name == f.Method && int(f.Line) >= m.from && int(f.Line) <= m.from+m.span {
				f.Method = m.obf
				f.Line = int32(int(f.Line) - m.from + m.at)
			}
		}
		return f
	}
	return f
}

// minifyClass is the build's name of the app class pkg.class.
func (spec VMSpec) minifyClass(name string) string {
	if spec.Release {
		for _, c := range releaseClasses {
			if name == spec.Package+"."+c.class {
				return c.obf
			}
		}
	}
	return name
}

// javaFrame is a stack trace line's "pkg.Class.method(File:line)" as spec's
// build prints it.
func (spec VMSpec) javaFrame(class, method, file string, line int) string {
	f := spec.minifyFrame(ddm.StackFrame{Class: class, Method: method, File: file, Line: int32(line)})
	return fmt.Sprintf("%s.%s(%s:%d)", f.Class, f.Method, f.File, f.Line)
}

// heapFillers are the app classes (after the package) the simulator's heap
// dumps fill with instances, beside the scene's own classes.
var heapFillers = []string{"data.Item", "ui.ViewHolder"}

// releaseHeapNames maps the classes a heap dump of package pkg ships (the
// scene's app heap and the fillers) to the release build's names: those of
// releaseClasses, the package's others c.a, c.b, ... in a fixed order,
// libraries' kept as they are (R8 lists kept classes as x -> x).
func releaseHeapNames(pkg string) map[string]string {
	names := map[string]string{}
	for _, c := range releaseClasses {
		names[pkg+"."+c.class] = c.obf
	}
	classes := scene.AppClasses(pkg)
	for _, f := range heapFillers {
		classes = append(classes, pkg+"."+f)
	}
	next := 0
	for _, c := range classes {
		if _, ok := names[c]; ok {
			continue
		}
		if !strings.HasPrefix(c, pkg+".") { // a library's (androidx), kept by its rules
			names[c] = c
			continue
		}
		obf := "c."
		for i := next; ; i = i/26 - 1 {
			obf += string(rune('a' + i%26))
			if i < 26 {
				break
			}
		}
		names[c] = obf
		next++
	}
	return names
}

// heapClassNames renames a heap dump's app classes as spec's build names
// them (nil for a build that is not minified).
func (spec VMSpec) heapClassNames(pkg string) func(string) string {
	if !spec.Release {
		return nil
	}
	names := releaseHeapNames(pkg)
	return func(name string) string {
		elem := strings.TrimRight(name, "[]")
		if obf, ok := names[elem]; ok {
			return obf + name[len(elem):]
		}
		return name
	}
}

// ReleaseMapping is the mapping file of the release build of package pkg,
// in R8's format (header, sourceFile metadata, line ranges).
func ReleaseMapping(pkg string) string {
	var b strings.Builder
	b.WriteString("# compiler: R8\n# compiler_version: 8.5.35\n# min_api: 24\n")
	b.WriteString("# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}\n# pg_map_id: 5eed1a5\n")
	for _, c := range releaseClasses {
		fmt.Fprintf(&b, "%s.%s -> %s:\n", pkg, c.class, c.obf)
		fmt.Fprintf(&b, "# {\"id\":\"sourceFile\",\"fileName\":\"%s\"}\n", c.file)
		for _, m := range c.methods {
			args := strings.ReplaceAll(m.args, "{pkg}", pkg)
			fmt.Fprintf(&b, "    %d:%d:%s %s(%s):%d:%d -> %s\n", m.at, m.at+m.span, m.ret, m.name, args, m.from, m.from+m.span, m.obf)
		}
	}
	// The classes only the heap dumps show (no methods in any stack).
	heap := releaseHeapNames(pkg)
	var rest []string
	for c := range heap {
		if !slices.ContainsFunc(releaseClasses, func(r minClass) bool { return pkg+"."+r.class == c }) {
			rest = append(rest, c)
		}
	}
	slices.Sort(rest)
	for _, c := range rest {
		fmt.Fprintf(&b, "%s -> %s:\n", c, heap[c])
	}
	return b.String()
}
