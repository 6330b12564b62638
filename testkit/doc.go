// Package testkit holds, in its subpackages, what only tests, benchmarks
// and the soak suite use: real-peer lookup (testpeer, testjvm, testadb),
// leak checks (leakcheck), hostile peers (hostile), the reference heap dump
// analyser (hprofref), the benchmark kit's anchor streams (benchdata) and
// the soak suite (soak), a simulation screen read as text (screentext), the call-tree JSON read back
// (treejson). No production package imports them; the test in
// this package checks that.
package testkit
