package allocs

import "testing"

// ByStack and BySite groups of entries without frames have nil Frames, as
// Group documents (a view tells "no stack" from an empty one by nil).
func TestNoSiteGroupsHaveNilFrames(t *testing.T) {
	tab := New(sample(), NewestFirst)
	for _, by := range []GroupBy{BySite, ByStack} {
		var found bool
		for _, g := range tab.Groups(by, tab.Filter("")) {
			if g.Key != NoSite {
				if len(g.Frames) == 0 {
					t.Errorf("%v group %q has no frames", by, g.Key)
				}
				continue
			}
			found = true
			if g.Frames != nil {
				t.Errorf("%v group %q: Frames = %#v, want nil", by, g.Key, g.Frames)
			}
		}
		if !found {
			t.Errorf("%v: no %q group", by, NoSite)
		}
	}
}
