package monitor

import "testing"

// A device VM's API level decides its sources at once (issue 29 #2: a
// fresh snapshot said "ddm" for an API 34 VM until THST had gone
// unanswered three times); an answer from the VM still wins.
func TestCapabilitiesFromTheAPILevelAtOnce(t *testing.T) {
	base := capInput{kind: "ddm", device: true, features: []string{"hprof-heap-dump"}}
	for _, tc := range []struct {
		name       string
		api        int
		thst, hpif answer
		threads    Source
		summary    Source
		hprof      Source
	}{
		{"API 34, nothing answered yet", 34, unknown, unknown, SourceProc, SourceDumpsys, SourceAm},
		{"API 30, nothing answered yet", 30, unknown, unknown, SourceProc, SourceDumpsys, SourceAm},
		{"API 29, nothing answered yet", 29, unknown, unknown, SourceDDM, SourceDDM, SourceDDM},
		{"API unknown", 0, unknown, unknown, SourceDDM, SourceDDM, SourceDDM},
		{"API 34, a custom framework answers", 34, answered, answered, SourceDDM, SourceDDM, SourceDDM},
	} {
		in := base
		in.api, in.thst, in.hpif = tc.api, tc.thst, tc.hpif
		c := decideCapabilities(in)
		if got := c.Source(FeatThreads); got != tc.threads {
			t.Errorf("%s: threads from %s, want %s", tc.name, got, tc.threads)
		}
		if got := c.Source(FeatHeapSummary); got != tc.summary {
			t.Errorf("%s: heap summary from %s, want %s", tc.name, got, tc.summary)
		}
		if got := c.Source(FeatHPROF); got != tc.hprof {
			t.Errorf("%s: hprof from %s, want %s", tc.name, got, tc.hprof)
		}
	}
	// Off a device the level (if any) changes nothing.
	off := base
	off.device, off.api = false, 34
	if got := decideCapabilities(off).Source(FeatThreads); got != SourceDDM {
		t.Errorf("off a device: threads from %s", got)
	}
}
