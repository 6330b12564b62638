package mapping

import (
	"bytes"
	"slices"
	"sort"
	"strings"
)

// findClass returns the class whose obfuscated (dotted) name is name.
func (m *Mapping) findClass(name string) *class {
	return m.lookup(m.obfSlots, (*class).obfName, name)
}

// findOriginal returns the class whose original (dotted) name is name.
func (m *Mapping) findOriginal(name string) *class {
	m.origOnce.Do(m.hashOriginals)
	return m.lookup(m.origSlots, (*class).origName, name)
}

// Class returns the source name of an obfuscated class name, in the form it
// is given: dotted (a.b), an array class (a.b[] or a.b[][]), a JNI
// descriptor (La/b; or [[La/b;) or an internal name (a/b). Names the mapping
// does not know come back unchanged with ok false.
func (m *Mapping) Class(name string) (original string, ok bool) {
	switch {
	case strings.HasPrefix(name, "["):
		dims := 0
		for dims < len(name) && name[dims] == '[' {
			dims++
		}
		inner, ok := m.Class(name[dims:])
		if !ok {
			return name, false
		}
		return name[:dims] + inner, true
	case len(name) > 2 && name[0] == 'L' && name[len(name)-1] == ';':
		inner := name[1 : len(name)-1]
		orig, ok := m.Class(inner)
		if !ok {
			return name, false
		}
		return "L" + orig + ";", true
	case strings.HasSuffix(name, "[]"):
		base := strings.TrimRight(name, "[]")
		orig, ok := m.Class(base)
		if !ok {
			return name, false
		}
		return orig + name[len(base):], true
	case strings.Contains(name, "/"):
		orig, ok := m.Class(strings.ReplaceAll(name, "/", "."))
		if !ok {
			return name, false
		}
		return strings.ReplaceAll(orig, ".", "/"), true
	}
	c := m.findClass(name)
	if c == nil {
		return name, false
	}
	return string(c.origName(m.data)), true
}

// Type is Class without the flag: the source name, or name unchanged.
func (m *Mapping) Type(name string) string {
	s, _ := m.Class(name)
	return s
}

// Known reports whether the mapping names the class (any form Class takes).
func (m *Mapping) Known(name string) bool {
	_, ok := m.Class(name)
	return ok
}

// Obfuscated returns the obfuscated name of a source class name (dotted),
// the reverse of Class.
func (m *Mapping) Obfuscated(original string) (string, bool) {
	c := m.findOriginal(original)
	if c == nil {
		return original, false
	}
	return string(c.obfName(m.data)), true
}

// SourceFile returns the source file the mapping names for a source class
// (R8's sourceFile metadata), or "".
func (m *Mapping) SourceFile(original string) string {
	if c := m.findOriginal(original); c != nil && c.fileN > 0 {
		return string(c.fileName(m.data))
	}
	return ""
}

// Signature rewrites every class named in a JNI signature or descriptor,
// such as (La/b;[La/c;I)La/d;, to its source name.
func (m *Mapping) Signature(sig string) string {
	if !strings.Contains(sig, "L") {
		return sig
	}
	var b strings.Builder
	for i := 0; i < len(sig); {
		if sig[i] != 'L' {
			b.WriteByte(sig[i])
			i++
			continue
		}
		end := strings.IndexByte(sig[i:], ';')
		if end < 0 {
			b.WriteString(sig[i:])
			break
		}
		b.WriteString(m.Type(sig[i : i+end+1]))
		i += end + 1
	}
	return b.String()
}

// Field is a field's source name.
type Field struct {
	Class string // the class that declares it in the source
	Name  string
	Type  string // source type, Java form (int, a.b.C[])
}

// Field returns the source name of obfuscated field name in holders: the
// field's class first, then its superclasses as far as the caller knows
// them (obfuscated names, dotted). The first holder that maps a field of
// that name answers.
func (m *Mapping) Field(holders []string, name string) (Field, bool) {
	d := m.data
	for _, h := range holders {
		c := m.findClass(h)
		if c == nil {
			continue
		}
		for i := c.first; i < c.end; i++ {
			mb := &m.members[i]
			if mb.flags&memberMethod != 0 || string(mb.obfName(d)) != name {
				continue
			}
			ml, err := parseMemberLine(mb.body(d))
			if err != nil {
				continue
			}
			body := mb.body(d)
			cls, fname := splitQualified(string(ml.name.of(body)), string(c.origName(d)))
			return Field{Class: cls, Name: fname, Type: string(ml.typ.of(body))}, true
		}
	}
	return Field{}, false
}

// splitQualified splits R8's qualified member names (pkg.Class.name, for
// members inlined or merged from another class) from the holder's.
func splitQualified(name, holder string) (class, member string) {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[:i], name[i+1:]
	}
	return holder, name
}

// Method is a method's source name.
type Method struct {
	Class  string // declaring class in the source
	Name   string
	Return string   // Java form: void, int, a.b.C[]
	Params []string // Java form
	// Synthesized is set for methods R8 made (R8 retrace drops their frames).
	Synthesized bool
}

// Descriptor is the method's JNI signature in source names: (Ljava/lang/String;I)V.
func (mt Method) Descriptor() string {
	var b strings.Builder
	b.WriteByte('(')
	for _, p := range mt.Params {
		b.WriteString(Descriptor(p))
	}
	b.WriteByte(')')
	b.WriteString(Descriptor(mt.Return))
	return b.String()
}

// Java is the method as a Java declaration would name it:
// a.b.C.name(int,java.lang.String).
func (mt Method) Java() string {
	return mt.Class + "." + mt.Name + "(" + strings.Join(mt.Params, ",") + ")"
}

var primitives = map[string]string{
	"void": "V", "boolean": "Z", "byte": "B", "char": "C", "short": "S",
	"int": "I", "long": "J", "float": "F", "double": "D",
}

// Descriptor turns a Java type name (int, a.b.C, a.b.C[][]) into its JNI
// descriptor (I, La/b/C;, [[La/b/C;).
func Descriptor(t string) string {
	dims := 0
	for strings.HasSuffix(t, "[]") {
		t = t[:len(t)-2]
		dims++
	}
	p, ok := primitives[t]
	if !ok {
		p = "L" + strings.ReplaceAll(t, ".", "/") + ";"
	}
	return strings.Repeat("[", dims) + p
}

// methodOf builds a Method from member i of class c.
func (m *Mapping) methodOf(c *class, i uint32) (Method, memberLine, bool) {
	d := m.data
	mb := &m.members[i]
	body := mb.body(d)
	ml, err := parseMemberLine(body)
	if err != nil || !ml.method {
		return Method{}, ml, false
	}
	cls, name := splitQualified(string(ml.name.of(body)), string(c.origName(d)))
	var params []string
	if a := ml.args.of(body); len(a) > 0 {
		params = strings.Split(string(a), ",")
	}
	return Method{Class: cls, Name: name, Return: string(ml.typ.of(body)), Params: params}, ml, true
}

// Methods returns the source methods that obfuscated method name of class
// may be (outer frames only: the methods that carry the name, not those
// inlined into them). sig, when not empty, is the obfuscated JNI signature
// and picks among overloads: by R8's residual signature where the mapping
// has one, else by the source signature the obfuscated one maps to. When it
// matches none, every candidate is returned.
func (m *Mapping) Methods(class, name, sig string) []Method {
	c := m.findClass(class)
	if c == nil {
		return nil
	}
	var all, bySig []Method
	want := ""
	if sig != "" {
		want = m.Signature(sig)
	}
	for _, ch := range m.chains(c, name) {
		outer := ch[len(ch)-1]
		mt, _, ok := m.methodOf(c, outer)
		if !ok || containsMethod(all, mt) {
			continue
		}
		mt.Synthesized = m.synthesizedOuter(c, name, outer)
		all = append(all, mt)
		if sig == "" {
			continue
		}
		if rs := m.extraOf(outer, extraResidual); rs != nil {
			if string(jsonString(rs, "signature")) == sig {
				bySig = append(bySig, mt)
			}
			continue
		}
		if mt.Descriptor() == want {
			bySig = append(bySig, mt)
		}
	}
	if len(bySig) > 0 {
		return bySig
	}
	return all
}

func containsMethod(list []Method, mt Method) bool {
	for _, x := range list {
		if sameMethod(x, mt) {
			return true
		}
	}
	return false
}

func sameMethod(a, b Method) bool {
	return a.Class == b.Class && a.Name == b.Name && a.Return == b.Return && slicesEqual(a.Params, b.Params)
}

func slicesEqual(a, b []string) bool {
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

// chains groups class c's member lines for obfuscated method name into
// inline chains, innermost first: consecutive lines with the same
// obfuscated range where every line after the first gives a single
// original line (the caller's position). Lines without a range stand alone.
func (m *Mapping) chains(c *class, name string) [][]uint32 {
	d := m.data
	var out [][]uint32
	prev := uint32(0)
	for i := c.first; i < c.end; i++ {
		mb := &m.members[i]
		if mb.flags&memberMethod == 0 || string(mb.obfName(d)) != name {
			continue
		}
		if n := len(out); n > 0 && prev == i-1 && mb.flags&memberHasObf != 0 && mb.flags&memberSingleOrig != 0 {
			ps, pe, pok := m.obfRange(prev)
			s, e, ok := m.obfRange(i)
			if pok && ok && ps == s && pe == e {
				out[n-1] = append(out[n-1], i)
				prev = i
				continue
			}
		}
		out = append(out, []uint32{i})
		prev = i
	}
	return out
}

// extraOf returns the metadata line of kind attached to member i, or nil.
func (m *Mapping) extraOf(i uint32, kind extraKind) []byte {
	if m.members[i].flags&memberHasExtra == 0 {
		return nil
	}
	k := sort.Search(len(m.extras), func(k int) bool { return m.extras[k].member >= i })
	for ; k < len(m.extras) && m.extras[k].member == i; k++ {
		if e := m.extras[k]; e.kind == kind {
			return m.data[e.off : e.off+e.n]
		}
	}
	return nil
}

// synthesizedOuter reports whether the method that member outer (the outer
// frame of a chain) stands for is synthesized: R8 marks the method once, on
// one of its lines, or marks its whole class.
func (m *Mapping) synthesizedOuter(c *class, name string, outer uint32) bool {
	d := m.data
	ml, err := parseMemberLine(m.members[outer].body(d))
	if err != nil {
		return false
	}
	self := m.members[outer].body(d)
	if c.flags&classSynthesized != 0 && !bytes.Contains(ml.name.of(self), []byte{'.'}) {
		return true
	}
	marked := false
	for i := c.first; i < c.end && !marked; i++ {
		mb := &m.members[i]
		marked = mb.flags&memberSynthesized != 0 && string(mb.obfName(d)) == name
	}
	if !marked {
		return false
	}
	for _, ch := range m.chains(c, name) {
		for _, i := range ch {
			if m.members[i].flags&memberSynthesized == 0 {
				continue
			}
			o := ch[len(ch)-1]
			other := m.members[o].body(d)
			ol, err := parseMemberLine(other)
			if err == nil && bytes.Equal(ol.name.of(other), ml.name.of(self)) && bytes.Equal(ol.args.of(other), ml.args.of(self)) {
				return true
			}
		}
	}
	return false
}

// RenameMethod gives the source names of a method as a method table lists
// it (a trace's key, a sample's frame): class dotted, name, JNI signature,
// source file. One candidate gives its class, name and source signature;
// several (overloads R8 could not tell apart by the signature) keep the
// obfuscated name's class, join the names with "|" and map the signature's
// types. A class the mapping does not know keeps its names, and the
// signature's types are mapped all the same.
func (m *Mapping) RenameMethod(class, name, sig, file string) (string, string, string, string) {
	c := m.findClass(class)
	if c == nil {
		return class, name, m.Signature(sig), file
	}
	orig := string(c.origName(m.data))
	cands := m.Methods(class, name, sig)
	switch len(cands) {
	case 0:
		return orig, name, m.Signature(sig), m.fileOf(orig)
	case 1:
		mt := cands[0]
		return mt.Class, mt.Name, mt.Descriptor(), m.fileOf(mt.Class)
	}
	var names []string
	for _, mt := range cands {
		if !slices.Contains(names, mt.Name) {
			names = append(names, mt.Name)
		}
	}
	return orig, strings.Join(names, "|"), m.Signature(sig), m.fileOf(orig)
}
