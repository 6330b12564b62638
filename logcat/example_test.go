package logcat_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/ddmtui/ddmtui/logcat"
)

// Decode `logcat -B` records, keep a device's history in a ring, and read
// a view of it through a query.
func Example() {
	t0 := time.Date(2026, 11, 23, 19, 0, 0, 0, time.UTC)
	var stream []byte
	for i, e := range []logcat.Entry{
		{Time: t0, PID: 1881, TID: 1881, Priority: logcat.Info, Tag: "Gallery", Message: "loaded 12 thumbnails"},
		{Time: t0.Add(time.Second), PID: 1881, TID: 1881, Priority: logcat.Error, Tag: "AndroidRuntime",
			Message: "FATAL EXCEPTION: main\n\tat com.example.gallery.Main.onCreate(Main.java:42)"},
		{Time: t0.Add(2 * time.Second), PID: 612, TID: 630, Priority: logcat.Info, Tag: "chatty", Message: "expire 3 lines"},
	} {
		var err error
		if stream, err = logcat.AppendBinary(stream, &e, logcat.HeaderV4Size); err != nil {
			fmt.Println(i, err)
		}
	}

	ring := logcat.NewRing(1000)
	d := logcat.NewBinaryDecoder(bytes.NewReader(stream), logcat.BinaryOptions{})
	var e logcat.Entry
	for d.Next(&e) == nil {
		ring.Append(e) // marks crashes and stack traces
	}

	q, err := logcat.Compile("-tag:chatty is:crash | level:I tag~:^Gall", logcat.QueryOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	entries, next, _ := ring.Read(nil, 1, 0)
	for i := range entries {
		if q.Match(&entries[i], t0.Add(time.Minute)) {
			fmt.Print(string(logcat.AppendThreadtime(nil, &entries[i], time.UTC)))
		}
	}
	fmt.Println("next read from", next)
	// Output:
	// 11-23 19:00:00.000  1881  1881 I Gallery : loaded 12 thumbnails
	// 11-23 19:00:01.000  1881  1881 E AndroidRuntime: FATAL EXCEPTION: main
	// 11-23 19:00:01.000  1881  1881 E AndroidRuntime: 	at com.example.gallery.Main.onCreate(Main.java:42)
	// next read from 4
}
