package scene

import (
	"io"

	"github.com/ddmtui/ddmtui/hprof"
)

// WasteKinds writes a small dump (4-byte ids) whose one Holder holds six
// Strings in three duplicate groups (spec D13): two empty strings, two
// copies sharing one value array — both groups waste nothing — and two
// copies of "real" with arrays of their own, the one group that wastes (4
// bytes). Tests of what a report lists as waste read it.
func WasteKinds(w io.Writer) error {
	b, err := NewBuilder(w, 4, "")
	if err != nil {
		return err
	}
	object := b.Class("java.lang.Object", nil)
	str := b.Class("java.lang.String", object, F("count", hprof.TypeInt), F("value", hprof.TypeObject))
	holder := b.Class("Holder", object, F("a", hprof.TypeObject), F("b", hprof.TypeObject), F("c", hprof.TypeObject),
		F("d", hprof.TypeObject), F("e", hprof.TypeObject), F("f", hprof.TypeObject))
	object.Dump()
	str.Dump()
	holder.Dump()
	shared := b.Bytes([]byte("shared"))
	v := V{
		"a": b.Instance(str, V{"count": 0, "value": b.Bytes(nil)}),
		"b": b.Instance(str, V{"count": 0, "value": b.Bytes(nil)}),
		"c": b.Instance(str, V{"count": 6, "value": shared}),
		"d": b.Instance(str, V{"count": 6, "value": shared}),
		"e": b.Instance(str, V{"count": 4, "value": b.Bytes([]byte("real"))}),
		"f": b.Instance(str, V{"count": 4, "value": b.Bytes([]byte("real"))}),
	}
	b.Root(hprof.SubRootStickyClass, b.Instance(holder, v))
	return b.Close()
}
