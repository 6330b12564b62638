package meminfo

import (
	"fmt"
	"io"
	"sort"
)

// Format writes m as `dumpsys meminfo PID` prints it on Android 11 to 16
// (table with SwapPss Dirty and Rss Total columns, App Summary with Pss and
// Rss columns, TOTAL PSS / TOTAL RSS / TOTAL SWAP PSS, Objects). Values
// that are nil print as 0. The simulator's device shell uses it.
func Format(w io.Writer, m MemInfo) error {
	v := func(p *int64) int64 {
		if p == nil {
			return 0
		}
		return *p
	}
	p := &errWriter{w: w}
	p.printf("Applications Memory Usage (in Kilobytes):\nUptime: 1234567 Realtime: 1234567\n\n")
	p.printf("** MEMINFO in pid %d [%s] **\n", m.PID, m.Process)
	row := func(label string, vals ...any) {
		p.printf("%13s", label)
		for _, x := range vals {
			p.printf(" %8v", x)
		}
		p.printf("\n")
	}
	row("", "Pss", "Private", "Private", "SwapPss", "Rss", "Heap", "Heap", "Heap")
	row("", "Total", "Dirty", "Clean", "Dirty", "Total", "Size", "Alloc", "Free")
	row("", "------", "------", "------", "------", "------", "------", "------", "------")
	nh, jh := v(m.NativeHeap), v(m.JavaHeap)
	row("Native Heap", nh, nh, 0, 0, v(m.NativeHeapRSS), v(m.NativeHeapSize), v(m.NativeHeapAlloc), v(m.NativeHeapFree))
	row("Dalvik Heap", jh, jh, 0, 0, v(m.JavaHeapRSS), v(m.DalvikHeapSize), v(m.DalvikHeapAlloc), v(m.DalvikHeapFree))
	row("Dalvik Other", v(m.PrivateOther)/2, v(m.PrivateOther)/2, 0, 0, v(m.PrivateOther)/2)
	row("Stack", v(m.Stack), v(m.Stack), 0, 0, v(m.StackRSS))
	row("Gfx dev", v(m.Graphics), v(m.Graphics), 0, 0, v(m.GraphicsRSS))
	row(".so mmap", v(m.Code), 0, v(m.Code), 0, v(m.CodeRSS))
	row("Unknown", v(m.System), v(m.System), 0, 0, v(m.System))
	row("TOTAL", v(m.TotalPSS), nh+jh, v(m.Code), v(m.TotalSwapPSS), v(m.TotalRSS), v(m.NativeHeapSize)+v(m.DalvikHeapSize),
		v(m.NativeHeapAlloc)+v(m.DalvikHeapAlloc), v(m.NativeHeapFree)+v(m.DalvikHeapFree))
	p.printf("\n App Summary\n")
	sum := func(label string, pss any, rss any) {
		if rss == nil {
			p.printf("%21s %8v\n", label, pss)
			return
		}
		p.printf("%21s %8v %21s %8v\n", label, pss, "", rss)
	}
	sum("", "Pss(KB)", "Rss(KB)")
	sum("", "------", "------")
	sum("Java Heap:", jh, v(m.JavaHeapRSS))
	sum("Native Heap:", nh, v(m.NativeHeapRSS))
	sum("Code:", v(m.Code), v(m.CodeRSS))
	sum("Stack:", v(m.Stack), v(m.StackRSS))
	sum("Graphics:", v(m.Graphics), v(m.GraphicsRSS))
	sum("Private Other:", v(m.PrivateOther), nil)
	sum("System:", v(m.System), nil)
	sum("Unknown:", "", v(m.System))
	p.printf("\n%21s %8d %21s %8d %21s %8d\n", "TOTAL PSS:", v(m.TotalPSS), "TOTAL RSS:", v(m.TotalRSS), "TOTAL SWAP PSS:", v(m.TotalSwapPSS))
	if len(m.Objects) > 0 {
		p.printf("\n Objects\n")
		keys := make([]string, 0, len(m.Objects))
		for k := range m.Objects {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for i := 0; i < len(keys); i += 2 {
			p.printf("%21s %8d", ObjectLabel(keys[i])+":", m.Objects[keys[i]])
			if i+1 < len(keys) {
				p.printf(" %21s %8d", ObjectLabel(keys[i+1])+":", m.Objects[keys[i+1]])
			}
			p.printf("\n")
		}
	}
	p.printf("\n")
	return p.err
}

// objectLabels are the Objects labels ActivityThread prints, by their
// snake-case key.
var objectLabels = map[string]string{
	"views": "Views", "view_root_impl": "ViewRootImpl", "app_contexts": "AppContexts", "activities": "Activities",
	"assets": "Assets", "asset_managers": "AssetManagers", "local_binders": "Local Binders", "proxy_binders": "Proxy Binders",
	"parcel_memory": "Parcel memory", "parcel_count": "Parcel count", "death_recipients": "Death Recipients",
	"open_ssl_sockets": "OpenSSL Sockets", "web_views": "WebViews",
}

// ObjectLabel is the label printed for an Objects key.
func ObjectLabel(key string) string {
	if l, ok := objectLabels[key]; ok {
		return l
	}
	return key
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
