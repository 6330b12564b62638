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

// Mean divides the bytes by the count (a group of one cannot tell / from
// *), and an empty group's mean is 0, not NaN.
func TestGroupMean(t *testing.T) {
	for _, tc := range []struct {
		g    Group
		want float64
	}{
		{Group{}, 0},
		{Group{Bytes: 100}, 0},
		{Group{Count: 4, Bytes: 100}, 25},
		{Group{Count: 3, Bytes: 10}, 10.0 / 3},
		{Group{Count: 1, Bytes: 24}, 24},
	} {
		if got := tc.g.Mean(); got != tc.want {
			t.Errorf("Mean of %d allocations of %d bytes = %v, want %v", tc.g.Count, tc.g.Bytes, got, tc.want)
		}
	}
}
