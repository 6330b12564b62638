package style

import (
	"strings"

	"github.com/ddmtui/ddmtui/internal/safetext"
)

// noTag is a tview style tag that changes nothing: no colour, no
// attribute, no URL. Written after a '[', it makes that bracket text.
const noTag = "[:]"

// Escape makes a string that came from a peer (a VM, a device, a file) safe
// for a tview widget that interprets tags (dynamic colours, table cells):
// control characters are written out as by safetext.Terminal, and every '['
// is followed by an empty style tag, so no tag (colour, attribute, region or
// an OSC 8 hyperlink such as "[:::http://evil.example]") can begin at it.
//
// tview's own Escape is not enough: it leaves tags with characters outside
// its pattern ("/" in a URL) alone, and its escaped form "[tag[]" is itself
// a valid URL tag when the tag starts with ":::".
func Escape(s string) string {
	return EscapeTags(safetext.Terminal(s))
}

// EscapeTags neutralises tview's tags in text that is ours but may hold a
// '[' (help generated from key labels such as "[" and "]"), leaving line
// breaks alone. Peer strings go through Escape.
func EscapeTags(s string) string {
	if strings.IndexByte(s, '[') < 0 {
		return s
	}
	return strings.ReplaceAll(s, "[", "["+noTag)
}
