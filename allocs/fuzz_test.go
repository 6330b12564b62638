package allocs

import (
	"testing"

	"github.com/ddmtui/ddmtui/ddm"
)

// FuzzTable checks the table's invariants on any REAL body ddm accepts:
// indices are a permutation of 1..n, every grouping partitions the entries
// with the right totals, and a filter and its inversion partition them too.
func FuzzTable(f *testing.F) {
	f.Add(specExample, "foo")
	f.Add(sample().AppendBody(nil), "!tid=1")
	f.Fuzz(func(t *testing.T, body []byte, filter string) {
		a, err := ddm.DecodeAllocations(body)
		if err != nil {
			return
		}
		for _, order := range []Order{NewestFirst, OldestFirst} {
			tab := New(a, order)
			n := tab.Len()
			seen := make([]bool, n+1)
			for _, e := range tab.Entries {
				if e.Index < 1 || e.Index > n || seen[e.Index] {
					t.Fatalf("index %d of %d repeated or out of range", e.Index, n)
				}
				seen[e.Index] = true
			}
			all := tab.Filter("")
			for _, by := range Groupings[:len(Groupings)-1] {
				count, bytes, member := 0, uint64(0), make([]int, n)
				for _, g := range tab.Groups(by, all) {
					sub := uint64(0)
					for _, i := range g.Entries {
						member[i]++
						sub += uint64(tab.Entries[i].Size)
					}
					if len(g.Entries) != g.Count || sub != g.Bytes {
						t.Fatalf("%v group %q: count %d bytes %d, entries say %d, %d", by, g.Key, g.Count, g.Bytes, len(g.Entries), sub)
					}
					count += g.Count
					bytes += g.Bytes
				}
				for i, m := range member {
					if m != 1 {
						t.Fatalf("%v: entry %d is in %d groups", by, i, m)
					}
				}
				if count != n || bytes != tab.Bytes {
					t.Fatalf("%v: groups hold %d entries, %d bytes; table %d, %d", by, count, bytes, n, tab.Bytes)
				}
			}
			if len(filter) > 0 && filter[0] == '!' {
				filter = filter[1:]
			}
			if filter == "" {
				continue
			}
			in, out := tab.Filter(filter), tab.Filter("!"+filter)
			if len(in)+len(out) != n {
				t.Fatalf("filter %q keeps %d, its inversion %d, of %d", filter, len(in), len(out), n)
			}
		}
	})
}
