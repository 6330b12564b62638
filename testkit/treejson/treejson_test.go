package treejson

import (
	"strings"
	"testing"
)

const head = `{"clock": "wall", "node": ["method", "inclusive_usec", "exclusive_usec", "calls", "children"], "threads": [{"tid": 7, "name": "main", "top_down": `

// TestDecode reads a node's fields by position, its method by index and
// its trailing object, and refuses what the writer never writes.
func TestDecode(t *testing.T) {
	doc, err := Decode([]byte(head + `[[1,9,4,2,[[0,5,5,1,[],{"folded_nodes": 3}]],{"unplaced_usec": -1}]]}], "merged": {"bottom_up": [[0,1,1,1,[],{"truncated": true}]]}, "methods": ["(other)", "a.B.c ()V"]}`))
	if err != nil {
		t.Fatal(err)
	}
	n := doc.Threads[0].TopDown[0]
	if doc.Threads[0].TID != 7 || n.Method != "a.B.c ()V" || n.Inclusive != 9 || n.Exclusive != 4 || n.Calls != 2 || n.Unplaced != -1 || len(n.Children) != 1 {
		t.Fatalf("node %+v", n)
	}
	if c := n.Children[0]; c.Method != "(other)" || c.Folded != 3 || c.Inclusive != 5 {
		t.Fatalf("child %+v", c)
	}
	if b := doc.Merged.BottomUp[0]; !b.Truncated || doc.Merged.TopDown != nil {
		t.Fatalf("merged %+v", doc.Merged)
	}
	for _, bad := range []string{
		`[[2,1,1,1,[]]]}]`,                        // no such method
		`[[0,1,1,[]]]}]`,                          // a field short
		`[[0,1,1,1,[],{"color": 1}]]}]`,           // an unknown trailing field
		`[[0,1,1,1,[],{}]]}]`,                     // an empty trailing object
		`[[0,1,1,1,7]]}]`,                         // children not a list
		`[[0,1,1,1,[],{"truncated": true},{}]]}]`, // a field too many
	} {
		_, err := Decode([]byte(head + bad + `, "merged": {}, "methods": ["a"]}`))
		if err == nil || strings.Contains(err.Error(), "invalid character") {
			t.Errorf("%s: %v", bad, err)
		}
		t.Logf("%s: %v", bad, err)
	}
	if _, err := Decode([]byte(strings.Replace(head, `"calls", `, ``, 1) + `[]}], "methods": []}`)); err == nil || !strings.Contains(err.Error(), "node fields") {
		t.Error("a header without calls: no error")
	}
}
