package logcat

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// The text format of `logcat -v threadtime` (liblog's logprint.cpp): one
// line per line of the message, each with the same prefix
//
//	MM-DD HH:MM:SS.mmm  PID  TID L TAG     : message
//
// with pid and tid right-aligned in 5 columns and the tag left-aligned in 8.
// `-v year` puts the year in front of the date, `-v usec`/`-v nsec` give 6
// or 9 digits of fraction, `-v zone` adds the UTC offset after the time.
// Lines starting with "--------- " are logcat's buffer dividers.

// MaxLineLen bounds one text line (logcat's own lines stay below 5 KiB per
// entry line).
const MaxLineLen = 64 << 10

// ErrLine is wrapped by a *LineError for a line that is not in threadtime
// format.
var ErrLine = errors.New("not a threadtime line")

// LineError is one line the text decoder could not read; decoding goes on
// with the next line.
type LineError struct {
	Line int    // 1-based line number
	Text string // the line, cut to 80 bytes
	Err  error
}

func (e *LineError) Error() string {
	return fmt.Sprintf("logcat: line %d: %v: %q", e.Line, e.Err, e.Text)
}

func (e *LineError) Unwrap() error { return e.Err }

// TextOptions tune the threadtime decoder.
type TextOptions struct {
	// Location is the device's time zone, for lines without -v zone
	// (default time.Local).
	Location *time.Location
	// Now gives the year for lines without one: the year in which the
	// date is not more than a day in the future (default time.Now).
	Now func() time.Time
	// Join merges consecutive lines with the same prefix (time, pid, tid,
	// level, tag) into one multi-line entry, as logcat split them. Without
	// Join every line is an entry.
	Join bool
	// Dump says the input ends (logcat -d): a joined entry is held until
	// the next line or the end. Otherwise (a live stream) it is handed out
	// as soon as no more input is buffered, so the newest entry is not
	// held back until the next one arrives.
	Dump bool
}

// TextDecoder reads `logcat -v threadtime` output.
type TextDecoder struct {
	r       *bufio.Reader
	opts    TextOptions
	line    int
	pending *Entry // a joined entry waiting for its next line
	queued  error  // a line error to report after pending
	err     error  // sticky read error, reported after pending
}

// NewTextDecoder reads from r.
func NewTextDecoder(r io.Reader, opts TextOptions) *TextDecoder {
	if opts.Location == nil {
		opts.Location = time.Local
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &TextDecoder{r: bufio.NewReaderSize(r, MaxLineLen), opts: opts}
}

// Next returns the next entry. It returns io.EOF at the end, a *LineError
// for a line it cannot read (call Next again to go on), or the reader's
// error. With Join, an entry is held until a line with another prefix
// arrives or no more input is buffered.
func (d *TextDecoder) Next(e *Entry) error {
	if d.queued != nil {
		err := d.queued
		d.queued = nil
		return err
	}
	for {
		if d.err != nil {
			if d.pending != nil {
				*e, d.pending = *d.pending, nil
				return nil
			}
			return d.err
		}
		if d.pending != nil && !d.opts.Dump && d.r.Buffered() == 0 {
			// Nothing more has arrived: a live stream should not hold
			// the last entry back until the next one.
			*e, d.pending = *d.pending, nil
			return nil
		}
		raw, err := d.readLine()
		if err != nil {
			d.err = err
			continue
		}
		d.line++
		if len(raw) == 0 || bytes.HasPrefix(raw, []byte("--------- ")) {
			continue
		}
		var ent Entry
		if err := d.parse(raw, &ent); err != nil {
			text := string(raw)
			if len(text) > 80 {
				text = text[:80]
			}
			lerr := &LineError{Line: d.line, Text: text, Err: err}
			if d.pending != nil {
				*e, d.pending = *d.pending, nil
				d.queued = lerr
				return nil
			}
			return lerr
		}
		if !d.opts.Join {
			*e = ent
			return nil
		}
		if d.pending == nil {
			p := ent
			d.pending = &p
			continue
		}
		if samePrefix(d.pending, &ent) {
			d.pending.Message += "\n" + ent.Message
			continue
		}
		*e = *d.pending
		*d.pending = ent
		return nil
	}
}

func samePrefix(a, b *Entry) bool {
	return a.Time.Equal(b.Time) && a.PID == b.PID && a.TID == b.TID && a.Priority == b.Priority && a.Tag == b.Tag
}

// readLine returns one line without its "\n" or "\r\n" (a legacy shell:
// stream runs through a PTY). A line longer than MaxLineLen ends decoding.
func (d *TextDecoder) readLine() ([]byte, error) {
	line, err := d.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		return nil, fmt.Errorf("logcat: line %d longer than %d bytes", d.line+1, MaxLineLen)
	}
	if err != nil && !(err == io.EOF && len(line) > 0) {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	line = bytes.TrimSuffix(line, []byte("\r"))
	return line, nil
}

// ParseThreadtime parses one threadtime line (without its newline).
func ParseThreadtime(line string, opts TextOptions) (Entry, error) {
	if opts.Location == nil {
		opts.Location = time.Local
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	d := TextDecoder{opts: opts}
	var e Entry
	err := d.parse([]byte(line), &e)
	return e, err
}

// parse reads a line's prefix and message.
func (d *TextDecoder) parse(b []byte, e *Entry) error {
	s := lineScanner{b: b}
	year := -1
	// [YYYY-]MM-DD
	n1, ok := s.digits(2, 4)
	if !ok || !s.lit('-') {
		return fmt.Errorf("%w: date", ErrLine)
	}
	month := n1
	if s.pos == 5 { // four digits: the year of -v year
		year = n1
		if month, ok = s.digits(2, 2); !ok || !s.lit('-') {
			return fmt.Errorf("%w: date", ErrLine)
		}
	}
	day, ok := s.digits(2, 2)
	if !ok || !s.lit(' ') {
		return fmt.Errorf("%w: date", ErrLine)
	}
	hh, ok1 := s.digits(2, 2)
	ok2 := s.lit(':')
	mm, ok3 := s.digits(2, 2)
	ok4 := s.lit(':')
	ss, ok5 := s.digits(2, 2)
	ok6 := s.lit('.')
	start := s.pos
	frac, ok7 := s.digits(3, 9)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6 && ok7) {
		return fmt.Errorf("%w: time", ErrLine)
	}
	switch s.pos - start {
	case 3:
		frac *= 1e6
	case 6:
		frac *= 1e3
	case 9:
	default:
		return fmt.Errorf("%w: fraction of %d digits", ErrLine, s.pos-start)
	}
	if month < 1 || month > 12 || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 60 {
		return fmt.Errorf("%w: date out of range", ErrLine)
	}
	loc := d.opts.Location
	s.spaces()
	if s.peek() == '+' || s.peek() == '-' { // -v zone: +hhmm
		sign := 1
		if s.peek() == '-' {
			sign = -1
		}
		s.pos++
		z, ok := s.digits(4, 4)
		if !ok {
			return fmt.Errorf("%w: zone", ErrLine)
		}
		loc = time.FixedZone("", sign*((z/100)*3600+(z%100)*60))
		s.spaces()
	}
	pid, ok := s.digits(1, 10)
	if !ok || !s.spaces() {
		return fmt.Errorf("%w: pid", ErrLine)
	}
	tid, ok := s.digits(1, 10)
	if !ok || !s.spaces() || pid > 1<<31-1 || tid > 1<<31-1 {
		return fmt.Errorf("%w: tid", ErrLine)
	}
	if s.pos >= len(b) {
		return fmt.Errorf("%w: level", ErrLine)
	}
	pri := priorityOfLetter(b[s.pos])
	s.pos++
	if pri == Unknown || !s.lit(' ') {
		return fmt.Errorf("%w: level", ErrLine)
	}
	rest := b[s.pos:]
	// The tag ends at the first ": " (tags may hold spaces, and are padded
	// to 8 columns); an empty message may have lost its trailing blank.
	var tag, msg []byte
	if i := bytes.Index(rest, []byte(": ")); i >= 0 {
		tag, msg = rest[:i], rest[i+2:]
	} else if bytes.HasSuffix(rest, []byte(":")) {
		tag = rest[:len(rest)-1]
	} else {
		return fmt.Errorf("%w: no \": \" after the tag", ErrLine)
	}
	if year < 0 {
		now := d.opts.Now().In(loc)
		year = now.Year()
		t := time.Date(year, time.Month(month), day, hh, mm, ss, frac, loc)
		if t.After(now.Add(24 * time.Hour)) {
			year--
		}
	}
	e.Time = time.Date(year, time.Month(month), day, hh, mm, ss, frac, loc)
	e.PID, e.TID, e.UID = int32(pid), int32(tid), -1
	e.Priority = pri
	e.Tag = string(bytes.TrimRight(tag, " "))
	e.Message = string(msg)
	return nil
}

func priorityOfLetter(c byte) Priority {
	switch c {
	case 'V':
		return Verbose
	case 'D':
		return Debug
	case 'I':
		return Info
	case 'W':
		return Warn
	case 'E':
		return Error
	case 'F', 'A':
		return Fatal
	case 'S':
		return Silent
	}
	return Unknown
}

type lineScanner struct {
	b   []byte
	pos int
}

// digits reads min..max decimal digits.
func (s *lineScanner) digits(min, max int) (int, bool) {
	n, i := 0, 0
	for ; i < max && s.pos+i < len(s.b); i++ {
		c := s.b[s.pos+i]
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	if i < min {
		return 0, false
	}
	s.pos += i
	return n, true
}

func (s *lineScanner) lit(c byte) bool {
	if s.pos < len(s.b) && s.b[s.pos] == c {
		s.pos++
		return true
	}
	return false
}

func (s *lineScanner) peek() byte {
	if s.pos < len(s.b) {
		return s.b[s.pos]
	}
	return 0
}

// spaces skips one or more blanks.
func (s *lineScanner) spaces() bool {
	start := s.pos
	for s.pos < len(s.b) && s.b[s.pos] == ' ' {
		s.pos++
	}
	return s.pos > start
}

// AppendThreadtime appends e in `logcat -v threadtime` format, one line per
// line of the message, each ending in "\n"; times are shown in loc (nil:
// time.Local). Text is written as it is: escape it before a terminal.
func AppendThreadtime(dst []byte, e *Entry, loc *time.Location) []byte {
	return appendThreadtime(dst, e, loc, false)
}

// AppendThreadtimeApp is AppendThreadtime with the entry's App ("-" when
// not known) after the pid, for a person reading a whole device's log;
// ParseThreadtime does not read it back.
func AppendThreadtimeApp(dst []byte, e *Entry, loc *time.Location) []byte {
	return appendThreadtime(dst, e, loc, true)
}

func appendThreadtime(dst []byte, e *Entry, loc *time.Location, withApp bool) []byte {
	if loc == nil {
		loc = time.Local
	}
	t := e.Time.In(loc)
	msg := strings.TrimSuffix(e.Message, "\n")
	for {
		line, more, found := strings.Cut(msg, "\n")
		dst = t.AppendFormat(dst, "01-02 15:04:05.000")
		if withApp {
			app := e.App
			if app == "" {
				app = "-"
			}
			dst = fmt.Appendf(dst, " %5d %s %5d %c %-8s: ", e.PID, app, e.TID, e.Priority.Letter(), e.Tag)
		} else {
			dst = fmt.Appendf(dst, " %5d %5d %c %-8s: ", e.PID, e.TID, e.Priority.Letter(), e.Tag)
		}
		dst = append(dst, line...)
		dst = append(dst, '\n')
		if !found {
			return dst
		}
		msg = more
	}
}
