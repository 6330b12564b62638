package heapdump

import (
	"fmt"
	"strings"
)

// primitiveArrayNames is indexed by HPROF basic type.
var primitiveArrayNames = [12]string{4: "boolean[]", 5: "char[]", 6: "float[]", 7: "double[]", 8: "byte[]", 9: "short[]", 10: "int[]", 11: "long[]"}

// Names of the classes the analysis looks for (D4, D12, D13, D14).
const (
	nameClass       = "java.lang.Class"
	nameReference   = "java.lang.ref.Reference"
	nameString      = "java.lang.String"
	nameActivity    = "android.app.Activity"
	nameFragment    = "android.app.Fragment"
	nameXFragment   = "androidx.fragment.app.Fragment"
	nameBitmap      = "android.graphics.Bitmap"
	nameBitmapDump  = "android.graphics.Bitmap$DumpData"
	fieldReferent   = "referent"
	fieldDumpData   = "dumpData"
	unknownClassFmt = "unknown class %#x"
)

// SourceName rewrites a JVM internal class name into Java source form
// (spec D3): "java/util/HashMap" -> "java.util.HashMap",
// "[Ljava/lang/String;" -> "java.lang.String[]", "[[I" -> "int[][]". Names
// already in source form (ART's) are returned unchanged.
func SourceName(name string) string {
	dims := 0
	for dims < len(name) && name[dims] == '[' {
		dims++
	}
	if dims == 0 {
		if strings.IndexByte(name, '/') < 0 {
			return name
		}
		return strings.ReplaceAll(name, "/", ".")
	}
	elem := name[dims:]
	switch {
	case len(elem) >= 2 && elem[0] == 'L' && elem[len(elem)-1] == ';':
		elem = strings.ReplaceAll(elem[1:len(elem)-1], "/", ".")
	case len(elem) == 1 && primitiveLetter(elem[0]) != "":
		elem = primitiveLetter(elem[0])
	default:
		return name // not a descriptor: keep it as it is
	}
	return elem + strings.Repeat("[]", dims)
}

func primitiveLetter(c byte) string {
	switch c {
	case 'Z':
		return "boolean"
	case 'C':
		return "char"
	case 'F':
		return "float"
	case 'D':
		return "double"
	case 'B':
		return "byte"
	case 'S':
		return "short"
	case 'I':
		return "int"
	case 'J':
		return "long"
	}
	return ""
}

// HexID formats an object id as the JSON does: lower-case hex with 0x.
func HexID(id uint64) string { return fmt.Sprintf("%#x", id) }
