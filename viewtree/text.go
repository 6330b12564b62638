package viewtree

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// textDone ends a text dump (and the theme dump).
const textDone = "DONE."

var textFields = map[string]field{
	"mID": fID, "mLeft": fLeft, "mTop": fTop, "getWidth()": fWidth, "getHeight()": fHeight,
	"mRight": fRight, "mBottom": fBottom, "getVisibility()": fVisibility, "getAlpha()": fAlpha,
	"mPaddingLeft": fPadLeft, "mPaddingTop": fPadTop, "mPaddingRight": fPadRight, "mPaddingBottom": fPadBottom,
	"mText": fText, "mScrollX": fScrollX, "mScrollY": fScrollY,
}

// TextError is a text dump's line that does not parse.
type TextError struct {
	Line int // 1-based
	Err  error
}

func (e *TextError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *TextError) Unwrap() error { return e.Err }

// DecodeText reads ViewDebug's text dump: one line per view in pre-order,
// indented one space per depth, `class@hash` then `name=LEN,value ` per
// property (LEN in UTF-16 units, newlines escaped as \n, null as 4,null),
// ended by DONE. A dump without DONE. keeps the views read (Truncated).
func DecodeText(data []byte) (*Tree, error) {
	t := &Tree{Format: FormatText, raw: data}
	names := &textNames{index: map[string]int32{}}
	t.Props = make([]Property, 0, len(data)/16)
	var stack []int32 // node index by depth
	rest, line, done := data, 0, false
	for len(rest) > 0 {
		line++
		nl := bytes.IndexByte(rest, '\n')
		var l []byte
		if nl < 0 {
			l, rest = rest, nil
		} else {
			l, rest = rest[:nl], rest[nl+1:]
		}
		off := len(data) - len(rest) - len(l)
		if nl >= 0 {
			off--
		}
		l = bytes.TrimSuffix(l, []byte{'\r'})
		if string(l) == textDone {
			done = true
			break
		}
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		depth := 0
		for depth < len(l) && l[depth] == ' ' {
			depth++
		}
		if depth > len(stack) {
			return nil, &TextError{line, fmt.Errorf("depth %d under a view of depth %d", depth, len(stack)-1)}
		}
		if depth == 0 && len(t.Nodes) > 0 {
			return nil, &TextError{line, errors.New("a second root view")}
		}
		if depth >= MaxDepth {
			return nil, &TextError{line, ErrTooDeep}
		}
		if len(t.Nodes) >= MaxNodes {
			return nil, &TextError{line, ErrTooMany}
		}
		parent := int32(-1)
		if depth > 0 {
			parent = stack[depth-1]
		}
		stack = append(stack[:depth], int32(len(t.Nodes)))
		if err := t.textLine(l[depth:], off+depth, parent, depth, names); err != nil {
			if len(t.Nodes) == 0 {
				err = fmt.Errorf("%w: %w", ErrNotADump, err)
			}
			return nil, &TextError{line, err}
		}
	}
	if len(t.Nodes) == 0 {
		return nil, ErrEmptyDump
	}
	t.Truncated = !done
	t.finish()
	return t, nil
}

// textLine reads one view's line (after its indentation); off is where it
// starts in the dump.
// textNames interns a text dump's property names: views of one class list
// the same names in the same order, so the previous line's name at the
// same place is tried before the map.
type textNames struct {
	index  map[string]int32
	fields []field // what each name means, by index in Tree.names
	prev   []int32 // the names of the previous line, in order
	cur    []int32 // this line's
}

func (nm *textNames) lookup(t *Tree, raw []byte, pos int) (int32, field) {
	if pos < len(nm.prev) {
		if i := nm.prev[pos]; t.names[i] == string(raw) {
			nm.cur = append(nm.cur, i)
			return i, nm.fields[i]
		}
	}
	i, ok := nm.index[string(raw)]
	if !ok {
		if t.nameFits(len(raw)) {
			name := string(raw)
			i = t.addName(name)
			nm.index[name] = i
		} else {
			i = t.namesCut() // neither the name nor its index entry is kept
		}
		for len(nm.fields) < len(t.names) {
			short := t.names[len(nm.fields)]
			if c := strings.IndexByte(short, ':'); c >= 0 {
				short = short[c+1:]
			}
			nm.fields = append(nm.fields, textFields[short])
		}
	}
	nm.cur = append(nm.cur, i)
	return i, nm.fields[i]
}

func (t *Tree) textLine(l []byte, off int, parent int32, depth int, names *textNames) error {
	sp := bytes.IndexByte(l, ' ')
	head := l
	if sp >= 0 {
		head = l[:sp]
	}
	at := bytes.LastIndexByte(head, '@')
	if at <= 0 {
		return fmt.Errorf("%q is not class@hash", clip(head))
	}
	h, err := strconv.ParseUint(string(head[at+1:]), 16, 32)
	if err != nil {
		return fmt.Errorf("hash of %q: %v", clip(head), err)
	}
	n := Node{Class: string(head[:at]), Hash: uint32(h), Parent: parent, Depth: int32(depth), Alpha: 1}
	n.props[0] = int32(len(t.Props))
	var right, bottom int32
	var haveW, haveH, haveR, haveB bool
	i := len(head)
	names.prev, names.cur = names.cur, names.prev[:0]
	pos := 0
	for {
		for i < len(l) && l[i] == ' ' {
			i++
		}
		if i >= len(l) {
			break
		}
		eq := bytes.IndexByte(l[i:], '=')
		if eq <= 0 {
			return fmt.Errorf("property at column %d has no '='", i+1)
		}
		rawName := l[i : i+eq]
		i += eq + 1
		comma := bytes.IndexByte(l[i:], ',')
		if comma <= 0 {
			return fmt.Errorf("property %q has no length", clip(rawName))
		}
		units, ok := atoi(l[i : i+comma])
		if !ok || units < 0 {
			return fmt.Errorf("property %q: bad length %q", clip(rawName), clip(l[i:i+comma]))
		}
		i += comma + 1
		nb, ok := utf16Span(l[i:], units)
		if !ok {
			return fmt.Errorf("property %q: value of %d units runs past the line", clip(rawName), units)
		}
		ni, fld := names.lookup(t, rawName, pos)
		pos++
		p := Property{name: ni, Kind: 'T', bits: strBits(off+i, nb)}
		val := l[i : i+nb]
		i += nb
		if i < len(l) && l[i] != ' ' {
			return fmt.Errorf("property %q: value longer than its length %d", clip(rawName), units)
		}
		t.Props = append(t.Props, p)
		num, isNum := atoi(val)
		switch fld {
		case fID:
			if s := string(val); s != "NO_ID" && s != "-1" && s != "null" {
				n.ID = t.Value(p)
			}
		case fLeft:
			n.Left = int32(num)
		case fTop:
			n.Top = int32(num)
		case fWidth:
			n.Width, haveW = int32(num), isNum
		case fHeight:
			n.Height, haveH = int32(num), isNum
		case fRight:
			right, haveR = int32(num), isNum
		case fBottom:
			bottom, haveB = int32(num), isNum
		case fVisibility:
			if v, ok := ParseVisibility(string(val)); ok {
				n.Visibility = v
			}
		case fAlpha:
			if f, err := strconv.ParseFloat(string(val), 32); err == nil {
				n.Alpha = float32(f)
			}
		case fPadLeft:
			n.Padding[0] = int32(num)
		case fPadTop:
			n.Padding[1] = int32(num)
		case fPadRight:
			n.Padding[2] = int32(num)
		case fPadBottom:
			n.Padding[3] = int32(num)
		case fText:
			n.HasText = true
			if string(val) != "null" {
				n.Text = t.Value(p)
			}
		case fScrollX:
			n.ScrollX = int32(num)
		case fScrollY:
			n.ScrollY = int32(num)
		}
	}
	if !haveW && haveR {
		n.Width = right - n.Left
	}
	if !haveH && haveB {
		n.Height = bottom - n.Top
	}
	n.props[1] = int32(len(t.Props))
	n.propsDone = true
	t.Nodes = append(t.Nodes, n)
	return nil
}

// utf16Span is the number of bytes of b that hold units UTF-16 code units.
func utf16Span(b []byte, units int) (int, bool) {
	i := 0
	for units > 0 {
		if i >= len(b) {
			return 0, false
		}
		c := b[i]
		if c < utf8.RuneSelf {
			i++
			units--
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		i += size
		if r >= 0x10000 {
			units -= 2
		} else {
			units--
		}
	}
	return i, units == 0
}

// utf16Len counts s's UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// atoi reads a decimal int (optional '-'), bounded to 9 digits.
func atoi(b []byte) (int, bool) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// escapeText escapes a value as ViewDebug does: newlines become \n.
func escapeText(s string) string { return strings.ReplaceAll(s, "\n", `\n`) }

// unescapeText undoes escapeText (a value that held a backslash and an n
// reads back as a newline: the dump cannot tell them apart).
func unescapeText(s string) string {
	if !strings.Contains(s, `\n`) {
		return s
	}
	return strings.ReplaceAll(s, `\n`, "\n")
}

// TextWriter writes a text dump as ViewDebug.dump does.
type TextWriter struct {
	b    []byte
	open bool
}

// View starts a view's line.
func (w *TextWriter) View(depth int, class string, hash uint32) {
	if w.open {
		w.b = append(w.b, '\n')
	}
	w.open = true
	for i := 0; i < depth; i++ {
		w.b = append(w.b, ' ')
	}
	w.b = append(w.b, class...)
	w.b = append(w.b, '@')
	w.b = strconv.AppendUint(w.b, uint64(hash), 16)
	w.b = append(w.b, ' ')
}

// Prop adds a property to the current view (name with its category).
func (w *TextWriter) Prop(name, value string) {
	value = escapeText(value)
	w.b = append(w.b, name...)
	w.b = append(w.b, '=')
	w.b = strconv.AppendInt(w.b, int64(utf16Len(value)), 10)
	w.b = append(w.b, ',')
	w.b = append(w.b, value...)
	w.b = append(w.b, ' ')
}

// Bytes ends the dump with DONE. and returns it.
func (w *TextWriter) Bytes() []byte {
	if w.open {
		w.b = append(w.b, '\n')
		w.open = false
	}
	return append(w.b, textDone+"\n"...)
}
