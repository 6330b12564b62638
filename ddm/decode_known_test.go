package ddm

import "testing"

// KnownFromVM is true exactly for the types DecodeFromVM decodes.
func TestKnownFromVM(t *testing.T) {
	for _, ty := range []Type{TypeHELO, TypeHPSG, TypeHPDS, TypeMPSE, TypeTHCR} {
		if !KnownFromVM(ty) {
			t.Errorf("%v: not known", ty)
		}
	}
	for _, ty := range []Type{Type(0x58585858), 0} {
		if KnownFromVM(ty) {
			t.Errorf("%v: known", ty)
		}
		if _, err := DecodeFromVM(Chunk{Type: ty}); err == nil {
			t.Errorf("%v: DecodeFromVM decoded it", ty)
		}
	}
}
