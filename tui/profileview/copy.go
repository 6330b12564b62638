package profileview

// CopyText is the selected method's signature: "class.name(descriptor)".
func (v *View) CopyText() (what, text string) {
	m := v.selectedMethod()
	if m < 0 || v.p == nil {
		return "", ""
	}
	name := v.p.Name(m)
	return "method " + name, name + v.p.Methods[m].Signature
}
