package trace

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/ddmtui/ddmtui/internal/safetext"
)

// WriteText writes p as a plain-text flat profile (what `ddmtui trace FILE`
// prints when its output is not a terminal): the totals, labelled for what
// they are (the whole trace's wall span; each thread's traced time, and
// their sum over the threads, which dmtracedump calls "Total cycles"), the
// threads, and every method with time or calls, by exclusive time on clock
// c, descending, with the time when no method was on the stack as one more
// row. Percentages are of the threads' summed time on c, so a
// column of exclusive percentages adds up to 100. Names from the file are
// escaped for a terminal.
func WriteText(w io.Writer, p *Profile, c Clock) error {
	bw := bufio.NewWriter(w)
	total := p.All.Total()
	fmt.Fprintf(bw, "method trace: version %d, %s clock, %d records, %d threads with records\n",
		p.Header.Version, p.Clocks, p.Records, p.ThreadsWithRecords())
	if span, ok := p.Span(); ok {
		fmt.Fprintf(bw, "whole trace: %s ms wall, first record to last\n", textMillis(span))
	}
	fmt.Fprintf(bw, "summed over the %d threads (each from its first record to its last):", p.ThreadsWithRecords())
	for _, k := range p.Clocks.List() {
		fmt.Fprintf(bw, " %s %s ms", k, textMillis(total[k]))
	}
	bw.WriteString("\n\nthreads (traced time: last record − first)\n")
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "tid\trecords\t")
	for _, k := range p.Clocks.List() {
		fmt.Fprintf(tw, "%s ms\t", k)
	}
	fmt.Fprint(tw, "\t\n")
	for i := range p.Threads {
		tp := &p.Threads[i]
		if tp.Records == 0 {
			continue
		}
		tt := tp.Total()
		fmt.Fprintf(tw, "%d\t%d\t", tp.ID, tp.Records)
		for _, k := range p.Clocks.List() {
			fmt.Fprintf(tw, "%s\t", textMillis(tt[k]))
		}
		fmt.Fprintf(tw, "\t%s\n", safetext.Terminal(threadLabel(tp)))
	}
	tw.Flush()
	order, stats := p.jsonMethodOrder()
	// The time with no method on the stack, so that the exclusive
	// column adds up to the summed time.
	order = append(order, TopLevel)
	stats[TopLevel] = Stats{Exclusive: p.All.Stats(TopLevel).Exclusive}
	slices.SortStableFunc(order, func(a, b int32) int {
		ea, eb := stats[a].Exclusive[c], stats[b].Exclusive[c]
		if ea != eb {
			if ea > eb {
				return -1
			}
			return 1
		}
		return 0
	})
	fmt.Fprintf(bw, "\nmethods by exclusive time on the %s clock, all threads (%% of the threads' summed %s time)\n", c, c)
	tw = tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "excl ms\texcl %\tincl ms\tincl %\tcalls\t\t\n")
	for _, i := range order {
		s := &stats[i]
		if s.Calls == 0 && s.Exclusive[c] == 0 && s.Inclusive[c] == 0 {
			continue
		}
		name := "(no method on the stack)"
		if i != TopLevel {
			name = p.Methods[i].FullName()
			if sig := p.Methods[i].Signature; sig != "" {
				name += " " + sig
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t\t%s\n", textMillis(s.Exclusive[c]), textPercent(s.Exclusive[c], total[c]),
			textMillis(s.Inclusive[c]), textPercent(s.Inclusive[c], total[c]), s.Calls, safetext.Terminal(name))
	}
	tw.Flush()
	return bw.Flush()
}

// textMillis writes µs as milliseconds with three decimals.
func textMillis(us uint64) string {
	return strconv.FormatUint(us/1000, 10) + "." + fmt.Sprintf("%03d", us%1000)
}

func textPercent(v, total uint64) string {
	if total == 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(v)/float64(total), 'f', 1, 64)
}
