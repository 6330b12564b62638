// Package soak holds ddmtui's reliability suite (`make soak`, build tag
// soak): healthy simulated VMs beside hostile endpoints (garbage,
// slowloris, bad and oversize lengths, large packets, THCR floods, endless
// heap segments), VM churn and debugger abuse, asserting that the healthy
// VMs stay monitored and that the process's peak RSS stays under a bound.
// Figures are printed and recorded in docs/RELIABILITY.md.
package soak
