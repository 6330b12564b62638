package scene_test

import (
	"fmt"

	"github.com/ddmtui/ddmtui/hprof"
	"github.com/ddmtui/ddmtui/hprof/scene"
)

// An Android 15 dump taken with `am dumpheap -b png`, embedded in a heap
// with a thousand more objects, and what an analyser must find in it.
func Example() {
	data, want, err := scene.Android(scene.Options{Seed: 1, API: 35, BitmapFormat: "png",
		Filler: []hprof.ClassCount{{Name: "com.example.mail.data.Item", Instances: 1000}}})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(data) > 0, want.Nodes)
	for _, l := range want.Leaks {
		fmt.Println(l.Kind, l.Reason, l.Class, len(l.Path))
	}
	for _, d := range want.Duplicates {
		fmt.Printf("%q x%d wastes %d\n", d.Value, d.Count, d.Wasted)
	}
	for _, b := range want.Bitmaps {
		fmt.Println(b.Width, b.Height, b.PixelsInDump, b.Format)
	}
	// Output:
	// true 1286
	// activity destroyed com.example.mail.InboxActivity 5
	// activity finished com.example.mail.ComposeActivity 8
	// activity destroyed com.example.mail.SettingsActivity 3
	// fragment detached com.example.mail.ui.MessageListFragment 2
	// fragment detached com.example.mail.legacy.PrefsFragment 2
	// "Привет ✉" x3 wastes 32
	// "INBOX" x4 wastes 15
	// "Sent" x3 wastes 12
	// "draft" x2 wastes 5
	// "" x2 wastes 0
	// 256 192 true png
	// 48 48 false
}
