package threaddump

import (
	"strings"
)

// detailLine applies one `|` line (spec §2.2): held mutexes, or an unordered
// set of key=value tokens. A second non-empty held-mutexes line is not
// merged with the first; it is reported as not understood.
func (t *Thread) detailLine(s string) bool {
	if rest, ok := strings.CutPrefix(s, "held mutexes="); ok {
		if len(t.HeldMutexes) > 0 {
			return false
		}
		t.HeldMutexes = splitMutexes(rest)
		return true
	}
	for _, d := range splitDetails(s) {
		t.setDetail(d)
	}
	return true
}

// setDetail stores a token in its field, or in ExtraDetails when the key is
// unknown or the value does not parse.
func (t *Thread) setDetail(d Detail) {
	// A plain value has no blanks and does not start with a quote or a
	// parenthesis, so it reads back the same wherever it is written.
	str := func(dst *string) bool {
		if d.Value != "" && (d.Value[0] == '"' || d.Value[0] == '(' || strings.ContainsAny(d.Value, blanks)) {
			return false
		}
		*dst = d.Value
		return true
	}
	num := func(dst *int) bool {
		n, ok := parseInt(d.Value)
		if ok {
			*dst = n
		}
		return ok
	}
	var ok bool
	switch d.Key {
	case "group":
		v, quoted := unquote(d.Value)
		if ok = quoted; ok {
			t.Group = v
		}
	case "sCount":
		ok = num(&t.SuspendCount)
	case "dsCount":
		ok = num(&t.DebugSuspendCount)
	case "ucsCount":
		ok = num(&t.UserCodeSuspendCount)
	case "flags":
		ok = num(&t.Flags)
	case "obj":
		ok = str(&t.Obj)
	case "self":
		ok = str(&t.Self)
	case "sysTid":
		ok = num(&t.SysTID)
	case "nice":
		ok = num(&t.Nice)
	case "cgrp":
		ok = str(&t.Cgroup)
	case "sched":
		ok = str(&t.Sched)
	case "handle":
		ok = str(&t.Handle)
	case "state":
		ok = str(&t.KernelState)
	case "schedstat":
		if inner, closed := cutAffixes(d.Value, "(", ")"); closed {
			t.SchedStat, ok = strings.TrimSpace(inner), true
		}
	case "utm":
		ok = num(&t.Utime)
	case "stm":
		ok = num(&t.Stime)
	case "core":
		ok = num(&t.Core)
	case "HZ":
		ok = num(&t.HZ)
	case "stack":
		ok = str(&t.Stack)
	case "stackSize":
		ok = str(&t.StackSize)
	}
	if !ok {
		t.ExtraDetails = append(t.ExtraDetails, d)
	}
}

func unquote(v string) (string, bool) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		return v[1 : len(v)-1], true
	}
	return v, false
}

// splitDetails splits a detail line into tokens. A value is a quoted string
// (closed by the first quote that ends the line or precedes " key="), a
// parenthesised group (schedstat), or a run of non-spaces.
func splitDetails(s string) []Detail {
	var out []Detail
	for {
		s = strings.TrimLeft(s, blanks)
		if s == "" {
			return out
		}
		k := identLen(s)
		if k == 0 || k >= len(s) || s[k] != '=' {
			word, rest := cutField(s)
			out = append(out, Detail{Value: word})
			s = rest
			continue
		}
		key, v := s[:k], s[k+1:]
		var end int
		switch {
		case strings.HasPrefix(v, `"`):
			end = closingQuote(v) + 1
		case strings.HasPrefix(v, "("):
			end = strings.IndexByte(v, ')') + 1
			if end == 0 {
				end = len(v)
			}
		default:
			end = strings.IndexAny(v, blanks)
			if end < 0 {
				end = len(v)
			}
		}
		out = append(out, Detail{Key: key, Value: v[:end]})
		s = v[end:]
	}
}

// closingQuote returns the index in v (which starts with a quote) of the
// quote that closes it: the first one at the end of v or followed by
// " key=". Without one, the value runs to the end (len(v)-1 is returned).
func closingQuote(v string) int {
	for i := 1; i < len(v); i++ {
		if v[i] != '"' {
			continue
		}
		if i == len(v)-1 {
			return i
		}
		if rest := v[i+1:]; rest[0] == ' ' {
			rest = strings.TrimLeft(rest, " ")
			if n := identLen(rest); n > 0 && n < len(rest) && rest[n] == '=' {
				return i
			}
		}
	}
	return len(v) - 1
}

// identLen returns the length of the identifier at the start of s.
func identLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9') {
			continue
		}
		return i
	}
	return len(s)
}

// splitMutexes splits the list after "held mutexes=": each `"name"` with an
// optional "(shared held)"/"(exclusive held)" right after it.
func splitMutexes(s string) []string {
	var out []string
	for {
		s = strings.TrimLeft(s, blanks)
		if s == "" {
			return out
		}
		end := 0
		if s[0] == '"' {
			if q := strings.IndexByte(s[1:], '"'); q >= 0 {
				end = q + 2
				if strings.HasPrefix(s[end:], "(") {
					if c := strings.IndexByte(s[end:], ')'); c >= 0 {
						end += c + 1
					}
				}
			} else {
				end = len(s)
			}
		}
		if end == 0 || (end < len(s) && !isBlank(s[end])) {
			if sp := strings.IndexAny(s[end:], blanks); sp >= 0 {
				end += sp
			} else {
				end = len(s)
			}
		}
		out = append(out, s[:end])
		s = s[end:]
	}
}
