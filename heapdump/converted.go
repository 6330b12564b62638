package heapdump

import (
	"strings"

	"github.com/ddmtui/ddmtui/hprof"
)

// ConvertedNote is what every surface says of a converted dump (Converted):
// what hprof-conv changed and which leak it makes up.
const ConvertedNote = "converted by hprof-conv: leaks may be false. Conversion made ROOT UNREACHABLE " +
	"a GC root (ROOT UNKNOWN), so an object Android marked unreachable, a destroyed Activity among them, " +
	"counts as reachable, a leak that is not one, with what it holds as retained; the heaps are merged " +
	"into one. Analyse the dump as the VM sent it (hprof --android, or the dashboard's H)."

// ConvertedShort is ConvertedNote in a few words, for a header.
const ConvertedShort = "converted: a leak may be false"

// Converted reports whether the dump is Android's converted to the
// standard format (hprof-conv, hprof.Convert): version 1.0.2 with
// Android's framework classes (android.*, dalvik.*). Android writes only
// 1.0.3 and a JVM has no such classes; conversion leaves no other mark
// (HEAP DUMP INFO is dropped, Android's root kinds become ROOT UNKNOWN,
// which a JVM may write too).
func (h *Heap) Converted() bool {
	if h.format != hprof.VersionStandard {
		return false
	}
	for _, n := range h.names {
		if strings.HasPrefix(n, "android.") || strings.HasPrefix(n, "dalvik.") {
			return true
		}
	}
	return false
}
