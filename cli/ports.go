package cli

import (
	"fmt"
	"net"
)

// listenLocalRange listens on n consecutive free loopback ports from first
// upward and returns the listeners, lowest port first.
func listenLocalRange(first, n int) ([]net.Listener, error) {
	for base := first; base+n <= 65535; base++ {
		lns := make([]net.Listener, 0, n)
		for p := base; p < base+n; p++ {
			ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				base = p // skip past the busy port
				break
			}
			lns = append(lns, ln)
		}
		if len(lns) == n {
			return lns, nil
		}
		for _, ln := range lns {
			ln.Close()
		}
	}
	return nil, fmt.Errorf("no %d free consecutive ports from %d", n, first)
}

// freeLocalRange finds n consecutive free loopback ports from first upward
// (free when it looked: the caller binds them later).
func freeLocalRange(first, n int) (int, error) {
	lns, err := listenLocalRange(first, n)
	if err != nil {
		return 0, err
	}
	for _, ln := range lns {
		ln.Close()
	}
	return lns[0].Addr().(*net.TCPAddr).Port, nil
}
