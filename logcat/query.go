package logcat

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// The query language of Android Studio's Logcat, compiled once and then
// applied to each entry:
//
//	tag:NAME        the tag contains NAME       tag=:NAME exact   tag~:RE regular expression
//	message:TEXT    the message contains TEXT   message=:  message~:
//	package:NAME    the entry's app contains NAME (package=:, package~:);
//	                package:mine is the apps given as Mine
//	process:NAME    the same, on the process (app) name
//	level:W         level W and above (V D I W E F, or verbose … fatal)
//	age:5m          logged at most 5m before "now" (device time): s m h d
//	is:crash        part of a crash report (FATAL EXCEPTION, ANR in, native crash)
//	is:stacktrace   holds stack-trace lines
//	WORD            the message or the tag contains WORD
//
// A leading '-' negates a term (-tag:chatty) or a group (-(…)). Terms side by side are ANDed;
// '&' says so explicitly, '|' ORs (it binds looser than AND), and
// parentheses group. Values with blanks go in double quotes ("a b", with \"
// and \\ inside). Text matches ignore case when the value has no upper-case
// letter ("smart case"); regular expressions are as written ((?i) for
// case-insensitive).

// ErrQuery is wrapped by every compile error.
var ErrQuery = errors.New("logcat query")

// QueryOptions give a query what it cannot know from the entries.
type QueryOptions struct {
	// Mine are the package names package:mine stands for. With none,
	// package:mine is a compile error (it would match nothing), which
	// MineHint completes with how to name them (e.g. "give --app NAME").
	Mine     []string
	MineHint string
}

// Query is a compiled query; safe for concurrent use.
type Query struct {
	src  string
	root node
}

// String is the source the query was compiled from.
func (q *Query) String() string { return q.src }

// Match reports whether e passes the query; now is the device time age:
// terms count back from. An empty query matches everything.
func (q *Query) Match(e *Entry, now time.Time) bool {
	if q == nil || q.root == nil {
		return true
	}
	return q.root.match(e, now)
}

// Compile parses a query.
func Compile(src string, opts QueryOptions) (*Query, error) {
	p := &queryParser{src: src, opts: opts}
	if err := p.tokenize(); err != nil {
		return nil, err
	}
	q := &Query{src: src}
	if len(p.toks) == 0 {
		return q, nil
	}
	root, err := p.parseOr()
	if err != nil {
		return nil, err
	}
	if p.i < len(p.toks) {
		t := p.toks[p.i]
		if t.kind == tokClose {
			return nil, fmt.Errorf("%w: ')' at column %d closes no '('", ErrQuery, p.col(t.pos))
		}
		return nil, fmt.Errorf("%w: unexpected %q at column %d", ErrQuery, t.text, p.col(t.pos))
	}
	q.root = root
	return q, nil
}

type node interface {
	match(e *Entry, now time.Time) bool
}

type andNode []node
type orNode []node
type notNode struct{ n node }

func (a andNode) match(e *Entry, now time.Time) bool {
	for _, n := range a {
		if !n.match(e, now) {
			return false
		}
	}
	return true
}

func (o orNode) match(e *Entry, now time.Time) bool {
	for _, n := range o {
		if n.match(e, now) {
			return true
		}
	}
	return false
}

func (n notNode) match(e *Entry, now time.Time) bool { return !n.n.match(e, now) }

// field picks the text a term looks at.
type field uint8

const (
	fieldTag field = iota
	fieldMessage
	fieldApp
	fieldTagOrMessage
)

func (f field) of(e *Entry) string {
	switch f {
	case fieldTag:
		return e.Tag
	case fieldMessage:
		return e.Message
	default:
		return e.App
	}
}

// textNode matches a field by substring, equality or regexp.
type textNode struct {
	f    field
	op   byte // ':' contains, '=' equals, '~' regexp
	val  string
	fold bool // compare ignoring ASCII/Unicode case (val is lower-case)
	re   *regexp.Regexp
	lits []string // one of them occurs in every string re matches (nil: unknown)
	// lead, when set, is re anchored at its start, and every match of re
	// starts with one of lits: re is tried only where a literal occurs.
	lead  *regexp.Regexp
	mine  []string // package:mine
	isMin bool
}

func (t *textNode) match(e *Entry, _ time.Time) bool {
	if t.f == fieldTagOrMessage {
		return t.test(e.Tag) || t.test(e.Message)
	}
	if t.isMin {
		for _, m := range t.mine {
			if e.App == m {
				return true
			}
		}
		return false
	}
	return t.test(t.f.of(e))
}

func (t *textNode) test(s string) bool {
	switch t.op {
	case '~':
		if t.lead != nil {
			return t.matchAtLiterals(s)
		}
		if t.lits != nil && !containsAny(s, t.lits) {
			return false
		}
		return t.re.MatchString(s)
	case '=':
		if t.fold {
			return strings.EqualFold(s, t.val)
		}
		return s == t.val
	}
	if t.fold {
		return containsFold(s, t.val)
	}
	return strings.Contains(s, t.val)
}

// containsFold reports whether s contains the lower-case needle, ignoring
// case. An ASCII needle (the usual case) is looked for byte by byte without
// allocating: a multi-byte character in s never equals an ASCII one.
func containsFold(s, needle string) bool {
	if len(needle) == 0 {
		return true
	}
	first := needle[0]
	if !isASCII(needle) {
		return strings.Contains(strings.ToLower(s), needle)
	}
	upper := first
	if first >= 'a' && first <= 'z' {
		upper = first - 'a' + 'A'
	}
	for i := 0; i+len(needle) <= len(s); i++ {
		c := s[i]
		if c != first && c != upper {
			continue
		}
		if strings.EqualFold(s[i:i+len(needle)], needle) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

type levelNode Priority

func (l levelNode) match(e *Entry, _ time.Time) bool { return e.Priority >= Priority(l) }

type ageNode time.Duration

func (a ageNode) match(e *Entry, now time.Time) bool {
	return !e.Time.Before(now.Add(-time.Duration(a)))
}

type flagNode Flags

func (f flagNode) match(e *Entry, _ time.Time) bool { return e.Flags&Flags(f) != 0 }

// Tokens.
type tokKind uint8

const (
	tokTerm tokKind = iota
	tokOr
	tokAnd
	tokOpen
	tokClose
	tokNot // '-' before '('
)

type token struct {
	kind tokKind
	text string // the term as written (for errors)
	neg  bool
	pos  int    // byte offset of the token in the source
	key  string // "" for a plain word
	op   byte
	val  string
}

type queryParser struct {
	src  string
	opts QueryOptions
	toks []token
	i    int
}

// col is the column (in characters, from 1) of the byte offset pos.
func (p *queryParser) col(pos int) int { return utf8.RuneCountInString(p.src[:pos]) + 1 }

var queryKeys = map[string]bool{"tag": true, "message": true, "package": true, "process": true, "level": true, "age": true, "is": true}

func (p *queryParser) tokenize() error {
	s := p.src
	depth := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
			continue
		case c == '|':
			p.toks = append(p.toks, token{kind: tokOr, text: "|", pos: i})
			i++
			continue
		case c == '&':
			p.toks = append(p.toks, token{kind: tokAnd, text: "&", pos: i})
			i++
			continue
		case c == '-' && i+1 < len(s) && s[i+1] == '(':
			p.toks = append(p.toks, token{kind: tokNot, text: "-", pos: i})
			i++
			continue
		case c == '(':
			depth++
			p.toks = append(p.toks, token{kind: tokOpen, text: "(", pos: i})
			i++
			continue
		case c == ')':
			depth--
			p.toks = append(p.toks, token{kind: tokClose, text: ")", pos: i})
			i++
			continue
		}
		start := i
		t := token{kind: tokTerm, pos: i}
		if c == '-' && i+1 < len(s) && s[i+1] != ' ' {
			t.neg = true
			i++
		}
		// key[~=]: ?
		j := i
		for j < len(s) && (s[j] >= 'a' && s[j] <= 'z') {
			j++
		}
		if j > i && j < len(s) && queryKeys[s[i:j]] {
			k := j
			op := byte(':')
			if s[k] == '~' || s[k] == '=' {
				op = s[k]
				k++
			}
			if k < len(s) && s[k] == ':' {
				t.key, t.op = s[i:j], op
				i = k + 1
			}
		}
		val, n, err := readValue(s[i:], depth)
		if err != nil {
			return fmt.Errorf("%w: %v at column %d", ErrQuery, err, p.col(i))
		}
		i += n
		t.val = val
		t.text = s[start:i]
		p.toks = append(p.toks, t)
	}
	return nil
}

// readValue reads a quoted string or a bare word (up to a blank; inside
// parentheses, trailing ')' are left for the parser).
func readValue(s string, depth int) (string, int, error) {
	if len(s) > 0 && s[0] == '"' {
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			switch s[i] {
			case '\\':
				if i+1 < len(s) {
					i++
					b.WriteByte(s[i])
				}
			case '"':
				return b.String(), i + 1, nil
			default:
				b.WriteByte(s[i])
			}
		}
		return "", 0, errors.New("unterminated quote")
	}
	n := 0
	for n < len(s) && s[n] != ' ' && s[n] != '\t' {
		n++
	}
	// A ')' the value does not open closes a group: (tag:a | tag~:(b|c))
	balance := strings.Count(s[:n], "(") - strings.Count(s[:n], ")")
	for balance < 0 && depth > 0 && n > 0 && s[n-1] == ')' {
		n--
		depth--
		balance++
	}
	return s[:n], n, nil
}

func (p *queryParser) parseOr() (node, error) {
	var or orNode
	for {
		n, err := p.parseAnd()
		if err != nil {
			return nil, err
		}
		or = append(or, n)
		if p.i < len(p.toks) && p.toks[p.i].kind == tokOr {
			p.i++
			continue
		}
		break
	}
	if len(or) == 1 {
		return or[0], nil
	}
	return or, nil
}

func (p *queryParser) parseAnd() (node, error) {
	var and andNode
	for p.i < len(p.toks) {
		t := p.toks[p.i]
		if t.kind == tokOr || t.kind == tokClose {
			break
		}
		if t.kind == tokAnd {
			if len(and) == 0 {
				return nil, fmt.Errorf("%w: '&' at column %d has no term before it", ErrQuery, p.col(t.pos))
			}
			p.i++
			continue
		}
		n, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		and = append(and, n)
	}
	switch len(and) {
	case 0:
		return nil, p.missingTerm()
	case 1:
		return and[0], nil
	}
	sort.SliceStable(and, func(i, j int) bool { return cost(and[i]) < cost(and[j]) })
	return and, nil
}

// missingTerm says where a term was wanted: after the token before it (the
// '(' of "(", the '|' of "a |"), or before the one that came instead.
func (p *queryParser) missingTerm() error {
	if p.i > 0 {
		prev := p.toks[p.i-1]
		where := "at the end of the query"
		if p.i < len(p.toks) {
			next := p.toks[p.i]
			where = fmt.Sprintf("before %q at column %d", next.text, p.col(next.pos))
		}
		return fmt.Errorf("%w: missing term after %q at column %d (%s)", ErrQuery, prev.text, p.col(prev.pos), where)
	}
	next := p.toks[p.i]
	return fmt.Errorf("%w: missing term before %q at column %d", ErrQuery, next.text, p.col(next.pos))
}

func (p *queryParser) parseUnary() (node, error) {
	t := p.toks[p.i]
	p.i++
	if t.kind == tokNot {
		if p.i >= len(p.toks) || p.toks[p.i].kind != tokOpen {
			return nil, fmt.Errorf("%w: '-' at column %d without a term", ErrQuery, p.col(t.pos))
		}
		n, err := p.parseUnary()
		if err != nil {
			return nil, err
		}
		return notNode{n}, nil
	}
	if t.kind == tokOpen {
		n, err := p.parseOr()
		if err != nil {
			return nil, err
		}
		if p.i >= len(p.toks) || p.toks[p.i].kind != tokClose {
			return nil, fmt.Errorf("%w: missing ')' for the '(' at column %d", ErrQuery, p.col(t.pos))
		}
		p.i++
		return n, nil
	}
	n, err := p.term(t)
	if err != nil {
		return nil, err
	}
	if t.neg {
		return notNode{n}, nil
	}
	return n, nil
}

func (p *queryParser) term(t token) (node, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrQuery, t.text, fmt.Sprintf(format, args...))
	}
	switch t.key {
	case "level", "age", "is":
		if t.op != ':' {
			return nil, bad("%s takes no %c", t.key, t.op)
		}
	}
	switch t.key {
	case "level":
		pri, err := ParsePriority(t.val)
		if err != nil {
			return nil, bad("unknown level (V, D, I, W, E, F)")
		}
		return levelNode(pri), nil
	case "age":
		d, err := parseAge(t.val)
		if err != nil {
			return nil, bad("%v", err)
		}
		return ageNode(d), nil
	case "is":
		switch t.val {
		case "crash":
			return flagNode(FlagCrash), nil
		case "stacktrace":
			return flagNode(FlagStackTrace), nil
		}
		return nil, bad("unknown (is:crash, is:stacktrace)")
	}
	tn := &textNode{op: t.op, val: t.val}
	switch t.key {
	case "tag":
		tn.f = fieldTag
	case "message":
		tn.f = fieldMessage
	case "package", "process":
		tn.f = fieldApp
		if t.key == "package" && t.op == ':' && t.val == "mine" {
			if len(p.opts.Mine) == 0 {
				msg := "no app is yours here, so it would match nothing"
				if p.opts.MineHint != "" {
					msg += " (" + p.opts.MineHint + ")"
				}
				return nil, bad("%s", msg)
			}
			tn.isMin, tn.mine = true, p.opts.Mine
			return tn, nil
		}
	default:
		tn.f, tn.op = fieldTagOrMessage, ':'
	}
	if t.val == "" && t.key != "" {
		return nil, bad("empty value")
	}
	if tn.op == '~' {
		re, err := regexp.Compile(t.val)
		if err != nil {
			return nil, bad("%v", err)
		}
		tn.re = re
		if syn, err := syntax.Parse(t.val, syntax.Perl); err == nil {
			syn = syn.Simplify()
			tn.lits = requiredLiterals(syn)
			if lead := leadingLiterals(syn); lead != nil {
				if anchored, err := regexp.Compile(`^(?:` + t.val + `)`); err == nil {
					tn.lits, tn.lead = lead, anchored
				}
			}
		}
		return tn, nil
	}
	if strings.IndexFunc(t.val, unicode.IsUpper) < 0 {
		tn.fold = true
	}
	return tn, nil
}

// parseAge reads "30s", "5m", "2h", "1d" (several may follow each other:
// "1h30m").
func parseAge(s string) (time.Duration, error) {
	if s == "" {
		return 0, errors.New("empty age")
	}
	var total time.Duration
	for s != "" {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i == len(s) {
			return 0, fmt.Errorf("age %q: want a number and a unit (s, m, h, d)", s)
		}
		n, err := strconv.Atoi(s[:i])
		if err != nil || n > 1e6 {
			return 0, fmt.Errorf("age %q: number out of range", s)
		}
		var unit time.Duration
		switch s[i] {
		case 's':
			unit = time.Second
		case 'm':
			unit = time.Minute
		case 'h':
			unit = time.Hour
		case 'd':
			unit = 24 * time.Hour
		default:
			return 0, fmt.Errorf("age: unit %q (want s, m, h, d)", s[i])
		}
		total += time.Duration(n) * unit
		s = s[i+1:]
	}
	return total, nil
}

// cost ranks terms so that an AND tries the cheap ones first: numbers and
// flags, then text, then regular expressions.
func cost(n node) int {
	switch n := n.(type) {
	case levelNode, ageNode, flagNode:
		return 0
	case *textNode:
		if n.op == '~' {
			return 2
		}
		return 1
	case notNode:
		return cost(n.n)
	}
	return 3
}

func containsAny(s string, lits []string) bool {
	for _, l := range lits {
		if strings.Contains(s, l) {
			return true
		}
	}
	return false
}

// requiredLiterals returns strings one of which occurs in every match of
// re, or nil when it cannot tell. Case-folded literals give nil.
func requiredLiterals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 || len(re.Rune) == 0 {
			return nil
		}
		return []string{string(re.Rune)}
	case syntax.OpCapture:
		return requiredLiterals(re.Sub[0])
	case syntax.OpPlus:
		return requiredLiterals(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiterals(re.Sub[0])
		}
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			l := requiredLiterals(sub)
			if l == nil {
				return nil
			}
			all = append(all, l...)
		}
		return all
	case syntax.OpConcat:
		// The child whose shortest required literal is longest.
		var best []string
		bestLen := 0
		for _, sub := range re.Sub {
			l := requiredLiterals(sub)
			if l == nil {
				continue
			}
			short := len(l[0])
			for _, x := range l {
				short = min(short, len(x))
			}
			if short > bestLen {
				best, bestLen = l, short
			}
		}
		return best
	}
	return nil
}

// matchAtLiterals tries the anchored expression at every place one of the
// leading literals occurs.
func (t *textNode) matchAtLiterals(s string) bool {
	for _, l := range t.lits {
		for off := 0; off <= len(s); {
			i := strings.Index(s[off:], l)
			if i < 0 {
				break
			}
			if t.lead.MatchString(s[off+i:]) {
				return true
			}
			off += i + 1
		}
	}
	return false
}

// leadingLiterals returns strings one of which every match of re starts
// with, or nil. Case-folded literals give nil.
func leadingLiterals(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 || len(re.Rune) == 0 {
			return nil
		}
		return []string{string(re.Rune)}
	case syntax.OpCapture:
		return leadingLiterals(re.Sub[0])
	case syntax.OpConcat:
		if len(re.Sub) > 0 {
			return leadingLiterals(re.Sub[0])
		}
	case syntax.OpAlternate:
		var all []string
		for _, sub := range re.Sub {
			l := leadingLiterals(sub)
			if l == nil {
				return nil
			}
			all = append(all, l...)
		}
		return all
	}
	return nil
}
