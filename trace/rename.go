package trace

// RenameMethods rewrites the profile's method table through rename (class,
// name, JNI signature, source file in; the same out): a release build's
// mapping file turns obfuscated names into the source's once, when the
// trace is loaded, and every view and export reads the renamed table.
func (p *Profile) RenameMethods(rename func(class, name, sig, file string) (string, string, string, string)) {
	for i := firstKeyMethod; i < len(p.Methods); i++ {
		m := &p.Methods[i]
		m.Class, m.Name, m.Signature, m.File = rename(m.Class, m.Name, m.Signature, m.File)
	}
}
