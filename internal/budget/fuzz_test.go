package budget

import "testing"

// FuzzOps runs a sequence of takes, gives and reclaims, each op two bytes
// (what, how much), over a process budget with two shares and three
// holders of different ranks, and checks after every op that no budget
// passed its limit, that each budget counts exactly what its holders hold,
// and that nothing is counted below zero.
func FuzzOps(f *testing.F) {
	f.Add([]byte{0, 40, 1, 40, 2, 40, 3, 90})
	f.Add([]byte{2, 200, 2, 200, 0, 100, 4, 3, 3, 250, 5, 0})
	f.Add([]byte{1, 255, 1, 255, 1, 255, 0, 255, 3, 255, 3, 255, 4, 0, 4, 1, 4, 2})
	f.Fuzz(func(t *testing.T, ops []byte) {
		p := New(600)
		shares := []*Budget{p.Child(300), p.Child(0)}
		hs := []*holder{
			{b: shares[0].Child(0), what: "pictures"},
			{b: shares[1].Child(0), what: "maps"},
			{b: shares[1].Child(250), what: "logs"},
		}
		ranks := []Rank{RankPicture, RankHeapMap, RankLog}
		for i, h := range hs {
			defer h.b.Reclaimer(ranks[i], h.reclaim)()
		}
		var live int64 // what plain takes on p hold
		for i := 0; i+1 < len(ops); i += 2 {
			n := int64(ops[i+1])
			switch op := ops[i] % 6; op {
			case 0, 1, 2:
				hs[op].add(n)
			case 3:
				if p.Take(n) {
					live += n
				}
			case 4:
				hs[n%3].reclaim(n)
			case 5:
				p.Give(live)
				live = 0
			}
			held := func(h *holder) (s int64) {
				for _, x := range h.pieces {
					s += x
				}
				return s
			}
			a, b, c := held(hs[0]), held(hs[1]), held(hs[2])
			if p.Used() != a+b+c+live || shares[0].Used() != a || shares[1].Used() != b+c || hs[2].b.Used() != c {
				t.Fatalf("op %d: counted %d (%d, %d, %d), held %d %d %d + %d live", i/2, p.Used(), shares[0].Used(), shares[1].Used(), hs[2].b.Used(), a, b, c, live)
			}
			if p.Used() > 600 || shares[0].Used() > 300 || hs[2].b.Used() > 250 || a < 0 || b < 0 || c < 0 {
				t.Fatalf("op %d: a limit passed: %d %d %d", i/2, p.Used(), shares[0].Used(), hs[2].b.Used())
			}
		}
	})
}
